extension Rule {
    static let apiRemoved = Rule("api-removed") { m in
        m.objects.indices.compactMap { i in
            guard m.objects[i].group == "image.toolkit.fluxcd.io" else { return nil }
            let o = m.objects[i]
            guard ["ImageRepository", "ImagePolicy", "ImageUpdateAutomation"].contains(o.kind) else { return nil }
            guard Model.basename(o.apiVersion) != "v1" else { return nil }
            return m.finding("api-removed",
                             "\(o.apiVersion) \(o.kind) is no longer served: Flux 2.9 serves only image.toolkit.fluxcd.io/v1 (v1beta1 went in 2.7, v1beta2 in 2.9)",
                             object: i, span: o.apiVersionSpan)
        }
    }
}
