extension Rule {
    static let objectDuplicate = Rule("object-duplicate") { m in
        struct Key: Hashable { let kind: String, group: String, namespace: String?, name: String, environment: String? }
        var first: [Key: Int] = [:]
        var out: [Finding] = []
        first.reserveCapacity(m.objects.count)
        for i in m.objects.indices where !m.objects[i].isKustomization && !m.flux.patchObjects.contains(i) {
            guard let name = m.objects[i].name, m.objects[i].kind != "List" else { continue }
            let key = Key(kind: m.objects[i].kind, group: m.objects[i].group, namespace: m.objectNamespace[i], name: name,
                          environment: m.objectEnvironment[i])
            if let j = first[key] {
                out.append(m.finding("object-duplicate",
                                     "\(key.kind) \(m.objectNamespace[i].map { $0 + "/" } ?? "")\(name) is also defined in \(m.path(m.objects[j].file)):\(m.objects[j].kindSpan.start.line); one silently replaces the other",
                                     object: i))
            } else {
                first[key] = i
            }
        }
        return out
    }
}
