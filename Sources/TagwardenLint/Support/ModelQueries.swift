import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel

extension Model {
    /// A policy's environments, sorted, each once: where it lives, else the environments of the markers that use it.
    /// (an array, not a set: a policy has one or a few, and building and hashing a set for each policy cost more than
    /// the rules' checks of them)
    func policyEnvironments(_ p: PolicyID) -> [String] {
        if let own = objectEnvironment[flux.policies[p].object] { return [own] }
        var names: [String] = []
        for k in flux.uses[p] ?? [] {
            if let name = markers[k].environment, !names.contains(name) { names.append(name) }
        }
        return names.sorted()
    }

    /// The tags a policy's filter lets through: nil when the pattern does not compile, or is a template.
    /// (The pattern is asked where the policy holds it, here and in `patternIsTemplate`: bound to a name, it was copied
    /// and released at each call, for every policy of several rules.)
    func policyLanguage(_ p: PolicyID) -> TagLanguage? {
        let policy = flux.policies[p]
        guard policy.spec.hasFilterTags, policy.spec.pattern?.value.isEmpty == false else { return .any }
        if patternIsTemplate(p) { return nil }
        return policy.regex.map { .matching($0) }
    }

    /// `${…}` in the policy's pattern: Flux substitutes it before the policy exists (or the file is a template for
    /// objects made elsewhere, `^${BRANCH_NAME}-…`, `^${IMAGE_TAG_PATTERN}$`); what it selects, and the groups it
    /// defines, are not known as written.
    func patternIsTemplate(_ p: PolicyID) -> Bool {
        guard flux.policies[p].spec.pattern?.value.containsBytes("${") == true,
              let pattern = flux.policies[p].spec.pattern?.value else { return false }
        return Envsubst.variables(pattern)?.isEmpty == false
    }

    /// The image a policy follows: its ImageRepository's `spec.image` as written and normalised; nil without one.
    func policyImage(_ p: PolicyID) -> (written: String, normalized: String)? {
        guard let r = flux.policies[p].repository, let image = flux.repositories[r].spec.image?.value,
              let n = flux.repositories[r].normalizedImage else { return nil }
        return (image, n)
    }

    /// The images of the ImageRepositories policy `p` reads in the clusters that deploy file `f`: a shared base's policy
    /// whose ImageRepository each cluster's build patches reads another in each (jordi-axpo/flux-infra); its own
    /// repository's where no cluster says.
    func policyImages(_ p: PolicyID, deploying f: FileID) -> [(written: String, normalized: String)] {
        var out: [(written: String, normalized: String)] = []
        for c in clusters.of(f) {
            guard let r = repository(of: p, in: c), let image = flux.repositories[r].spec.image?.value,
                  let n = flux.repositories[r].normalizedImage, !out.contains(where: { $0.normalized == n }) else { continue }
            out.append((image, n))
        }
        if out.isEmpty, let own = policyImage(p) { out = [own] }
        return out
    }

    /// Where policy findings point: the pattern (in the file that supplied it), or the policy's kind when it has none.
    func policyPlace(_ p: PolicyID) -> (file: FileID, span: SourceSpan) {
        let o = objects[flux.policies[p].object]
        guard let pattern = flux.policies[p].spec.pattern else { return (o.file, o.kindSpan) }
        return (pattern.file ?? o.file, pattern.span)
    }

    /// How the prefix and pattern rules name a promoted image: its name, or, for a field that sets only the tag,
    /// the image of the ImageRepository behind the field's marker.
    func promotedName(_ i: ImageID) -> String {
        images[i].name ?? markedRepository(i) ?? images[i].text
    }

    /// How the tag rules name an image: `image 'nginx:1.25'`; for a field that sets only the tag, the image of the
    /// policy whose marker it carries (`image 'ghcr.io/acme/web:latest' (this field sets its tag)`), else
    /// `ImageUse.described`.
    func described(_ i: ImageID) -> String {
        let img = images[i]
        guard img.name == nil, let tag = img.tag, let repo = markedRepository(i) else { return img.described }
        return "image '\(repo):\(tag.value)' (this field sets its tag)"
    }

    func policyName(_ p: PolicyID) -> String {
        let policy = flux.policies[p]
        return "\(policy.namespace ?? "<no namespace>")/\(policy.name)"
    }

    /// How the Flux that runs policy `p` parses tags as versions (the oldest, when clusters of several Flux apply it).
    func tagParsing(policy p: PolicyID) -> TagParsing {
        fluxVersion(ofFile: objects[flux.policies[p].object].file).tagParsing
    }

    /// The policy as the Flux that runs it evaluates it, or nil when Flux cannot build it (other rules say why), or
    /// where how it ranks tags cannot be known (its pattern is a template). Policies that filter, rank and exclude alike
    /// (a fleet's per-app policies) share one evaluator through `cache`.
    func policyEvaluator(_ p: PolicyID, cache: inout PolicyEvaluators) -> PolicyEvaluator? {
        guard !patternIsTemplate(p) else { return nil }
        return cache.evaluation(of: p, in: self).evaluator
    }

    /// The evaluators a rule has built, by what decides how a policy evaluates (its `PolicyDefinition.Behaviour`, and
    /// the Flux that runs it), with whether its extract names groups its pattern has. The key is read from the policy
    /// as it is, not from a definition built for each call: a distinct pattern is compiled once (`FluxIndex.build`), so
    /// the compiled pattern's identity stands for its text (the text itself where it does not compile).
    struct PolicyEvaluators {
        struct Key: Hashable {
            enum Pattern: Hashable { case compiled(ObjectIdentifier), written(String?) }
            let parsing: TagParsing
            let pattern: Pattern
            let choice: PolicyDefinition.Choice?
            let extract: String?
            let hasFilterTags: Bool
            let exclusionList: [String]?
        }
        /// (a class: a lookup hands out a reference, not a copy of the evaluator)
        final class Evaluation {
            let evaluator: PolicyEvaluator?
            let extractResolves: Bool
            init(evaluator: PolicyEvaluator?, extractResolves: Bool) {
                self.evaluator = evaluator
                self.extractResolves = extractResolves
            }
        }
        private var known: [Key: Evaluation] = [:]

        mutating func evaluation(of p: PolicyID, in m: Model) -> Evaluation {
            let policy = m.flux.policies[p]
            let key = Key(parsing: m.tagParsing(policy: p),
                          pattern: policy.regex.map { .compiled(ObjectIdentifier($0)) } ?? .written(policy.spec.pattern?.value),
                          choice: PolicyDefinition.choice(of: policy.spec), extract: policy.spec.extract?.value,
                          hasFilterTags: policy.spec.hasFilterTags,
                          exclusionList: policy.repository.flatMap { m.flux.repositories[$0].spec.exclusionList?.map(\.value) })
            if let hit = known[key] { return hit }
            let definition = PolicyDefinition(spec: policy.spec, repository: policy.repository.map { m.flux.repositories[$0].spec })
            let made = Evaluation(evaluator: try? PolicyEvaluator(definition, flux: key.parsing, compiled: policy.regex),
                                  extractResolves: Rule.extractResolves(policy.spec, policy.regex))
            known[key] = made
            return made
        }
    }

    /// Why policy `p` could never select `tag`, as the Flux that runs it reads tags: an exclusion of its ImageRepository,
    /// its filter, or a key it cannot rank (semver, numerical). Nil where it could, and where that is not known here (a
    /// templated pattern; an extract that names no group of the pattern, which policy-invalid-regex reports).
    func whyNeverSelects(_ p: PolicyID, _ tag: String, cache: inout PolicyEvaluators) -> String? {
        guard !patternIsTemplate(p) else { return nil }
        let policy = flux.policies[p], evaluation = cache.evaluation(of: p, in: self)
        guard evaluation.extractResolves, let e = evaluation.evaluator else { return nil }
        let flux = e.flux
        if let ex = e.isExcluded(tag) { return "it matches the ImageRepository exclusion \(ex.pattern)" }
        guard let key = e.key(for: tag) else { return "it does not match filterTags.pattern '\(policy.spec.pattern?.value ?? "")'" }
        switch e.definition.choice {
        case .semver(let range)?:
            guard let v = SemVersion.parseTag(key, flux: flux) else { return "'\(key)' does not parse as a version" + Rule.versionRefusal(key, flux: flux) }
            if let c = e.constraint, !c.check(v, flux: flux) { return "\(key) is outside the semver range '\(range)'" }
        case .numerical?:
            if case .failure = GoFloat.parse(key) { return "its key '\(key)' is not a number" }
        default:
            break
        }
        return nil
    }

    /// Whether every build that takes object `i` is one kustomize refuses for a resource it takes twice: what builds it
    /// applies nothing of it (kustomization-build-fails says why).
    func takenOnlyByRefusedBuilds(_ i: ObjectID) -> Bool {
        allRefused(sideBySideBuilds(of: objects[i].file, kind: objects[i].kind, object: i))
    }

    /// Whether there are `builds`, and kustomize refuses each for a resource it takes twice.
    func allRefused(_ builds: [SideBySideBuild]) -> Bool {
        guard !builds.isEmpty, !duplicateIDs.refused.isEmpty else { return false }
        let refused = Set(duplicateIDs.refused.map(\.build))
        return builds.allSatisfy { refused.contains($0.build) }
    }

    /// The language of the keys a policy ranks: the tags its filter passes, or the extracted group's language
    /// when `extract` is a single group reference; nil when that cannot be decided.
    func keyLanguage(_ p: PolicyID) -> TagLanguage? {
        let policy = flux.policies[p]
        guard let selectable = policyLanguage(p) else { return nil }
        guard let extract = policy.spec.extract?.value, !extract.isEmpty else { return selectable }
        guard let re = policy.regex else { return nil }
        let refs = Rule.extractReferences(extract)
        guard refs.count == 1, extract == "$" + refs[0] || extract == "${" + refs[0] + "}" else { return nil }
        // a name given to several groups takes whichever matched: no one group's language is the key's
        guard Int(refs[0]) != nil || re.subexpNames.filter({ $0 == refs[0] }).count <= 1 else { return nil }
        let index = Int(refs[0]) ?? re.subexpNames.firstIndex(of: refs[0]) ?? -1
        return re.group(index).map { .matching($0) }
    }
}

/// Memoised witnesses of a policy's language against an environment's (or against every tag): policies and
/// environments repeat across a fleet, and a distinct pattern is compiled once (`FluxIndex.build`), so the
/// compiled pattern's identity stands for the pattern.
final class WitnessCache {
    struct Key: Hashable {
        let pattern: ObjectIdentifier?   // nil: the policy selects every tag
        let environment: Int?            // nil: any valid tag
    }
    var cache: [Key: TagLanguage.Search] = [:]
    /// What one rule's searches may take in all: each search has its own budget (`TagLanguage.defaultBudget`),
    /// and a repository of many patterns that each exhaust it would otherwise take minutes.
    static let runBudget = 10 * TagLanguage.defaultBudget
    private(set) var remaining = WitnessCache.runBudget
    /// Searches refused because the rule's budget was spent.
    private(set) var refused = 0
    var exhausted: Bool { remaining <= 0 }

    func search(_ a: TagLanguage, _ b: TagLanguage, environment: Int?) -> TagLanguage.Search {
        var pattern: ObjectIdentifier?
        if case .matching(let re) = a { pattern = ObjectIdentifier(re) }
        let key = Key(pattern: pattern, environment: environment)
        if let hit = cache[key] { return hit }
        let w = search([a, b])
        cache[key] = w
        return w
    }

    /// An unmemoised search within the rule's budget: `.undecided` without a step once it is spent.
    func search(_ languages: [TagLanguage]) -> TagLanguage.Search {
        guard remaining > 0 else {
            refused += 1
            return .undecided
        }
        var spent = 0
        let w = TagLanguage.search(languages, budget: min(TagLanguage.defaultBudget, remaining), spent: &spent)
        remaining -= spent
        return w
    }
}

extension Model {
    /// The directories Argo CD Applications build with a config-management plugin (`source.plugin`, or one of
    /// `sources`), which may make files before it runs kustomize (argocd-vault-plugin, a SOPS decrypter), with how a
    /// premise names the Application and its plugin.
    func pluginBuiltDirectories() -> [String: String] {
        var out: [String: String] = [:]
        for o in objects where o.kind == "Application" && o.group == "argoproj.io" {
            let y = YAMLFile(parsing: Array(files[o.file].bytes[o.byteRange]))
            guard let root = y.documents.first?.root, let spec = y.get(root, "spec") else { continue }
            let sources = (y.get(spec, "source").map { [$0] } ?? []) + (y.get(spec, "sources").map { y.childNodes($0) } ?? [])
            for source in sources {
                guard let pluginNode = y.get(source, "plugin"), let written = y.string(source, "path"),
                      let dir = Model.normalizePath(written), out[dir] == nil else { continue }
                let plugin = y.string(pluginNode, "name").map { " \($0)" } ?? ""
                out[dir] = "Argo CD Application \(o.name ?? "") (\(path(o.file))) builds it with the config-management plugin\(plugin), "
                    + "which may make files before kustomize runs"
            }
        }
        return out
    }

    /// The files of the charts here that Helm never parses itself (not a chart's `Chart.yaml`, values, templates or
    /// CRDs) and that hold Go template text and do not parse as YAML: templates its own templates read through
    /// `.Files`. By chart directory.
    func chartTemplateFiles() -> [String: [FileID]] {
        var charts: [String]?
        var out: [String: [FileID]] = [:]
        for f in files.indices where files[f].syntaxError != nil && includedBy[files[f].path] == nil {
            let dirs = charts ?? Model.chartDirectories(files.map(\.path))
            charts = dirs
            guard let c = Model.chartHolding(files[f].path, charts: dirs), Model.isChartDataFile(files[f].path, chart: dirs[c]),
                  SourceText.contains("{{", in: files[f].bytes[...]) else { continue }
            out[dirs[c], default: []].append(f)
        }
        return out
    }
}

