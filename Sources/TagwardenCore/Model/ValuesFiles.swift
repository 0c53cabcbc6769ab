/// HelmRelease values kept in files of their own: a kustomization's `configMapGenerator` makes the ConfigMap that a
/// HelmRelease's `valuesFrom` names out of them (a common layout: one base release, one values file per cluster).
/// Their images are read as the release's `spec.values` are; a release without an environment of its own takes the
/// generating kustomization's.
enum ValuesFiles {
    static func images(objects: [ManifestObject], namespaces: [String?], environments: [String?], files: [FileFacts]) -> [ImageUse] {
        let releases = objects.indices.filter { if case .helmRelease? = objects[$0].flux { return true } else { return false } }
        guard !releases.isEmpty else { return [] }
        // the ConfigMaps the kustomizations generate, by namespace and name (a generated ConfigMap lands in the
        // generator's namespace, else the kustomization's)
        var generated: [String: [(kustomization: Int, generator: ManifestObject.ConfigMapGenerator)]] = [:]
        for k in objects.indices {
            for g in objects[k].configMapGenerators {
                generated[(g.namespace ?? objects[k].kustomizeNamespace ?? namespaces[k] ?? "") + "/" + g.name, default: []].append((k, g))
            }
        }
        guard !generated.isEmpty else { return [] }
        let built = BuildSets(objects: objects, files: files)
        var builds: [Int: Set<Int>] = [:]   // generating kustomization → the files its build takes
        var out: [ImageUse] = []
        var seen = Set<String>()
        for r in releases {
            guard case .helmRelease(let spec)? = objects[r].flux else { continue }
            for ref in spec.valuesFrom where ref.kind == "ConfigMap" {
                for (k, g) in generated[(namespaces[r] ?? "") + "/" + ref.name] ?? [] {
                    // the kustomization that generates it builds the release
                    let dir = Model.dirname(files[objects[k].file].path)
                    if builds[k] == nil { builds[k] = built.files(under: dir) }
                    guard builds[k]!.contains(objects[r].file) else { continue }
                    for entry in g.files where entry.key == ref.valuesKey {
                        guard let p = Model.normalizePath(Sources.join(dir, entry.path)), let f = built.fileAt[p],
                              files[f].syntaxError == nil, seen.insert("\(f) \(k)").inserted else { continue }
                        out += read(file: f, files: files, release: r, generator: k)
                    }
                }
            }
        }
        return out
    }

    /// The images of one values file, as the release's.
    private static func read(file f: Int, files: [FileFacts], release: Int, generator: Int) -> [ImageUse] {
        let y = YAMLFile(parsing: files[f].bytes)
        guard y.error == nil else { return [] }
        var ex = Extractor(y: y, fileIndex: f, facts: FileFacts(path: files[f].path, bytes: []))
        for doc in y.documents where y.nodes[doc.root].kind == .mapping {
            ex.helmValues(doc.root, object: release, depth: 0)
        }
        for img in ex.facts.images { img.environmentObject = generator }
        return ex.facts.images
    }
}
