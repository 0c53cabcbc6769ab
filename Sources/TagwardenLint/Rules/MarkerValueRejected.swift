import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerValueRejected = Rule("marker-value-rejected", scope: .updatePaths) { c in
        let m = c.model
        var cache = Model.PolicyEvaluators()
        return m.markers.indices.compactMap { k in
            let mk = m.markers[k]
            guard mk.context == .value, m.markers[k].skipped == nil, let ref = m.markers[k].ref, let p = m.markers[k].policy,
                  ref.part == .reference || ref.part == .tag, let value = mk.scalar?.value else { return nil }
            // `${…}` for Flux's post-build substitution: the automation writes over the expression itself
            if let names = Envsubst.variables(value), !names.isEmpty {
                let what = ref.part == .tag ? "tag" : "image"
                return c.finding("the value uses \(names.map { "${\($0)}" }.joined(separator: ", ")) for Flux's post-build substitution, but policy "
                                    + "\(m.policyName(p)) writes the \(what) it selects over the whole value: the variable is lost for every cluster that applies this file",
                                 writtenAt: k)
            }
            var tag = value
            // a :tag marker on a value that is no tag (a whole reference) is marker-wrong-form's finding
            if ref.part == .tag, !ImageReference.isTag(value) { return nil }
            if ref.part == .reference {
                guard let ii = mk.image, m.images[ii].invalid == nil, let t = m.images[ii].tag?.value else { return nil }
                tag = t
            }
            guard let why = m.whyNeverSelects(p, tag, cache: &cache) else { return nil }
            return c.finding("policy \(m.policyName(p)) could never select '\(tag)': \(why); Flux will replace it with the next tag it selects",
                             writtenAt: k)
        }
    }

    /// Why Flux's semver reading refuses `key`, where the version core's dots do not say it: a numeric pre-release
    /// identifier with a leading zero (`v1.0.0-0.0000000`, Chokchai-Fa/homelab-flux-controller's).
    static func versionRefusal(_ key: String, flux: TagParsing) -> String {
        let core = key.prefix { $0 != "-" && $0 != "+" }
        let dots = core.count { $0 == "." }
        if flux == .current, dots < 2 { return " (Flux 2.7+ needs at least two dots)" }
        // (fewer than two dots: Flux 2.7 and later refuse it too)
        if flux != .current, dots < 2 { return " (Flux before 2.7 needs exactly X.Y.Z, and later Flux at least two dots)" }
        if flux != .current, dots > 2 { return " (Flux before 2.7 needs exactly X.Y.Z)" }
        let pre = key.dropFirst(core.count).prefix { $0 != "+" }
        if pre.hasPrefix("-"), let zero = pre.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            .first(where: { $0.count > 1 && $0.first == "0" && $0.allSatisfy(\.isASCIIDigit) }) {
            return " (its numeric pre-release identifier '\(String(zero))' has a leading zero)"
        }
        return ""
    }
}
