import TagwardenYAML

/// What comparing two objects' contents can tell.
public enum ContentComparison: Sendable {
    case same
    case different
    /// The same but for values SOPS encrypted, whose ciphertexts differ while their lengths and types agree: SOPS
    /// encrypts each value with a random IV, so equal values make different ciphertexts, and the files cannot say
    /// whether the values are equal.
    case sameButCiphertexts
}

extension Model {
    /// Whether object `i` is a Secret SOPS encrypted (SOPS's `sops` metadata at its top), which kustomize-controller
    /// decrypts, or refuses with the whole build where the Kustomization configures no decryption.
    public func isSOPSEncryptedSecret(_ i: ObjectID) -> Bool {
        let o = objects[i]
        guard o.kind == "Secret", o.group.isEmpty else { return false }
        let y = YAMLFile(parsing: Array(files[o.file].bytes[o.byteRange]))
        return y.documents.first.flatMap { y.get($0.root, "sops") } != nil
    }

    /// How the contents of objects `a` and `b` compare as the API server reads them: the same keys and values,
    /// whatever their order, comments, quoting or layout. Aliases stand for their anchors (to a bounded depth: an
    /// alias bomb is not the same as anything).
    /// `sameIdentity`: the two are one object to the cluster, as the builds name them (a kustomization's `namespace:`
    /// renames a Namespace, USA-RedDragon/home-cluster-flux): the name and namespace each writes do not count, nor the
    /// version of their group (the API server serves one object in each).
    /// Two SOPS ciphertexts (`ENC[AES256_GCM,data:…,type:…]`) differ as values only when their types or the lengths of
    /// their data do (AES-GCM keeps the plaintext's length); otherwise they may hold one value.
    /// `merging`: as server-side apply merges two appliers' copies, whose fields it keeps both of: the same where no field
    /// that both set is set differently (a field of one only does not count; lists are compared whole).
    public func compareContent(_ a: ObjectID, _ b: ObjectID, sameIdentity: Bool = false, merging: Bool = false) -> ContentComparison {
        let x = objects[a], y = objects[b]
        let left = files[x.file].bytes[x.byteRange], right = files[y.file].bytes[y.byteRange]
        if left == right { return .same }
        let l = YAMLFile(parsing: Array(left)), r = YAMLFile(parsing: Array(right))
        guard l.error == nil, r.error == nil, let lroot = l.documents.first?.root, let rroot = r.documents.first?.root else { return .different }
        var ciphertextsDiffer = false
        var budget = 100_000   // nodes compared, aliases counted each time they are followed
        // Flux's durations are metav1.Duration: the API server keeps `1h` and `1h0m0s` as one value
        let durations = x.group.hasBytesSuffix("toolkit.fluxcd.io") ? Self.durationFields : []
        // the API server labels every Namespace `kubernetes.io/metadata.name: <its name>` (Kubernetes 1.22+), whether
        // it is written or not
        let namespaceName = x.kind == "Namespace" && x.group.isEmpty ? x.name : nil

        func isDefaultLabel(_ f: YAMLFile, _ pair: (key: Int, value: Int)) -> Bool {
            f.value(pair.key) == "kubernetes.io/metadata.name" && f.nodes[f.resolved(pair.value)].kind == .scalar && f.value(f.resolved(pair.value)) == namespaceName
        }
        /// The pairs of mapping `node` that the API server keeps as written.
        func kept(_ f: YAMLFile, _ node: Int, _ depth: Int, _ key: String) -> [(key: Int, value: Int)] {
            f.pairs(node).filter { p in
                switch (depth, key) {
                // (SOPS's own metadata at the top: kustomize-controller takes it out as it decrypts, and no API keeps it)
                case (0, _): return f.value(p.key) != "sops" && !(sameIdentity && f.value(p.key) == "apiVersion")
                // labels that hold only the default one are as good as none
                case (1, "metadata") where sameIdentity && (f.value(p.key) == "name" || f.value(p.key) == "namespace"): return false
                case (1, "metadata") where namespaceName != nil && f.value(p.key) == "labels":
                    let v = f.resolved(p.value)
                    return f.nodes[v].kind == .mapping ? !f.pairs(v).allSatisfy { isDefaultLabel(f, $0) } : !f.isNull(v)
                case (2, "labels") where namespaceName != nil: return !isDefaultLabel(f, p)
                default: return true
                }
            }
        }
        func same(_ i: Int, _ j: Int, _ depth: Int, key: String = "", merge: Bool = merging) -> Bool {
            budget -= 1
            guard budget > 0, depth < 200 else { return false }
            let i = l.resolved(i), j = r.resolved(j)
            let ni = l.nodes[i], nj = r.nodes[j]
            guard ni.kind == nj.kind else { return false }
            switch ni.kind {
            case .scalar, .alias:
                let ti = l.resolvedType(i), tj = r.resolvedType(j)
                if ti == tj && l.value(i) == r.value(j) { return true }
                if let u = SOPSCiphertext(l.value(i)), let v = SOPSCiphertext(r.value(j)), u.type == v.type, u.dataLength == v.dataLength {
                    ciphertextsDiffer = true
                    return true
                }
                guard durations.contains(key), let a = GoDuration.nanoseconds(l.value(i)), let b = GoDuration.nanoseconds(r.value(j)) else { return false }
                return a == b
            case .sequence:
                let ci = l.childNodes(i), cj = r.childNodes(j)
                return ci.count == cj.count && zip(ci, cj).allSatisfy { same($0, $1, depth + 1, merge: false) }
            case .mapping:
                let pi = kept(l, i, depth, key), pj = kept(r, j, depth, key)
                guard merge || pi.count == pj.count else { return false }
                var byKey: [String: Int] = [:]
                for p in pj { byKey[r.value(p.key)] = p.value }
                return pi.allSatisfy { p in byKey[l.value(p.key)].map { same(p.value, $0, depth + 1, key: l.value(p.key), merge: merge) } ?? merge }
            }
        }
        return !same(lroot, rroot, 0) ? .different : ciphertextsDiffer ? .sameButCiphertexts : .same
    }

    /// The fields of Flux's objects that are durations (`metav1.Duration`).
    static let durationFields: Set<String> = ["interval", "timeout", "retryInterval", "maxAge"]
}

/// A value SOPS encrypted: `ENC[AES256_GCM,data:<base64>,iv:<base64>,tag:<base64>,type:<type>]`.
struct SOPSCiphertext {
    let dataLength: Int
    let type: String

    init?(_ value: String) {
        let bytes = Array(value.utf8), prefix = Array("ENC[AES256_GCM,data:".utf8), typeKey = Array(",type:".utf8)
        guard bytes.starts(with: prefix), bytes.last == UInt8(ascii: "]"),
              let comma = bytes[prefix.count...].firstIndex(of: UInt8(ascii: ",")),
              let typeAt = stride(from: bytes.count - typeKey.count, through: comma, by: -1).first(where: { bytes[$0..<$0 + typeKey.count].elementsEqual(typeKey) })
        else { return nil }
        dataLength = comma - prefix.count
        type = String(decoding: bytes[(typeAt + typeKey.count)..<(bytes.count - 1)], as: UTF8.self)
    }
}
