extension Rule {
    static let objectDuplicate = Rule("object-duplicate") { m in
        struct Key: Hashable { let kind: String, group: String, namespace: String?, name: String, environment: String? }
        var first: [Key: Int] = [:]
        var out: [Finding] = []
        for (i, o) in m.objects.enumerated() where !o.isKustomization && !m.flux.patchObjects.contains(i) {
            guard let name = o.name, o.kind != "List" else { continue }
            let key = Key(kind: o.kind, group: o.group, namespace: m.objectNamespace[i], name: name, environment: m.objectEnvironment[i])
            if let j = first[key] {
                let other = m.objects[j]
                out.append(m.finding("object-duplicate",
                                     "\(o.kind) \(m.objectNamespace[i].map { $0 + "/" } ?? "")\(name) is also defined in \(m.path(other.file)):\(other.kindSpan.start.line); one silently replaces the other",
                                     object: i))
            } else {
                first[key] = i
            }
        }
        return out
    }
}
