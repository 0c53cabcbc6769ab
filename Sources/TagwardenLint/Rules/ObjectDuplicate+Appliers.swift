import TagwardenBasics
import TagwardenModel

/// object-duplicate's other half: one written object that several Flux Kustomizations of one cluster build and apply,
/// as one object (one namespace, or none, and one name) (artazar/flux2-general's base, whose dev, stg and prod overlays all set
/// `namespace: demoapp-auth-dev`; two Kustomizations of one path; a Kustomization whose `path` holds another's, whose
/// build Flux generates from every file below). kustomize-controller applies every Kustomization's objects with one
/// field manager, so each reconciliation takes the object over from the others (fluxcd/kustomize-controller#1724,
/// fluxcd/flux2#5611). One finding for each cluster and set of Kustomizations, at the first of their objects; where one
/// of two holds the other's path, one for it, at its `path`.
struct SharedAppliers {
    let m: Model
    let c: RuleContext
    /// The object's one name in every build (`BuiltNames`), nil where it is not judged.
    let name: (ObjectID) -> String?
    /// Whether every build that takes the object is one kustomize refuses.
    let onlyInRefusedBuilds: (ObjectID) -> Bool
    let transformers: Rule.Transformers

    struct Appliers: Hashable { let cluster: ClusterID, kustomizations: [ObjectID] }
    /// A Kustomization that holds the other's path below its own: its build takes the other's files.
    struct Overlap: Hashable { let cluster: ClusterID, outer: ObjectID }
    /// The SOPS-encrypted Secrets that Flux Kustomizations build, and those Kustomizations of them without decryption,
    /// which apply nothing: kustomize-controller refuses their whole build.
    struct Encryption { var secrets = Set<ObjectID>(), refusing = Set<ObjectID>() }

    func findings() -> [Finding] {
        var shared: [Appliers: [ObjectID]] = [:], order: [Appliers] = []
        var encryption: Encryption?
        for i in m.objects.indices {
            guard let key = appliers(i, encryption: &encryption) else { continue }
            if shared[key] == nil { order.append(key) }
            shared[key, default: []].append(i)
        }
        var nested: [Overlap: [Appliers]] = [:], reports: [(key: Appliers, overlap: Overlap?)] = []
        for key in order {
            guard let k = outer(key) else { reports.append((key, nil)); continue }
            let overlap = Overlap(cluster: key.cluster, outer: k)
            if nested[overlap] == nil { reports.append((key, overlap)) }
            nested[overlap, default: []].append(key)
        }
        return reports.map { key, overlap in
            let keys = overlap.map { nested[$0]! } ?? [key]
            var f = overlap.map { finding(overlap: $0, keys: keys, shared: shared) } ?? finding(key, objects: shared[key]!)
            let files = Set(keys.flatMap { shared[$0]!.map { m.objects[$0].file } }).sorted()
            if let t = files.lazy.compactMap({ transformers.above($0) }).first {
                f.assume("assuming the transformers of \(t.kustomization) (\(t.config)), which may delete, rename or patch objects, leave them as written")
            }
            for k in Set(keys.flatMap(\.kustomizations)).sorted() {
                if let premise = m.objects[k].fluxKustomization?.revisionPremise { f.assume("Flux Kustomization \(m.qualifiedName(k)) \(premise)") }
            }
            return f
        }
    }

    /// The cluster and Flux Kustomizations that each apply object `i` as written, when two or more do.
    func appliers(_ i: ObjectID, encryption: inout Encryption?) -> Appliers? {
        let o = m.objects[i]
        guard let ks = m.clusters.kustomizationsOfFile[o.file], ks.count > 1, o.group != FluxAPIs.group,
              m.objectNamespace[i] != nil || m.isOfClusterScopedKind(i), name(i) != nil, !m.renamedByPatch(i), !onlyInRefusedBuilds(i) else { return nil }
        if encryption == nil { encryption = encrypted() }
        let encryption = encryption!
        // (a Kustomization without decryption refuses its whole build for a SOPS-encrypted Secret: not this)
        guard !encryption.secrets.contains(i) else { return nil }
        let passing = m.directoriesPassingOn(i)
        // those that build it as written, each Kustomization once by its name
        var applying: [ObjectID] = [], seen = Set<String>()
        for k in ks {
            guard let spec = m.objects[k].fluxKustomization, !spec.suspended, spec.components.isEmpty,
                  let path = spec.path.flatMap(Model.normalizePath), passing.contains(path), !encryption.refusing.contains(k),
                  seen.insert(m.qualifiedName(k)).inserted else { continue }
            applying.append(k)
        }
        guard applying.count > 1 else { return nil }
        for cluster in m.clusters.of(o.file) {
            let mine = applying.filter(m.clusters.clusters[cluster].kustomizations.contains)
            // of one cluster: the same kubeConfig, and Flux's own name affixes alike
            guard let first = mine.first.flatMap({ m.objects[$0].fluxKustomization }) else { continue }
            let same = mine.filter { k in
                let spec = m.objects[k].fluxKustomization!
                return spec.kubeConfig?.name == first.kubeConfig?.name && spec.namePrefix == first.namePrefix && spec.nameSuffix == first.nameSuffix
            }
            if same.count > 1 { return Appliers(cluster: cluster, kustomizations: same.sorted()) }
        }
        return nil
    }

    /// The SOPS-encrypted Secrets that Flux Kustomizations build (each read once), and the Kustomizations among those
    /// without decryption.
    func encrypted() -> Encryption {
        var out = Encryption()
        for i in m.objects.indices where m.objects[i].kind == "Secret" {
            guard let ks = m.clusters.kustomizationsOfFile[m.objects[i].file], m.isSOPSEncryptedSecret(i) else { continue }
            out.secrets.insert(i)
            for k in ks where m.objects[k].fluxKustomization?.decrypts == false { out.refusing.insert(k) }
        }
        return out
    }

    func path(_ k: ObjectID) -> String { m.objects[k].fluxKustomization!.path.flatMap(Model.normalizePath)! }

    /// Of two Kustomizations, the one whose path holds the other's below it.
    func outer(_ key: Appliers) -> ObjectID? {
        guard key.kustomizations.count == 2 else { return nil }
        let (a, b) = (key.kustomizations[0], key.kustomizations[1])
        return path(a) == path(b) ? nil : FluxIndex.holds(path(a), path(b)) ? a : FluxIndex.holds(path(b), path(a)) ? b : nil
    }

    func named(_ j: ObjectID) -> String { "\(m.objects[j].kind) \(m.objectNamespace[j].map { $0 + "/" } ?? "")\(name(j)!)" }
    func placed(_ j: ObjectID) -> String { "\(named(j)) in \(m.path(m.objects[j].file)):\(m.objects[j].kindSpan.start.line)" }

    /// `objects` named, the first (with its place unless the finding is there) and up to three more with their places.
    func listed(_ objects: [ObjectID], placingFirst: Bool) -> String {
        let first = placingFirst ? placed(objects[0]) : named(objects[0])
        guard objects.count > 1 else { return "\(first) is" }
        let others = objects.dropFirst().prefix(3).map(placed)
        let more = objects.count > 4 ? ", and \(objects.count - 4) more" : ""
        return "\(first) and \(objects.count - 1) more object\(objects.count > 2 ? "s" : "") (\(others.joined(separator: ", "))\(more)) are each"
    }

    func why(objects: Int, kustomizations: Int) -> String {
        "as one object: kustomize-controller applies every Kustomization's objects with one field manager, so at "
            + "each reconciliation one silently takes \(objects == 1 ? "it" : "them") over from the other\(kustomizations > 2 ? "s" : ""), "
            + "fields, labels and annotations"
    }

    func inCluster(_ cluster: ClusterID) -> String {
        m.clusters.clusters.count > 1 ? " of cluster \(m.clusters.clusters[cluster].displayName)" : ""
    }

    func finding(_ key: Appliers, objects: [ObjectID]) -> Finding {
        let ks = key.kustomizations.map { "\(m.qualifiedName($0)) (\(m.path(m.objects[$0].file)):\(m.objects[$0].kindSpan.start.line))" }
        return c.finding("\(listed(objects, placingFirst: false)) applied by \(ks.count) Flux Kustomizations\(inCluster(key.cluster)), \(ks.joined(separator: ", ")), "
                         + why(objects: objects.count, kustomizations: ks.count), object: objects[0])
    }

    func finding(overlap: Overlap, keys: [Appliers], shared: [Appliers: [ObjectID]]) -> Finding {
        let k = overlap.outer
        let inner = keys.map { $0.kustomizations.first { $0 != k }! }
        let objects = keys.flatMap { shared[$0]! }
        let paths = inner.prefix(3).map { "\(m.qualifiedName($0)) (./\(path($0)))" }.joined(separator: ", ")
            + (inner.count > 3 ? ", and \(inner.count - 3) more" : "")
        return c.finding("Flux Kustomization \(m.qualifiedName(k))\(inCluster(overlap.cluster)) builds ./\(path(k)), which holds the path of "
                         + "\(inner.count == 1 ? "" : "each of ")\(paths): \(listed(objects, placingFirst: true)) applied by "
                         + (inner.count == 1 ? "both, " : "it and by whichever of these holds them, ")
                         + why(objects: objects.count, kustomizations: 2), object: k, span: m.objects[k].fluxKustomization!.pathSpan)
    }
}
