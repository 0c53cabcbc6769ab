import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageTagPattern = Rule("image-tag-pattern") { c in
        let m = c.model
        let environments = m.environments.environments   // (read in place: `named` copies a whole Environment)
        return m.images.indices.flatMap { i in m.images[i].judgedIn.compactMap { e in
            let img = m.images[i]
            // (`isLatest`, which lowers the tag, last: most environments have no pattern, most tags match theirs)
            guard img.invalid == nil, !img.retagged, m.images[i].promoted, let tag = img.tag,
                  let j = m.environments.index(named: e), let re = environments[j].tagRegex, let pattern = environments[j].tagPattern,
                  environments[j].tagPrefix.map({ tag.value.hasPrefix($0) }) ?? true,  // a wrong prefix is image-env-prefix's
                  !re.matches(tag.value), !isLatest(img) else { return nil }
            let name = environments[j].name
            var f = c.finding("tag '\(tag.value)' of promoted image '\(m.promotedName(i))' does not match the \(name) tag pattern '\(pattern)'",
                              image: i, span: tag.span, environment: name)
            if let premise = m.promotionAssumption(i) { f.assume(premise) }
            return f
        } }
    }
}
