extension Rule {
    static let automationInvalidTemplate = Rule("automation-invalid-template") { m in
        var out: [Finding] = []
        for a in m.flux.automations where !m.flux.patchObjects.contains(a.object) {
            guard let t = a.spec.messageTemplate else { continue }
            // a multi-line template says where in the file, not where in the string
            func place(_ offset: Int) -> String? {
                SourceText.position(inValue: t.value, offset: offset, span: t.span, bytes: m.files[m.objects[a.object].file].bytes)
                    .map { "line \($0.line), column \($0.column)" }
            }
            switch GoTemplate.parse(t.value) {
            case .failure(let e):
                let at = place(e.offset) ?? "at byte \(e.offset) of the template"
                out.append(m.finding("automation-invalid-template",
                                     "messageTemplate does not parse as a Go template: \(e.message) (\(at)); Flux cannot commit",
                                     object: a.object, span: t.span))
            case .success(let fields):
                if let (field, known) = unknownField(fields, flux: m.config.fluxVersion ?? .current) {
                    let at = place(field.offset).map { " (\($0))" } ?? ""
                    out.append(m.finding("automation-invalid-template",
                                         "messageTemplate reads .\(field.path.joined(separator: "."))\(at), which Flux's commit data does not have, "
                                            + "so Flux fails to commit: \(known)",
                                         object: a.object, span: t.span))
                }
                if let f = fields.first(where: { $0.path.first == "Updated" }) {
                    let at = place(f.offset).map { " (\($0))" } ?? ""
                    out.append(m.finding("automation-invalid-template",
                                         "messageTemplate uses .Updated\(at), which Flux 2.7 removed (the automation stalls with RemovedTemplateField): use .Changed",
                                         object: a.object, span: t.span))
                }
                if let f = fields.first(where: { $0.path.starts(with: ["Changed", "ImageResult"]) }) {
                    let at = place(f.offset).map { " (\($0))" } ?? ""
                    out.append(m.finding("automation-invalid-template",
                                         "messageTemplate uses .Changed.ImageResult\(at), which Flux 2.7 removed: use .Changed.FileChanges or .Changed.Objects",
                                         object: a.object, span: t.span))
                }
            }
        }
        return out
    }

    /// Fields of Flux's commit-message data (spec §3.4): the first read that names a field it lacks, with what it
    /// has. `.Updated` and `.Changed.ImageResult` are reported on their own.
    static func unknownField(_ fields: [GoTemplate.Field], flux: FluxVersion) -> (GoTemplate.Field, String)? {
        let legacy = flux == .legacy
        let roots = ["AutomationObject", "Changed", "Values"] + (legacy ? ["Updated"] : [])
        let members: [String: [String]] = [
            "AutomationObject": ["Name", "Namespace", "String"],
            "Changed": ["Changes", "FileChanges", "Objects"] + (legacy ? ["ImageResult"] : []),
        ]
        func hint(_ name: String, _ known: [String], _ prefix: String) -> String {
            Suggest.nearest(name, in: known).map { "did you mean \(prefix)\($0)?" }
                ?? "it has " + known.map { prefix + $0 }.joined(separator: ", ")
        }
        for f in fields {
            guard let root = f.path.first else { continue }
            if !roots.contains(root), root != "Updated" {
                return (f, hint(root, roots, "."))
            }
            if f.path.count >= 2, let known = members[root], !known.contains(f.path[1]), !(root == "Changed" && f.path[1] == "ImageResult") {
                return (f, hint(f.path[1], known, ".\(root)."))
            }
        }
        return nil
    }
}
