import TagwardenBasics
import TagwardenYAML
import TagwardenModel

extension Rule {
    static let fileSkipped = Rule("file-skipped", scope: .everyFile) { c in
        let origin = SourcePosition(offset: 0, line: 1, column: 1)
        var out = c.model.skipped.map { s in
            var f = c.finding("skipped: \(s.reason)", path: s.path, span: SourceSpan(start: origin, end: origin), subject: s.reason)
            // a file that cannot be read is an error, one passed over on purpose a note
            if s.severity != .note { f.ruleSeverity = s.severity }
            return f
        }
        // a chart's template files, which its templates read through `.Files`: not YAML, and Helm never asks them to be
        for (chart, found) in c.model.chartTemplateFiles().sorted(by: { $0.key < $1.key }) {
            let n = found.count
            let reason = "the chart's other files with Go template text that do not parse as YAML (\(n) file\(n == 1 ? "" : "s") under "
                + "\(chart.isEmpty ? "./" : chart)) are templates its own templates read through .Files, which Helm never parses: not linted"
            out.append(c.finding("skipped: \(reason)", path: chart + "Chart.yaml", span: SourceSpan(start: origin, end: origin), subject: reason))
        }
        // a kustomization file's later documents, which kustomize never decodes
        for i in c.model.files.indices {
            guard let start = c.model.files[i].kustomizationIgnoredFrom else { continue }
            var f = c.finding("skipped: the documents of this kustomization file after the first (from line \(start.line)) are not read: kustomize "
                                + "decodes only a kustomization file's first document, and so do Flux and kubectl apply -k; move them to files "
                                + "its resources or patches name", file: i, span: SourceSpan(start: start, end: start), object: nil, environment: nil)
            f.ruleSeverity = .warning
            out.append(f)
        }
        // what a kustomization takes from elsewhere (a URL, a git repository): not read, so what it deploys is not judged
        // (its entries asked where they are: the file's facts are not copied)
        for i in c.model.files.indices where !c.model.files[i].resourceEntries.isEmpty {
            for r in c.model.files[i].resourceEntries where Extractor.isRemote(r.value) {
                out.append(c.finding("skipped: the remote resource '\(r.value)' is fetched by kustomize when it builds, not by Tagwarden: "
                                        + "what it deploys is not judged (nor whether this build's images: entries match it)", file: i, span: r.span, object: nil,
                                     environment: nil))
            }
        }
        return out
    }
}
