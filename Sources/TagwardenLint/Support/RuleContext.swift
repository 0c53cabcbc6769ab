import TagwardenBasics
import TagwardenYAML
import TagwardenModel

/// What a rule's check is given: the Model, and the rule it reports for. Findings are made here, so a rule's id is
/// written once, where the rule is declared, and every finding carries its file, span, object and environment.
public struct RuleContext: Sendable {
    /// The rule being run.
    public let rule: String
    public let model: Model
    /// Only for a rule that judges the suppressions (`Rule.judgesSuppressions`): each `# tagwarden:ignore` that
    /// matched a finding of another rule, as `Suppression.useKey`.
    public let suppressionsUsed: Set<String>
    /// What the registries say (`audit --registry`); nil when the audit stays offline, as it does by default.
    public let registry: RegistryFacts?

    init(rule: String, model: Model, suppressionsUsed: Set<String> = [], registry: RegistryFacts? = nil) {
        self.rule = rule
        self.model = model
        self.suppressionsUsed = suppressionsUsed
        self.registry = registry
    }

    /// A finding at a span of a file of the Model.
    public func finding(_ message: String, file: Int, span: SourceSpan, object: Int?, environment: String?) -> Finding {
        Finding(rule: rule, severity: .error, message: message, file: model.files[file].path, span: span,
                environment: environment, object: model.objectRef(object))
    }

    /// A finding at a path that may not be a file of the Model (a file that was not read).
    public func finding(_ message: String, path: String, span: SourceSpan, subject: String? = nil) -> Finding {
        Finding(rule: rule, severity: .error, message: message, file: path, span: span, subject: subject)
    }

    /// A finding about image `i`, in its environment; its message ends with what made the reference (a substitution, a
    /// values file).
    public func finding(_ message: String, image i: Int, span: SourceSpan? = nil) -> Finding {
        let img = model.images[i]
        var f = finding(message + (img.substitution?.note(model) ?? "") + (img.provenance.map { " (\($0))" } ?? ""),
                        file: img.file, span: span ?? img.span, object: img.object, environment: model.images[i].environment)
        f.subject = img.text   // a field that several builds substitute differently is several findings
        return f
    }

    /// A finding about policy `p`, at its pattern (or its kind); `environment` when it is judged for one of several.
    public func finding(_ message: String, policy p: Int, span: SourceSpan? = nil, environment: String? = nil) -> Finding {
        let o = model.flux.policies[p].object
        var f = finding(message, file: model.objects[o].file, span: span ?? model.policySpan(p), object: o,
                        environment: environment ?? model.objectEnvironment[o])
        f.subject = environment   // the environment a policy is judged for, of several
        return f
    }

    /// A finding at marker `k`.
    public func finding(_ message: String, marker k: Int) -> Finding {
        let m = model.markers[k]
        return finding(message, file: m.file, span: m.span, object: m.object, environment: model.markers[k].environment)
    }

    /// A finding about object `o`, at its kind unless a span is given.
    public func finding(_ message: String, object o: Int, span: SourceSpan? = nil) -> Finding {
        finding(message, file: model.objects[o].file, span: span ?? model.objects[o].kindSpan, object: o,
                environment: model.objectEnvironment[o])
    }
}
