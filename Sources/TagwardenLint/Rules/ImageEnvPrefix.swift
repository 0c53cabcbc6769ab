import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageEnvPrefix = Rule("image-env-prefix") { c in
        let m = c.model
        let environments = m.environments.environments   // (read in place: `named` copies a whole Environment)
        return m.images.indices.flatMap { i in m.images[i].judgedIn.compactMap { e in
            let img = m.images[i]
            // (`isLatest`, which lowers the tag, last: most tags have their prefix)
            guard img.invalid == nil, !img.retagged, m.images[i].promoted, let tag = img.tag,
                  let j = m.environments.index(named: e), let prefix = environments[j].tagPrefix,
                  !tag.value.hasPrefix(prefix), !isLatest(img) else { return nil }
            let env = environments[j]
            var message = "tag '\(tag.value)' of promoted image '\(m.promotedName(i))' lacks the \(env.name) prefix '\(prefix)'"
            if let other = m.environments.environment(ofTag: tag.value), other.name != env.name {
                message += ": it is a \(other.name) tag"
            }
            var f = c.finding(message, image: i, span: tag.span, environment: env.name)
            if let premise = m.promotionAssumption(i) { f.assume(premise) }
            return f
        } }
    }
}
