extension Rule {
    static let objectDuplicate = Rule("object-duplicate") { m in
        struct Key: Hashable { let kind: String, group: String, namespace: String?, name: String, scope: String? }
        var out: [Finding] = []
        // resources with a name that is theirs as written (a name or namespace with `${…}` is another per build)
        func candidate(_ i: Int) -> String? {
            let o = m.objects[i]
            guard !o.isKustomization, !m.flux.nonResources.contains(i), o.kind != "List", let name = o.name,
                  !name.containsBytes("${"), !(m.objectNamespace[i]?.containsBytes("${") ?? false) else { return nil }
            return name
        }
        func report(_ i: Int, _ j: Int, cluster: String?) {
            let a = m.objects[i], b = m.objects[j]
            let identity = "\(a.kind) \(m.objectNamespace[i].map { $0 + "/" } ?? "")\(a.name ?? "")"
            let there = "\(m.path(b.file)):\(b.kindSpan.start.line)"
            let inCluster = cluster.map { " applied to cluster \($0)" } ?? ""
            if m.files[a.file].bytes[a.byteRange] == m.files[b.file].bytes[b.byteRange] {
                var f = m.finding("object-duplicate", "\(identity) is also defined, identically, in \(there)\(inCluster): one of the two copies is redundant",
                                  object: i)
                f.ruleSeverity = .note
                out.append(f)
            } else {
                out.append(m.finding("object-duplicate", "\(identity) is also defined in \(there)\(inCluster), differently: one silently replaces the other",
                                     object: i))
            }
        }
        if m.clusters.clusters.isEmpty {
            // no cluster is described here: objects of one environment are taken to meet in one cluster
            var first: [Key: Int] = [:]
            for i in m.objects.indices {
                guard let name = candidate(i) else { continue }
                let o = m.objects[i]
                let key = Key(kind: o.kind, group: o.group, namespace: m.objectNamespace[i], name: name, scope: m.objectEnvironment[i])
                if let j = first[key] { report(i, j, cluster: nil) } else { first[key] = i }
            }
            return out
        }
        // a cluster applies both: the same chain of builds from its root Flux Kustomizations
        var objectsOfFile: [Int: [Int]] = [:]
        for i in m.objects.indices where candidate(i) != nil { objectsOfFile[m.objects[i].file, default: []].append(i) }
        var reported = Set<Int>()
        for c in m.clusters.clusters {
            var first: [Key: Int] = [:]
            for f in c.files {
                for i in objectsOfFile[f] ?? [] {
                    let o = m.objects[i]
                    let key = Key(kind: o.kind, group: o.group, namespace: m.objectNamespace[i], name: o.name!, scope: nil)
                    guard let j = first[key] else { first[key] = i; continue }
                    // files in path order: the later of the two is reported, once whichever clusters apply both
                    if reported.insert(i).inserted { report(i, j, cluster: m.clusters.clusters.count > 1 ? (c.name.isEmpty ? "." : c.name) : nil) }
                }
            }
        }
        return out
    }
}
