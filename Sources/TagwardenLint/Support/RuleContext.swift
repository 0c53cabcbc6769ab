import TagwardenYAML
import TagwardenModel

/// Findings about the Model's entities: their file, span, object and environment filled in.
extension Model {
    public func finding(_ rule: String, _ message: String, file: Int, span: SourceSpan, object: Int?, environment: String?) -> Finding {
        Finding(rule: rule, severity: .error, message: message, file: files[file].path, span: span,
                environment: environment, object: objectRef(object))
    }

    public func finding(_ rule: String, _ message: String, image i: Int, span: SourceSpan? = nil) -> Finding {
        let img = images[i]
        var f = finding(rule, message + (img.substitution?.note(self) ?? "") + (img.provenance.map { " (\($0))" } ?? ""),
                        file: img.file, span: span ?? img.span,
                        object: img.object, environment: imageEnvironment[i])
        f.subject = img.text   // a field that several builds substitute differently is several findings
        return f
    }
}
