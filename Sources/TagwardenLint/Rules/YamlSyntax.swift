import TagwardenBasics
import TagwardenYAML
import TagwardenModel

extension Rule {
    static let yamlSyntax = Rule("yaml-syntax", scope: .updatePaths) { c in
        var out: [Finding] = []
        var charts: [String]?
        var data: Set<String>?
        let files = c.model.files
        // (file-skipped says which a chart's template files are)
        let chartTemplates = Set(c.model.chartTemplateFiles().values.joined())
        // a file is copied out only when it has something to report
        for i in files.indices where files[i].syntaxError != nil || !files[i].duplicateKeys.isEmpty || !files[i].goRefusals.isEmpty
                                    || !files[i].duplicateMergeKeys.isEmpty || !files[i].tabbedComments.isEmpty {
            guard !chartTemplates.contains(i) else { continue }
            let f = files[i]
            // a file no cluster here applies with a template expression on or before its failing line is a template some
            // tool renders (an Ansible role's, helmfile's own file: PaulJequann/the-lab, JefeDavis/k8s-HomeOps): what it
            // applies is the rendering, not this file (a parse error may stand lines after the expression that caused it);
            // one that holds the marker token is read by Flux's image automation as it is
            // (GitHub Actions' `${{ … }}` is read after the YAML: no template)
            let templateAt = c.model.clusters.of(i).isEmpty && !f.holdsMarkerToken
                ? (SourceText.occurrences(of: "{{", in: f.bytes).filter { $0 == 0 || f.bytes[$0 - 1] != UInt8(ascii: "$") }
                   + SourceText.occurrences(of: "{%", in: f.bytes)).min() : nil
            func renderedFirst(_ finding: inout Finding, line: Int) {
                guard let templateAt, let range = SourceText.lineRange(f.bytes, line: line), templateAt < range.upperBound else { return }
                finding.message += " (a template expression stands on or before this line: the file is taken to be a template that a "
                    + "tool renders before anything reads it as YAML)"
                finding.ruleSeverity = .note
            }
            // a generator's data file is copied into its ConfigMap as bytes: kustomize does not read its keys or what Go's
            // YAML refuses, and what reads them there (Helm, an application) is not known here
            let dataFiles = data ?? c.model.generatorDataFiles
            data = dataFiles
            if let e = f.syntaxError {
                var end = e.position
                end.column += 1
                end.offset = min(end.offset + 1, f.bytes.count)
                var finding = c.finding("YAML syntax error: \(e.message)", path: f.path, span: SourceSpan(start: e.position, end: end), subject: e.message)
                // (ricsanfre/pi-cluster's `[vault.${CLUSTER_DOMAIN}:8200]`, YAML once Flux substitutes the ConfigMap)
                if dataFiles.contains(f.path), SourceText.contains("${", in: f.bytes[...]) {
                    finding.assume("assuming no Flux post-build substitution makes it YAML: it is a generator's data file that holds ${…}, "
                                   + "which a Flux Kustomization building its ConfigMap may substitute before the file is read")
                }
                renderedFirst(&finding, line: e.position.line)
                out.append(finding)
            }
            // Helm reads a chart's values files with sigs.k8s.io/yaml, leniently, and its other files (which its templates
            // read through `.Files`) not at all: those are data, as a generator's are
            let dirs = charts ?? Model.chartDirectories(c.model.files.map(\.path))
            charts = dirs
            let chartRole = (f.duplicateKeys.isEmpty && f.goRefusals.isEmpty && f.tabbedComments.isEmpty) ? nil
                : Rule.chartRole(of: f.path, charts: dirs, model: c.model)
            if chartRole == .data { continue }
            for t in f.tabbedComments {
                out.append(tabbedComment(t, inChart: Model.chartHolding(f.path, charts: dirs) != nil, c: c, path: f.path))
            }
            // kustomize reads a kustomization file leniently, and Helm a chart's values: the last of two keys wins
            let isKustomization = Extractor.isKustomizationPath(f.path)
            for d in f.duplicateKeys where !dataFiles.contains(f.path) {
                // (an object's own annotations too: kubectl kustomize of one with a repeated annotation keeps the last, as
                // pesuga/homelab's Ingress loses its first middleware; a repeated label is refused)
                let reader = isKustomization ? "kustomize reads a kustomization" : chartRole == .values ? "Helm reads a chart's values"
                    : d.inAnnotations ? "kustomize, through which Flux applies every manifest, reads an object's annotations" : nil
                // of three or more, kustomize keeps only the last
                let sameKey = f.duplicateKeys.filter { $0.key == d.key && $0.firstKey == d.firstKey && $0.firstLine == d.firstLine }
                let last = sameKey.last.map { $0.span.start.line } ?? d.span.start.line
                // `annotations:` itself twice: kubectl kustomize builds the object with both maps merged, of a key both
                // give the first's value (krangence/hacksm-v1's CRD); a map of labels twice it refuses
                let merged = d.mergesAnnotations && d.key == d.firstKey
                let message = merged
                    ? "duplicate key 'annotations' (first at line \(d.firstLine)): kustomize, through which Flux applies every manifest, "
                        + "merges the two maps of annotations, keeping the first's value of a key both give"
                    : d.key != d.firstKey
                    ? "key '\(d.key)' is the key '\(d.firstKey)' (line \(d.firstLine)) once Go reads the YAML: kubectl, Helm and Flux's controllers keep one of the two values and drop the other without a word"
                    : reader == nil
                    ? "duplicate key '\(d.key)' (first at line \(d.firstLine)): YAML keys must be unique, and kubectl and kustomize reject the file"
                    : last != d.span.start.line
                    ? "duplicate key '\(d.key)' (first at line \(d.firstLine)): \(reader!) leniently and keeps only the last '\(d.key)' (line \(last)), so this one is dropped without a word"
                    : sameKey.count > 1
                    ? "duplicate key '\(d.key)' (first at line \(d.firstLine)): \(reader!) leniently and keeps this one, so the \(sameKey.count) earlier '\(d.key)' are dropped without a word"
                    : "duplicate key '\(d.key)' (first at line \(d.firstLine)): \(reader!) leniently and keeps this one, so the first '\(d.key)' is dropped without a word"
                var finding = c.finding(message, path: f.path, span: d.span)
                if merged { finding.ruleSeverity = .warning }
                out.append(finding)
            }
            for r in f.goRefusals where !dataFiles.contains(f.path) {
                var finding = c.finding(r.message, path: f.path, span: r.span)
                renderedFirst(&finding, line: r.span.start.line)
                out.append(finding)
            }
            // Helm reads a chart's own files with go-yaml, which takes the later merge; kustomize reads the rest
            if !f.duplicateMergeKeys.isEmpty, !dataFiles.contains(f.path) {
                for d in f.duplicateMergeKeys where !dirs.contains(where: { f.path.hasPrefix($0) }) {
                    out.append(c.finding("a second merge key '<<' in one mapping (first at line \(d.firstLine)): kustomize, which Flux's kustomize-controller runs, refuses the file; merge a list instead, `<<: [*a, *b]`",
                                         path: f.path, span: d.span))
                }
            }
        }
        return out
    }

    /// A comment line indented with a tab that continues a comment block: go-yaml v3 reads it (kustomize, Flux's image
    /// automation), go-yaml v2 refuses it (Helm, for a chart's values and the files it parses; `kubectl apply -f`).
    private static func tabbedComment(_ span: SourceSpan, inChart: Bool, c: RuleContext, path: String) -> Finding {
        let line = span.start.line
        guard !inChart else {
            return c.finding("line \(line), in a block of comments, is indented with a tab: Helm reads a chart's files with go-yaml v2 (sigs.k8s.io/yaml), "
                             + "which refuses the file (go-yaml v3, kustomize's, reads the line as part of the block); indent with spaces",
                             path: path, span: span)
        }
        var finding = c.finding("line \(line), in a block of comments, is indented with a tab: kustomize and Flux's image automation (go-yaml v3) read it as "
                                + "part of the block, but libyaml and go-yaml v2 (Helm, `kubectl apply -f`) refuse the file; "
                                + "indent with spaces", path: path, span: span)
        finding.ruleSeverity = .note
        return finding
    }

    enum ChartRole { case values, data }

    /// What Helm makes of a file of a chart in this repository (the nearest directory above it with a `Chart.yaml`): a
    /// values file (`values*.yaml` beside `Chart.yaml`, or one a HelmRelease's `chart.spec.valuesFiles` names), which it
    /// reads with sigs.k8s.io/yaml; a file its templates may read through `.Files`, which it never parses; nil for what
    /// it parses as manifests or its own metadata (`Chart.yaml`, `crds/`) and for a file of no chart.
    static func chartRole(of path: String, charts: [String], model m: Model) -> ChartRole? {
        guard let c = Model.chartHolding(path, charts: charts) else { return nil }
        let listed = m.objects.contains { o in
            guard case .helmRelease(let spec)? = o.flux else { return false }
            return spec.valuesFiles.contains { Model.normalizePath($0.value) == path }
        }
        let inside = path.dropFirst(charts[c].count)
        if listed || (!inside.contains("/") && Path.basename(path).hasPrefix("values")) { return .values }
        return Model.isChartDataFile(path, chart: charts[c]) && m.includedBy[path] == nil ? .data : nil
    }
}
