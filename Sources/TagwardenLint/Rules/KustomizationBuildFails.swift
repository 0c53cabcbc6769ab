import TagwardenBasics
import TagwardenModel
extension Rule {
    /// A kustomization kustomize refuses: every build of its directory fails, so what builds it deploys nothing.
    static let kustomizationBuildFails = Rule("kustomization-build-fails") { c in
        let m = c.model
        var out: [Finding] = []
        for f in m.files.indices {
            guard let field = m.files[f].kustomizationUnknownFields.first else { continue }
            let builders = (m.clusters.kustomizationsOfFile[f] ?? []).map { k in
                "Flux Kustomization \(m.objectNamespace[k].map { $0 + "/" } ?? "")\(m.objects[k].name ?? "") (\(m.path(m.objects[k].file)))"
            }
            let what = builders.isEmpty ? "so nothing that builds \(Path.dirname(m.path(f)).isEmpty ? "." : Path.dirname(m.path(f))) deploys anything"
                : "so \(builders.prefix(3).joined(separator: ", "))\(builders.count > 3 ? " and \(builders.count - 3) more" : "") "
                    + (builders.count == 1 ? "deploys" : "deploy") + " nothing"
            // a Flux Kustomization's spec written into a kustomize file
            let hint = field.value == "spec" ? "; a Flux Kustomization (kustomize.toolkit.fluxcd.io) belongs in a file of its own, "
                + "which this kustomization lists in resources" : ""
            out.append(c.finding("kustomize refuses this kustomization (invalid Kustomization: json: unknown field \"\(field.value)\"), "
                                    + "\(what)\(hint)", file: f, span: field.span, object: nil, environment: nil))
        }
        return out
    }
}
