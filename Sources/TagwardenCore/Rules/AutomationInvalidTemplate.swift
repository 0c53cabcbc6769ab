extension Rule {
    static let automationInvalidTemplate = Rule("automation-invalid-template") { m in
        var out: [Finding] = []
        for a in m.flux.automations where !m.flux.patchObjects.contains(a.object) {
            guard let t = a.spec.messageTemplate else { continue }
            switch GoTemplate.parse(t.value) {
            case .failure(let e):
                // a multi-line template says where in the file, not where in the string
                let at = SourceText.position(inValue: t.value, offset: e.offset, span: t.span, bytes: m.files[m.objects[a.object].file].bytes)
                    .map { "line \($0.line), column \($0.column)" } ?? "at byte \(e.offset) of the template"
                out.append(m.finding("automation-invalid-template",
                                     "messageTemplate does not parse as a Go template: \(e.message) (\(at)); Flux cannot commit",
                                     object: a.object, span: t.span))
            case .success(let fields):
                if fields.contains(where: { $0.path.first == "Updated" }) {
                    out.append(m.finding("automation-invalid-template",
                                         "messageTemplate uses .Updated, which Flux 2.7 removed (the automation stalls with RemovedTemplateField): use .Changed",
                                         object: a.object, span: t.span))
                }
                if fields.contains(where: { $0.path.starts(with: ["Changed", "ImageResult"]) }) {
                    out.append(m.finding("automation-invalid-template",
                                         "messageTemplate uses .Changed.ImageResult, which Flux 2.7 removed: use .Changed.FileChanges or .Changed.Objects",
                                         object: a.object, span: t.span))
                }
            }
        }
        return out
    }
}
