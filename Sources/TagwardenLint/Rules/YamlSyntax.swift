import TagwardenBasics
import TagwardenYAML
import TagwardenModel

extension Rule {
    static let yamlSyntax = Rule("yaml-syntax", scope: .updatePaths) { c in
        var out: [Finding] = []
        var charts: [String]?
        var data: Set<String>?
        let files = c.model.files
        // a file is copied out only when it has something to report
        for i in files.indices where files[i].syntaxError != nil || !files[i].duplicateKeys.isEmpty || !files[i].goRefusals.isEmpty
                                    || !files[i].duplicateMergeKeys.isEmpty {
            let f = files[i]
            if let e = f.syntaxError {
                var end = e.position
                end.column += 1
                end.offset = min(end.offset + 1, f.bytes.count)
                out.append(c.finding("YAML syntax error: \(e.message)", path: f.path, span: SourceSpan(start: e.position, end: end), subject: e.message))
            }
            // a generator's data file is copied into its ConfigMap as bytes: kustomize does not read its keys or what Go's
            // YAML refuses, and what reads them there (Helm, an application) is not known here
            let dataFiles = data ?? c.model.generatorDataFiles
            data = dataFiles
            // kustomize reads a kustomization file leniently: the last of two keys wins (`kubectl kustomize` builds it)
            let isKustomization = Extractor.isKustomizationName(Path.basename(f.path))
            for d in f.duplicateKeys where !dataFiles.contains(f.path) {
                // of three or more, kustomize keeps only the last
                let sameKey = f.duplicateKeys.filter { $0.key == d.key && $0.firstKey == d.firstKey && $0.firstLine == d.firstLine }
                let last = sameKey.last.map { $0.span.start.line } ?? d.span.start.line
                let message = d.key != d.firstKey
                    ? "key '\(d.key)' is the key '\(d.firstKey)' (line \(d.firstLine)) once Go reads the YAML: kubectl, Helm and Flux's controllers keep one of the two values and drop the other without a word"
                    : !isKustomization
                    ? "duplicate key '\(d.key)' (first at line \(d.firstLine)): YAML keys must be unique, and kubectl and kustomize reject the file"
                    : last != d.span.start.line
                    ? "duplicate key '\(d.key)' (first at line \(d.firstLine)): kustomize reads a kustomization leniently and keeps only the last '\(d.key)' (line \(last)), so this one is dropped without a word"
                    : sameKey.count > 1
                    ? "duplicate key '\(d.key)' (first at line \(d.firstLine)): kustomize reads a kustomization leniently and keeps this one, so the \(sameKey.count) earlier '\(d.key)' are dropped without a word"
                    : "duplicate key '\(d.key)' (first at line \(d.firstLine)): kustomize reads a kustomization leniently and keeps this one, so the first '\(d.key)' is dropped without a word"
                out.append(c.finding(message, path: f.path, span: d.span))
            }
            for r in f.goRefusals where !dataFiles.contains(f.path) {
                out.append(c.finding(r.message, path: f.path, span: r.span))
            }
            // Helm reads a chart's own files with go-yaml, which takes the later merge; kustomize reads the rest
            if !f.duplicateMergeKeys.isEmpty, !dataFiles.contains(f.path) {
                let dirs = charts ?? Model.chartDirectories(c.model.files.map(\.path))
                charts = dirs
                for d in f.duplicateMergeKeys where !dirs.contains(where: { f.path.hasPrefix($0) }) {
                    out.append(c.finding("a second merge key '<<' in one mapping (first at line \(d.firstLine)): kustomize, which Flux's kustomize-controller runs, refuses the file; merge a list instead, `<<: [*a, *b]`",
                                         path: f.path, span: d.span))
                }
            }
        }
        return out
    }
}
