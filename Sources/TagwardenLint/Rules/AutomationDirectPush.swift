import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let automationDirectPush = Rule("automation-direct-push") { c in
        let m = c.model
        return m.flux.automations.compactMap { a in
            guard !m.flux.nonResources.contains(a.object) else { return nil }
            // the automation's own environment, else the environment of what it updates
            let envName = m.objectEnvironment[a.object]
                ?? a.paths.first.flatMap { m.environments.detect(directory: $0) }
            guard let env = m.environments.named(envName), env.requireReview else { return nil }
            var checkout = a.spec.checkoutBranch
            if checkout == nil { checkout = m.flux.source(of: a)?.branch }
            let push = a.spec.pushBranch?.value ?? checkout
            guard let push, push == (checkout ?? "master") else { return nil }
            return c.finding("the automation pushes to '\(push)', the branch it checks out: \(env.name) requires review, so push to another branch and merge it by pull request",
                             object: a.object, at: a.spec.pushBranch)
        }
    }
}
