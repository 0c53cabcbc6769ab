import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel

extension Rule {
    /// Flux image-automation objects the API server refuses (CRD schema and CEL rules) or the controller stalls
    /// on before it does anything (the controllers' CRD validation and the checks their reconcilers make first).
    static let objectInvalid = Rule("object-invalid") { c in
        let m = c.model
        var out: [Finding] = []
        func served(_ o: ObjectID) -> Bool {
            let v = m.objects[o].apiVersion
            return v == "image.toolkit.fluxcd.io/v1" || v == "image.toolkit.fluxcd.io/v1beta2"
        }
        let rejected = "the API server rejects the object, and with it the apply of everything around it"
        // a Flux Kustomization's substitute values are strings: `WEB_TAG: 1.10` is refused (and would lose its 0)
        for (o, object) in m.objects.withIDs {
            guard case .kustomization(let k)? = object.flux, let post = k.postBuild else { continue }
            for v in post.notStrings {
                out.append(c.finding("Flux Kustomization \(object.name ?? ""): postBuild.substitute value \(v.value) is read as a "
                                        + "\(v.type == .bool ? "boolean" : "number"), where only strings are accepted: "
                                        + "quote it (\"\(v.value)\"); \(rejected)", object: o, span: v.span))
            }
        }
        for r in m.flux.repositories where !m.flux.nonResources.contains(r.object) && served(r.object) {
            let spec = r.spec
            func what() -> String { "ImageRepository \(m.objects[r.object].name ?? "")" }   // built for findings only
            // an image whose variables nothing here gives a value is not known (`tagwarden env` names them); one the
            // builds substitute is judged as Flux reads it
            if r.unresolvedVariables.isEmpty, let image = spec.image, let problem = imageProblem(image.value) {
                let written = r.writtenImage.map { " (written '\($0)', substituted by the builds that apply it)" } ?? ""
                out.append(c.finding("\(what()): image '\(image.value)' \(problem)\(written): Flux stalls it (ImageURLInvalid) and scans no tags",
                                     object: r.object, at: image))
            }
            if let interval = spec.interval, let problem = durationProblem(interval.value, hours: true) {
                out.append(c.finding("\(what()): interval '\(interval.value)' \(problem): \(rejected)",
                                     object: r.object, at: interval))
            }
            if let timeout = spec.timeout, let problem = durationProblem(timeout.value, hours: false) {
                out.append(c.finding("\(what()): timeout '\(timeout.value)' \(problem): \(rejected)",
                                     object: r.object, at: timeout))
            }
            if let list = spec.exclusionList {
                if list.count > 25 {
                    out.append(c.finding("\(what()): exclusionList has \(list.count) entries, at most 25 are accepted: \(rejected)",
                                         object: r.object, at: list[25]))
                }
                for entry in list {
                    do { _ = try GoRegex(entry.value) } catch {
                        out.append(c.finding("\(what()): exclusionList entry '\(entry.value)' is not a valid Go regular expression: \(error); every scan fails",
                                             object: r.object, at: entry))
                    }
                }
            }
        }
        for (p, policy) in m.flux.policies.withIDs where !m.flux.nonResources.contains(policy.object) && served(policy.object) {
            // (the spec's fields are read where the policy holds them: `let spec = policy.spec` copied the whole spec for
            // each policy, and each field bound to a name is another copy)
            // a policy that builds complete with patches is judged as they complete it (EffectiveObjects)
            if policy.spec.policySpan == nil {
                out.append(c.finding("policy \(m.policyName(p)) has no spec.policy (semver, alphabetical or numerical): \(rejected)",
                                     policy: p, span: m.objects[policy.object].kindSpan))
            } else if policy.spec.semverRange == nil, !policy.spec.hasAlphabetical, !policy.spec.hasNumerical {
                out.append(c.finding("policy \(m.policyName(p)): spec.policy names no semver, alphabetical or numerical ordering: "
                                        + "Flux stalls the policy (InvalidPolicy) and selects nothing", policy: p, at: policy.spec.policyField))
            }
            func checkOrder(_ order: Located?) {
                guard let order, order.value != "asc", order.value != "desc" else { return }
                out.append(c.finding("policy \(m.policyName(p)): order '\(order.value)' is not asc or desc: \(rejected)",
                                     policy: p, at: order))
            }
            checkOrder(policy.spec.alphabeticalOrder)
            checkOrder(policy.spec.numericalOrder)
            // digestReflectionPolicy and interval, and the rules that tie them, came with Flux 2.6 (image-reflector-controller
            // 0.35): an older API server prunes both fields as unknown and takes the object (a policy that sets neither
            // has nothing to judge: the clusters that run it are not asked)
            guard policy.spec.digestReflectionField != nil || policy.spec.interval != nil else { continue }
            let reflectionRuns = m.fluxRuns(ofFile: m.objects[policy.object].file).filter { $0.version.release >= FluxVersion(2, 6) }
            guard let run = reflectionRuns.min(by: { $0.version < $1.version }) else { continue }
            func reflectionFinding(_ message: String, at field: Located?) -> Finding {
                var f = c.finding(message, policy: p, at: field)
                if let premise = m.fluxAssumption(run, holdsFrom: FluxVersion(2, 6)) { f.assume(premise) }
                return f
            }
            let reflection = policy.spec.digestReflection ?? "Never"
            if let field = policy.spec.digestReflectionField, field.value != "Always", field.value != "IfNotPresent", field.value != "Never" {
                out.append(reflectionFinding("policy \(m.policyName(p)): digestReflectionPolicy '\(field.value)' is not Always, IfNotPresent or Never: \(rejected)",
                                             at: field))
            } else if policy.spec.interval != nil, reflection != "Always" {
                out.append(reflectionFinding("policy \(m.policyName(p)): spec.interval is only accepted when spec.digestReflectionPolicy is Always: \(rejected)",
                                             at: policy.spec.interval))
            } else if reflection == "Always", policy.spec.interval == nil {
                out.append(reflectionFinding("policy \(m.policyName(p)): spec.interval must be set when spec.digestReflectionPolicy is Always: \(rejected)",
                                             at: policy.spec.digestReflectionField))
            } else if let interval = policy.spec.interval?.value, let problem = durationProblem(interval, hours: true) {
                out.append(reflectionFinding("policy \(m.policyName(p)): interval '\(interval)' \(problem): \(rejected)", at: policy.spec.interval))
            }
        }
        for a in m.flux.automations where !m.flux.nonResources.contains(a.object) && served(a.object) {
            let spec = a.spec
            func what() -> String { "ImageUpdateAutomation \(m.objects[a.object].name ?? "")" }
            if let interval = spec.interval, let problem = durationProblem(interval.value, hours: true) {
                out.append(c.finding("\(what()): interval '\(interval.value)' \(problem): \(rejected)",
                                     object: a.object, at: interval))
            }
            if let strategy = spec.strategy, strategy.value != "Setters" {
                out.append(c.finding("\(what()): update.strategy '\(strategy.value)' is not Setters, the only strategy: \(rejected)",
                                     object: a.object, at: strategy))
            }
            guard spec.hasGit else {
                out.append(c.finding("\(what()) has no spec.git: Flux stalls it (a GitRepository source needs .spec.git) and never updates anything",
                                     object: a.object))
                continue
            }
            // the CRDs of v1beta1 on require spec.git.commit.author.email (JohnnyTengu/flux-config's, commented out)
            if spec.authorEmail == nil, !m.objects[a.object].apiVersion.hasSuffix("/v1alpha1") {
                out.append(c.finding("\(what()) has no git.commit.author.email, which its CRD requires: \(rejected)", object: a.object))
            }
            // no push branch: Flux pushes to the branch it checks out, and a tag, semver or commit ref has none
            if spec.pushBranch == nil {
                var refWithoutBranch = spec.hasCheckoutRef && spec.checkoutBranch == nil
                if !spec.hasCheckoutRef, let source = m.flux.source(of: a) {
                    refWithoutBranch = source.hasRef && source.branch == nil
                }
                if refWithoutBranch {
                    out.append(c.finding("\(what()) has no git.push.branch, and the ref it checks out (\(spec.hasCheckoutRef ? "git.checkout.ref" : "its GitRepository's spec.ref")) "
                                            + "names no branch: Flux fails every run (push spec not provided, and cannot be inferred); set git.push.branch",
                                         object: a.object))
                }
            }
        }
        return out
    }

    /// Why Flux refuses an ImageRepository's `image`: a URL scheme, a digest or a tag (as the reference grammar
    /// reads it), or a name that is no reference at all.
    static func imageProblem(_ image: String) -> String? {
        let b = Array(image.utf8)
        if let i = b.indices.first(where: { $0 + 2 < b.count && b[$0] == 58 && b[$0 + 1] == 47 && b[$0 + 2] == 47 }) {
            return "must not include a URL scheme (remove '\(String(decoding: b[..<(i + 3)], as: UTF8.self))')"
        }
        if let at = b.firstIndex(of: 64) { return "must not include a digest (remove '\(String(decoding: b[at...], as: UTF8.self))')" }
        switch ImageReference.parse(image) {
        case .success(let r): return r.tag.map { "must not include a tag (remove ':\($0)')" }
        case .failure(.invalid(let why)): return "is not an image name (\(why))"
        case .failure(.empty): return "is empty"
        }
    }

    /// What is wrong with a duration field, or nil: the CRD's pattern, then Go's range (a duration is an int64 of
    /// nanoseconds, so about 292 years at most; `time.ParseDuration` refuses more, and with it the object).
    static func durationProblem(_ s: String, hours: Bool) -> String? {
        guard isDuration(s, hours: hours) else {
            return hours ? "is not a duration such as 5m or 1h30m" : "is not a duration in ms, s or m (hours are not accepted here)"
        }
        return GoDuration.nanoseconds(s) == nil ? "is longer than a Go duration can be (about 292 years)" : nil
    }

    /// Go durations as the CRDs accept them: `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$` (`timeout` without `h`).
    static func isDuration(_ s: String, hours: Bool) -> Bool {
        let b = Array(s.utf8)
        var i = 0
        guard !b.isEmpty else { return false }
        func digits() -> Bool {
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
            return i > start
        }
        while i < b.count {
            guard digits() else { return false }
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() else { return false }
            }
            guard i < b.count else { return false }
            if b[i] == UInt8(ascii: "m"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "s") { i += 2 }
            else if b[i] == UInt8(ascii: "s") || b[i] == UInt8(ascii: "m") || (hours && b[i] == UInt8(ascii: "h")) { i += 1 }
            else { return false }
        }
        return true
    }
}
