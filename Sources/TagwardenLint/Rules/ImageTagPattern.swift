import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageTagPattern = Rule("image-tag-pattern") { c in
        let m = c.model
        return m.images.indices.flatMap { i in m.images[i].judgedIn.compactMap { e in
            let img = m.images[i]
            // (`isLatest`, which lowers the tag, last: most environments have no pattern, most tags match theirs)
            guard img.invalid == nil, !img.retagged, m.images[i].promoted, let tag = img.tag,
                  let env = m.environments.named(e), let re = env.tagRegex, let pattern = env.tagPattern,
                  env.tagPrefix.map({ tag.value.hasPrefix($0) }) ?? true,  // a wrong prefix is image-env-prefix's
                  !re.matches(tag.value), !isLatest(img) else { return nil }
            var f = c.finding("tag '\(tag.value)' of promoted image '\(m.promotedName(i))' does not match the \(env.name) tag pattern '\(pattern)'",
                              image: i, span: tag.span, environment: env.name)
            if let premise = m.promotionAssumption(i) { f.assume(premise) }
            return f
        } }
    }
}
