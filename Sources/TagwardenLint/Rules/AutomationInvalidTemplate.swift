import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let automationInvalidTemplate = Rule("automation-invalid-template") { c in
        let m = c.model
        var out: [Finding] = []
        var parsed: [String: Result<[GoTemplate.Field], GoTemplate.ParseError>] = [:]   // a fleet's automations share a few templates
        for a in m.flux.automations where !m.flux.nonResources.contains(a.object) {
            guard let t = a.spec.messageTemplate else { continue }
            // a multi-line template says where in the file, not where in the string
            func place(_ offset: Int) -> String? {
                SourceText.position(inValue: t.value, offset: offset, span: t.span, bytes: m.files[t.file ?? m.objects[a.object].file].bytes)
                    .map { "line \($0.line), column \($0.column)" }
            }
            if parsed[t.value] == nil { parsed[t.value] = GoTemplate.parse(t.value) }
            switch parsed[t.value]! {
            case .failure(let e):
                let at = place(e.offset) ?? "at byte \(e.offset) of the template"
                out.append(c.finding("messageTemplate does not parse as a Go template: \(e.message) (\(at)); Flux cannot commit",
                                     object: a.object, at: t))
            case .success(let fields):
                // the commit data of each Flux that runs the automation (the oldest of each data model first)
                var seen = Set<FluxVersion>()
                let fluxRuns = m.fluxRuns(ofFile: m.objects[a.object].file).sorted { $0.version < $1.version }
                    .filter { seen.insert(Rule.templateData($0.version)).inserted }
                var reported = false
                for run in fluxRuns where !reported {
                    // the Flux it runs, where the repository says which (an unknown one is current Flux, as the header says)
                    let runs = run.origin.map { _ in " (it runs on \(m.describe(run)))" } ?? ""
                    // components installed here without image-automation-controller do not say which one runs the automation
                    // (TalhaJuikar/homelab's, whose api-removed warning assumes none is)
                    let apart = run.cluster.flatMap { c -> String? in
                        let cluster = m.clusters.clusters[c]
                        guard cluster.definesFluxKinds, cluster.servedImageAPIs["ImageUpdateAutomation"] == nil else { return nil }
                        return "assuming image-automation-controller, which the Flux components of cluster \(cluster.displayName) do not "
                            + "include, is installed apart from them at Flux \(run.version.release)"
                    }
                    if let (field, known) = unknownField(fields, flux: run.version) {
                        let at = place(field.offset).map { " (\($0))" } ?? ""
                        // a field of no Flux's commit data, or one this Flux lacks
                        let everywhere = [FluxVersion(2, 6), FluxVersion.current].allSatisfy { unknownField(fields, flux: $0)?.0.offset == field.offset }
                        let whose = everywhere ? "Flux's commit data" : "the commit data of Flux \(run.version)"
                        var finding = c.finding("messageTemplate reads .\(field.path.joined(separator: "."))\(at), which \(whose) does not have, "
                                                + "so Flux fails to commit: \(known)\(everywhere ? "" : runs)",
                                             object: a.object, at: t)
                        if !everywhere, let premise = apart ?? m.fluxAssumption(run, holdsFrom: nil) { finding.assume(premise) }
                        out.append(finding)
                        reported = true
                    }
                    // `.Updated` and `.Changed.ImageResult`: removed in 2.7 (the automation stalls with RemovedTemplateField);
                    // on 2.3 to 2.6, where `.Changed` replaces them, what the upgrade breaks (a warning, a note further ahead)
                    guard run.version.release >= FluxVersion(2, 3) else { continue }
                    let removed = run.version.release >= FluxVersion(2, 7)
                    for (f, name, instead) in Rule.removedTemplateFields(fields) {
                        let at = place(f.offset).map { " (\($0))" } ?? ""
                        var finding = c.finding(removed ? "messageTemplate uses \(name)\(at), which Flux 2.7 removed (the automation stalls with "
                                                            + "RemovedTemplateField)\(runs): use \(instead)"
                                                        : "messageTemplate uses \(name)\(at), which Flux 2.7 removes (the automation then stalls with "
                                                            + "RemovedTemplateField)\(runs): use \(instead), which it serves",
                                                object: a.object, at: t)
                        if !removed { finding.ruleSeverity = run.version.release.minorsUntil(FluxVersion(2, 7)) >= 2 ? .note : .warning }
                        if let apart { finding.assume(apart) }
                        else if removed, let premise = m.fluxAssumption(run, holdsFrom: FluxVersion(2, 7)) { finding.assume(premise) }
                        out.append(finding)
                        reported = true
                    }
                }
            }
        }
        return out
    }

    /// The first read of each field Flux 2.7 removed, with what replaces it.
    static func removedTemplateFields(_ fields: [GoTemplate.Field]) -> [(GoTemplate.Field, String, String)] {
        [fields.first { $0.path.first == "Updated" }.map { ($0, ".Updated", ".Changed") },
         fields.first { $0.path.starts(with: ["Changed", "ImageResult"]) }.map { ($0, ".Changed.ImageResult", ".Changed.FileChanges or .Changed.Objects") }]
            .compactMap { $0 }
    }

    /// The first Flux release of the commit-data model that `flux` has: 2.2 and before, 2.3–2.4, 2.5–2.6, 2.7 and
    /// later.
    static func templateData(_ flux: FluxVersion) -> FluxVersion {
        [FluxVersion(2, 7), FluxVersion(2, 5), FluxVersion(2, 3)].first { flux.release >= $0 } ?? FluxVersion(0, 0)
    }

    /// Fields of the commit-message data of `flux`: the first read that names a field it lacks, with what it has. `.Updated` and `.Changed.ImageResult`, which Flux 2.7 removed, are reported on their own.
    static func unknownField(_ fields: [GoTemplate.Field], flux: FluxVersion) -> (GoTemplate.Field, String)? {
        let v = flux.release
        let before27 = v < FluxVersion(2, 7)
        var roots = ["AutomationObject"]
        if v >= FluxVersion(2, 3) { roots.append("Changed") }
        if v >= FluxVersion(2, 5) { roots.append("Values") }
        if before27 { roots.append("Updated") }
        let members: [String: [String]] = [
            "AutomationObject": ["Name", "Namespace", "String"],
            "Changed": ["Changes", "FileChanges", "Objects"] + (before27 ? ["ImageResult"] : []),
            "Updated": ["Files", "Images", "Objects"],
        ]
        func hint(_ name: String, _ known: [String], _ prefix: String) -> String {
            Suggest.nearest(name, in: known).map { "did you mean \(prefix)\($0)?" }
                ?? "it has " + known.map { prefix + $0 }.joined(separator: ", ")
        }
        for f in fields {
            guard let root = f.path.first else { continue }
            // removed in 2.7: reported on their own
            if !before27, root == "Updated" || (root == "Changed" && f.path.dropFirst().first == "ImageResult") { continue }
            if !roots.contains(root) {
                return (f, hint(root, roots, "."))
            }
            if f.path.count >= 2, let known = members[root], !known.contains(f.path[1]) {
                return (f, hint(f.path[1], known, ".\(root)."))
            }
        }
        return nil
    }
}
