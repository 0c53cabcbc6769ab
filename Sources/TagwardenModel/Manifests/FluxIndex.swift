import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy

/// The Flux objects of a model, resolved against each other: policies, repositories, automations,
/// and every marker with the policy it names.
public struct FluxIndex: Sendable {
    public final class Policy: Sendable {
        public let object: ObjectID
        public let namespace: String?
        public let name: String
        public let spec: ImagePolicySpec
        public let labels: [String: String]
        /// The labels the builds that take it add (`Model.labelsAddedByBuilds`): one map per such build.
        public let addedLabels: [[String: String]]
        /// The environment of where it is defined (nil when its location names none).
        public let environment: String?
        /// The compiled pattern; nil when there is none or it does not compile.
        public let regex: GoRegex?
        public let regexError: String?
        /// The ImageRepository its `imageRepositoryRef` names, when the repository has it.
        public let repository: RepositoryID?

        init(object: ObjectID, namespace: String?, name: String, spec: ImagePolicySpec, labels: [String: String],
             addedLabels: [[String: String]] = [], environment: String?, regex: GoRegex?, regexError: String?, repository: RepositoryID? = nil) {
            self.addedLabels = addedLabels
            self.regex = regex
            self.regexError = regexError
            self.repository = repository
            self.object = object
            self.namespace = namespace
            self.name = name
            self.spec = spec
            self.labels = labels
            self.environment = environment
        }
    }

    public struct Repository: Sendable {
        public var object: ObjectID
        public var namespace: String?
        public var name: String
        public var spec: ImageRepositorySpec
        public var environment: String?
        /// `spec.image` as written, when the post-build substitution of the builds that apply it made another text of
        /// it (`${image_registry}/web`): `spec.image` holds what Flux reads.
        public var writtenImage: String?
        /// The variables of a `spec.image` written with `${…}` that nothing here gives one value (a ConfigMap made
        /// elsewhere, builds that disagree): the image Flux reads is not known, and `spec.image` is as written.
        public var unresolvedVariables: [String] = []
        /// For an image with `unresolvedVariables`: the images it may be, whatever their values, when its last path
        /// segment is written out.
        public var imagePattern: VariablePattern?
        /// `spec.image` normalised (`nginx` → `docker.io/library/nginx`), once for every rule that compares images; nil
        /// when it is no image name.
        public var normalizedImage: String?
    }

    public struct Automation: Sendable {
        public var object: ObjectID
        public var namespace: String?
        public var environment: String?
        public var spec: AutomationSpec
        /// `update.path` as Flux joins it to the clone's root (securejoin: `/apps` and `../apps` are `apps`; "" for the
        /// root): one path, or, for a path written with `${…}`, each path the post-build substitution of the builds that
        /// apply the automation makes of it. Empty when `unresolved`.
        public var paths: [String]
        /// For a path written with `${…}`: the Flux Kustomization of each build that applies the automation → the path
        /// its substitution makes (each cluster's Flux runs the automation with its own).
        public var pathOfBuild: [ObjectID: String] = [:]
        /// For a `messageTemplate` written with `${…}`: what each build that applies the automation and substitutes makes
        /// of it.
        public var messageOfBuild: [ObjectID: String] = [:]
        /// `${…}` that nothing here substitutes (a Secret, a patch, a build applied from elsewhere): not judged.
        public var unresolved = false
        /// Whether its GitRepository is known to be this repository (its URL is a remote of the clone, or flux bootstrap's
        /// Kustomization here reads it), taken to be (every GitRepository here names one repository, as each cluster's
        /// flux-system does), or cannot be told.
        public var source: SourceKnowledge = .unknown
        /// The GitRepositories its `sourceRef` may name (`FluxIndex.source(of:)`): of several of that name, those
        /// written beside it (`FluxIndex.beside`).
        public var sourceCandidates: [Int] = []
        /// Its GitRepository is not in the repository, and no path of its `update.path` holds a file here:
        /// it updates another repository, or this one from another root (a directory pushed as a repository of its
        /// own, as aws-samples/eks-saas-gitops's `gitops/`). Its paths say nothing of where this repository's markers are.
        public var mayUpdateElsewhere = false
        /// The branch it checks out (`git.checkout.ref.branch`, else its GitRepository's), where that is not the
        /// branch of the repository's line the clone is on (`readOtherBranches`): it updates that branch's files.
        public var otherBranch: String?
        /// Of its paths, whether `otherBranch` holds a manifest under each, as the clone last fetched it; a path the
        /// clone cannot say of (it lacks the branch) is not here.
        public var otherBranchHolds: [String: Bool] = [:]

        public enum SourceKnowledge: Sendable { case here, assumed, unknown }

    }

    public struct MarkerInfo: Sendable {
        public var ref: MarkerRef?
        public var problem: String?
        /// The policy it names, if it exists.
        public var policy: PolicyID?
        /// When several environments define the policy it names, the field is in none of them, and the automations
        /// that update it do not settle which: all of them (`policy` is then nil), and the environments of those
        /// automations (nil for one of no environment).
        public var candidates: [PolicyID] = []
        public var updatingEnvironments: Set<String?> = []
        /// When every ImagePolicy of its name is in a file known not to be deployed: the first, and why.
        public var undeployed: (policy: PolicyID, why: String)?
        public var environment: String?
        /// The ImageUpdateAutomations that apply it (its file is under their update.path, they are in the policy's
        /// namespace and their policySelector takes the policy); empty when none does, or the marker names no policy.
        public var automations: [AutomationID] = []
        /// Why Flux's image automation skips this marker though it is written where Flux reads markers: the file does
        /// not parse, it is outside every automation's `update.path`, or no automation that updates it uses the policy.
        /// nil when an automation applies it, or the repository has none. Rules about what Flux does with the marked
        /// value say nothing of a skipped marker; `marker-ignored` says why it is skipped.
        public var skipped: String?
    }

    public var policies = Table<PolicyID, Policy>()
    public var repositories = Table<RepositoryID, Repository>()
    public var automations = Table<AutomationID, Automation>()
    /// The automations that update this repository, by their normalised `update.path` ("" for the root).
    public private(set) var automationsByPath: [String: [AutomationID]] = [:]
    public var gitRepositories: [(namespace: String?, name: String, spec: GitRepositorySpec, environment: String?, object: ObjectID)] = []
    /// Policy → markers (Flux-readable ones) that name it. A marker of no environment that names a policy several
    /// environments define (`MarkerInfo.candidates`) is listed under each only when it is the first such marker of
    /// that name: it adds no environment, and a repository of many copies of one fleet must not cost markers × copies.
    public var uses: [PolicyID: [MarkerID]] = [:]
    /// Objects that are no resources of a cluster (`FluxIndex.nonResources`): patches and kustomize's configuration.
    public var nonResources: Set<ObjectID> = []
    /// A namespace and a name, hashed as they are (no joined string per lookup).
    struct Key: Hashable {
        let namespace: String
        let name: String
        // (hashed and compared as `StringKey`s: a lookup per policy, repository and marker)
        static func == (a: Key, b: Key) -> Bool { StringKey(a.name) == StringKey(b.name) && StringKey(a.namespace) == StringKey(b.namespace) }
        func hash(into hasher: inout Hasher) { hasher.combine(_rawHashValue(seed: 0)) }
        func _rawHashValue(seed: Int) -> Int { StringKey(name)._rawHashValue(seed: StringKey(namespace)._rawHashValue(seed: seed)) }
    }
    // Every object of a key, in source order: a repository of several clusters defines `flux-system/web` once
    // per cluster, and a lookup from one environment finds that environment's.
    var policyByKey: [Key: [PolicyID]] = [:]
    var unnamespacedPolicy: [String: [PolicyID]] = [:]
    var repositoryByKey: [Key: [RepositoryID]] = [:]
    var repositoryByName: [String: [RepositoryID]] = [:]

    /// The texts some builds make, each once, in the order made.
    package static func distinctTexts(_ made: [(kustomization: ObjectID, text: String)]) -> [String] {
        var out: [String] = []
        for m in made where !out.contains(m.text) { out.append(m.text) }
        return out
    }

    package static func sameNamespace(_ a: String?, _ b: String?) -> Bool {
        // an object whose namespace nothing sets is taken to be in whatever namespace is asked
        a == nil || b == nil || a == b
    }

    /// The GitRepository an automation's `sourceRef` names (its own namespace unless the ref gives one; of several,
    /// one written beside it, then its own environment's).
    public func source(of a: Automation) -> GitRepositorySpec? {
        guard !a.sourceCandidates.isEmpty else { return nil }
        return gitRepositories[FluxIndex.preferring(a.environment, a.sourceCandidates) { gitRepositories[$0].environment }].spec
    }

    /// Of several GitRepositories an automation's `sourceRef` may name, those written beside it: in its file, else in
    /// its directory, else those its clusters apply too (filecoin-project/storetheindex's dev-v2 automation beside a
    /// GitRepository of a fork, of the same name as the dev cluster's of this repository); all where none is.
    static func beside(_ candidates: [Int], of automation: ObjectID, in idx: FluxIndex, objects: Objects, files: Files,
                       deployedTogether: (FileID, ObjectID) -> Bool) -> [Int] {
        guard candidates.count > 1 else { return candidates }
        let file = objects[automation].file, dir = files[file].directory
        let sameFile = candidates.filter { objects[idx.gitRepositories[$0].object].file == file }
        if !sameFile.isEmpty { return sameFile }
        let sameDirectory = candidates.filter { files[objects[idx.gitRepositories[$0].object].file].directory == dir }
        if !sameDirectory.isEmpty { return sameDirectory }
        let together = candidates.filter { deployedTogether(file, idx.gitRepositories[$0].object) }
        return together.isEmpty ? candidates : together
    }

    /// The automations whose `update.path` holds `file` (of this repository), deepest path last: with a few paths,
    /// each is compared with the file's bytes; with many, they are looked up by the file's directories, so a marker
    /// costs its path's depth, not one test per automation.
    public func covering(_ file: String) -> [AutomationID] {
        if automationsByPath.count <= 16 {
            // (the paths that hold one file are the file and directories above it: no two of one length)
            var holding: [(length: Int, automations: [AutomationID])] = []
            for (path, ids) in automationsByPath where FluxIndex.holds(path, file) { holding.append((path.utf8.count, ids)) }
            if holding.count == 1 { return holding[0].automations }
            holding.sort { $0.length < $1.length }
            return holding.flatMap(\.automations)
        }
        return FluxIndex.updatePaths(holding: file).flatMap { automationsByPath[$0] ?? [] }
    }

    /// Whether the normalised `update.path` `path` holds `file`: the root, the file itself, or a directory above it.
    package static func holds(_ path: String, _ file: String) -> Bool {
        path == file || Path.isBelow(file, path)
    }

    /// Which of `paths` are a file of `files` or a directory holding one. In path byte order (as the snapshot gives the
    /// files, else sorted here) the files under a directory are one run: each path is found by bisection, not each file
    /// looked up (a fleet's automations are thousands, its files a hundred thousand).
    package static func pathsHoldingFiles(among paths: Set<String>, _ files: [String]) -> Set<String> {
        guard !paths.isEmpty, !files.isEmpty else { return [] }
        let inOrder = zip(files, files.dropFirst()).allSatisfy { !SourceText.byteLess($1, $0) }
        let sorted = inOrder ? files : files.sorted(by: SourceText.byteLess)
        return paths.filter { path in
            if path.isEmpty { return true }
            let at = SourceText.firstNotByteLess(sorted, path)
            if at < sorted.count, SourceText.sameBytes(sorted[at], path) { return true }
            let under = path + "/", first = SourceText.firstNotByteLess(sorted, under)
            return first < sorted.count && SourceText.hasBytePrefix(sorted[first], under)
        }
    }

    /// Every normalised `update.path` that holds `file`: the root (""), each directory above it, the file itself.
    package static func updatePaths(holding file: String) -> [String] {
        [""] + Model.directories(of: file) + [file]
    }

    /// The environments of the automations whose `update.path` holds `file` and that use policies of `namespace`,
    /// from the environments of each `update.path` and namespace (`cache`): markers cost their path's depth, however
    /// many automations update the whole repository.
    func updatingEnvironments(_ file: String, namespace: String, cache: inout [Key: Set<String?>]) -> Set<String?> {
        var out = Set<String?>()
        for p in FluxIndex.updatePaths(holding: file) {
            guard let autos = automationsByPath[p] else { continue }
            let key = Key(namespace: namespace, name: p)
            if cache[key] == nil {
                var environments = Set<String?>()
                for a in autos where FluxIndex.sameNamespace(automations[a].namespace, namespace) { environments.insert(automations[a].environment) }
                cache[key] = environments
            }
            out.formUnion(cache[key]!)
        }
        return out
    }

    /// Every policy `namespace/name` (several when each cluster of the repository defines it).
    public func policies(namespace: String, name: String) -> [PolicyID] {
        policyByKey[Key(namespace: namespace, name: name)] ?? unnamespacedPolicy[name] ?? []
    }

    /// The ImageRepository `name` in `namespace`; of several, the one defined in `environment`, else the first.
    public func repository(namespace: String?, name: String, environment: String? = nil) -> RepositoryID? {
        let candidates = repositories(namespace: namespace, name: name)
        guard !candidates.isEmpty else { return nil }
        return FluxIndex.preferring(environment, candidates) { repositories[$0].environment }
    }

    /// Every ImageRepository of a namespace (any, when nil) and name.
    public func repositories(namespace: String?, name: String) -> [RepositoryID] {
        let candidates = namespace.flatMap { repositoryByKey[Key(namespace: $0, name: name)] } ?? []
        return candidates.isEmpty ? repositoryByName[name]?.filter { FluxIndex.sameNamespace(repositories[$0].namespace, namespace) } ?? []
            : candidates
    }

    static func preferring<ID>(_ environment: String?, _ candidates: [ID], _ environmentOf: (ID) -> String?) -> ID {
        if let environment, candidates.count > 1, let same = candidates.first(where: { environmentOf($0) == environment }) { return same }
        return candidates[0]
    }

    /// Objects that are no resources of a cluster: those of files kustomizations use as patches (partial objects), or
    /// as kustomize's own configuration (`transformers`, `generators`, `validators`, `configurations`), and kustomize's
    /// built-in transformer and generator configs (`apiVersion: builtin`).
    static func nonResources(_ objects: Objects, files: Files) -> Set<ObjectID> {
        var paths = Set<String>()
        for o in objects where o.isKustomization {
            let dir = files[o.file].directory
            for p in o.kustomizePatches + o.kustomizeConfigFiles {
                if let n = Model.normalizePath(dir.isEmpty ? p : dir + "/" + p) { paths.insert(n) }
            }
        }
        return Set(objects.indices.filter { objects[$0].apiVersion == "builtin" || (!paths.isEmpty && paths.contains(files[objects[$0].file].path)) })
    }

    /// `expand` gives the texts the post-build substitution of the builds applying a file make of a text with `${…}`
    /// (nil when they cannot be known here).
    /// `here` are the repositories this one is (`Model.hereRepositories`); `bootstrapSources` the GitRepositories that
    /// flux bootstrap's Kustomizations read (`<path>/flux-system/gotk-sync.yaml`), which are this repository.
    static func build(objects: Objects, namespaces: Table<ObjectID, String?>, environments: Table<ObjectID, String?>, files: Files,
                      addedLabels: [ObjectID: [[String: String]]] = [:], nonResources: Set<ObjectID>, markers: Table<MarkerID, MarkerComment>,
                      markerEnvironment: Table<MarkerID, String?>,
                      expand: (String, FileID) -> [(kustomization: ObjectID, text: String)]?, here: Set<String>,
                      remotes: Set<String> = [], bootstrapSources: [(namespace: String?, name: String)] = [],
                      deployedTogether: (FileID, ObjectID) -> Bool = { _, _ in true },
                      notDeployed: (FileID) -> String? = { _ in nil }) -> (FluxIndex, Table<MarkerID, MarkerInfo>) {
        var idx = FluxIndex()
        idx.nonResources = nonResources
        var compiled: [String: Result<GoRegex, RegexSyntaxError>] = [:]
        for (i, o) in objects.withIDs {
            if nonResources.contains(i) { continue }
            switch o.flux {
            case .imagePolicy(let spec)?:
                guard let name = o.name else { continue }
                var regex: GoRegex?, regexError: String?
                if let pattern = spec.pattern?.value {
                    let r: Result<GoRegex, RegexSyntaxError>
                    if let c = compiled[pattern] { r = c } else {
                        do { r = .success(try GoRegex(pattern)) } catch { r = .failure(error) }
                        compiled[pattern] = r
                    }
                    switch r {
                    case .success(let re): regex = re
                    case .failure(let e): regexError = e.description
                    }
                }
                idx.policies.append(Policy(object: i, namespace: namespaces[i], name: name, spec: spec, labels: o.labels,
                                           addedLabels: addedLabels[i] ?? [], environment: environments[i], regex: regex, regexError: regexError))
            case .imageRepository(var spec)?:
                if let name = o.name {
                    var repository = Repository(object: i, namespace: namespaces[i], name: name, spec: spec, environment: environments[i])
                    // an image written with variables is what the builds that apply it substitute, when they agree
                    if let image = spec.image, image.value.containsBytes("${"), let names = Envsubst.variables(image.value), !names.isEmpty {
                        if let made = expand(image.value, o.file).map(Self.distinctTexts), made.count == 1, !made[0].containsBytes("${") {
                            repository.writtenImage = image.value
                            spec.image = Located(value: made[0], span: image.span, type: image.type, file: image.file)
                            repository.spec = spec
                        } else {
                            repository.unresolvedVariables = names
                            repository.imagePattern = VariablePattern(image.value)
                        }
                    }
                    repository.normalizedImage = repository.spec.image.flatMap { ImageReference.normalizeName($0.value) }
                    idx.repositories.append(repository)
                }
            case .automation(let spec)?:
                let written = spec.updatePath?.value ?? ""
                var paths = [Model.rootedPath(written)]
                var unresolved = false
                var pathOfBuild: [ObjectID: String] = [:]
                if written.containsBytes("${"), Envsubst.variables(written)?.isEmpty == false {
                    let made = expand(written, o.file)?.map { (kustomization: $0.kustomization, text: Model.rootedPath($0.text)) } ?? []
                    for m in made { pathOfBuild[m.kustomization] = m.text }
                    paths = Self.distinctTexts(made)
                    unresolved = made.isEmpty
                }
                var messageOfBuild: [ObjectID: String] = [:]
                if let template = spec.messageTemplate?.value, template.containsBytes("${"), let made = expand(template, o.file) {
                    for m in made { messageOfBuild[m.kustomization] = m.text }
                }
                if !spec.updatesElsewhere { for p in paths { idx.automationsByPath[p, default: []].append(AutomationID(idx.automations.count)) } }
                idx.automations.append(Automation(object: i, namespace: namespaces[i], environment: environments[i], spec: spec,
                                                  paths: paths, pathOfBuild: pathOfBuild, messageOfBuild: messageOfBuild,
                                                  unresolved: unresolved))
            case .gitRepository(let spec)?:
                if let name = o.name { idx.gitRepositories.append((namespaces[i], name, spec, environments[i], i)) }
            default:
                break
            }
        }
        for (p, policy) in idx.policies.withIDs {
            if let ns = policy.namespace {
                idx.policyByKey[Key(namespace: ns, name: policy.name), default: []].append(p)
            } else {
                idx.unnamespacedPolicy[policy.name, default: []].append(p)
            }
        }
        for (r, repo) in idx.repositories.withIDs {
            if let ns = repo.namespace { idx.repositoryByKey[Key(namespace: ns, name: repo.name), default: []].append(r) }
            idx.repositoryByName[repo.name, default: []].append(r)
        }
        for a in idx.automations.indices {
            let spec = idx.automations[a].spec
            guard (spec.sourceKind ?? "GitRepository") == "GitRepository", let name = spec.sourceName?.value else { continue }
            let ns = spec.sourceNamespace ?? idx.automations[a].namespace
            let named = idx.gitRepositories.indices.filter { idx.gitRepositories[$0].name == name && FluxIndex.sameNamespace(idx.gitRepositories[$0].namespace, ns) }
            let beside = FluxIndex.beside(named, of: idx.automations[a].object, in: idx, objects: objects, files: files, deployedTogether: deployedTogether)
            idx.automations[a].sourceCandidates = beside
            let candidates = beside.map { idx.gitRepositories[$0] }
            // (flux bootstrap's source of the name, where no other of the name is beside the automation)
            let bootstrapped = bootstrapSources.contains(where: { $0.name == name && FluxIndex.sameNamespace($0.namespace, ns) })
                && (beside.count == named.count || beside.contains { Path.basename(files[objects[idx.gitRepositories[$0].object].file].path) == "gotk-sync.yaml" })
            if candidates.contains(where: { c in c.spec.url.flatMap(Model.repositoryPath).map(here.contains) ?? false }) || bootstrapped {
                idx.automations[a].source = .here
            } else if !candidates.isEmpty, Set(idx.gitRepositories.map { $0.spec.url.flatMap(Model.gitURLKey) ?? "?\($0.name)" }).count == 1,
                      remotes.isEmpty || candidates.contains(where: { c in c.spec.url.flatMap(Model.repositoryPath).map { url in
                          remotes.contains { Path.basename($0) == Path.basename(url) } } ?? false }) {
                // the repository's one GitRepository, taken to be this one where the clone has no remote to say, or one of
                // the same name (a fork, a mirror): not where its remotes name another (theartusz/demo-cluster-gitops-system's
                // automation updates the -apps repository)
                idx.automations[a].source = .assumed
            }
        }
        let sourceless = idx.automations.indices.filter { a in
            idx.automations[a].source == .unknown && !idx.automations[a].unresolved && !idx.automations[a].paths.isEmpty
                && idx.source(of: idx.automations[a]) == nil
        }
        if !sourceless.isEmpty {
            let held = pathsHoldingFiles(among: Set(sourceless.flatMap { idx.automations[$0].paths }), files.map(\.path))
            for a in sourceless { idx.automations[a].mayUpdateElsewhere = !idx.automations[a].paths.contains { $0.isEmpty || held.contains($0) } }
        }
        for (k, policy) in idx.policies.withIDs {
            if let ref = policy.spec.repositoryName {
                // a namespace written with `${…}`, as the builds that apply the policy make it (any, when they cannot be known)
                var namespace = policy.spec.repositoryNamespace ?? policy.namespace
                if let written = policy.spec.repositoryNamespace, written.containsBytes("${") {
                    let made = expand(written, objects[policy.object].file).map(Self.distinctTexts)
                    namespace = made?.count == 1 ? made![0] : nil
                }
                // of several of its name: a deployed one, one deployed with the policy, then the policy's environment's
                var candidates = idx.repositories(namespace: namespace, name: ref.value)
                let file = objects[policy.object].file
                if candidates.count > 1 {
                    let deployed = candidates.filter { notDeployed(objects[idx.repositories[$0].object].file) == nil }
                    if !deployed.isEmpty { candidates = deployed }
                }
                if candidates.count > 1 {
                    let together = candidates.filter { deployedTogether(file, idx.repositories[$0].object) }
                    if !together.isEmpty { candidates = together }
                }
                let repository = candidates.isEmpty ? nil
                    : FluxIndex.preferring(policy.environment, candidates) { idx.repositories[$0].environment }
                idx.policies[k] = Policy(object: policy.object, namespace: policy.namespace, name: policy.name, spec: policy.spec,
                                         labels: policy.labels, addedLabels: policy.addedLabels, environment: policy.environment, regex: policy.regex,
                                         regexError: policy.regexError, repository: repository)
            }
        }
        var contestedListed = Set<[PolicyID]>()  // each set of candidates once: many markers of a shared base name one
        var updatingAt: [Key: Set<String?>] = [:]
        var infos = Table<MarkerID, MarkerInfo>()
        infos.reserveCapacity(markers.count)
        for k in markers.indices {
            // (the marker's fields read in place: a copy of it retained and released all it holds)
            let (file, context) = (markers[k].file, markers[k].context)
            var info = MarkerInfo(environment: markerEnvironment[k])
            info.ref = markers[k].ref
            info.problem = markers[k].problem
            if let ref = markers[k].ref {
                // a policy only in files known not to be deployed is none Flux has; of several policies of one name,
                // those the marker's builds deploy
                var all = idx.policies(namespace: ref.namespace, name: ref.name)
                let deployed = all.filter { notDeployed(objects[idx.policies[$0].object].file) == nil }
                if deployed.isEmpty, let first = all.first {
                    info.undeployed = (first, notDeployed(objects[idx.policies[first].object].file)!)
                }
                all = deployed
                if all.count > 1 {
                    let own = all.filter { deployedTogether(file, idx.policies[$0].object) }
                    if !own.isEmpty { all = own }
                }
                var environment = markerEnvironment[k]
                // (the policies this marker may follow depend on its own builds: nothing here is shared between markers)
                if environment == nil, all.count > 1, Set(all.compactMap { idx.policies[$0].environment }).count > 1 {
                    // a field of no environment (a shared base): the environments whose automations update it decide
                    let updating = idx.updatingEnvironments(files[file].path, namespace: ref.namespace, cache: &updatingAt)
                    if updating.count == 1 {
                        environment = updating.first!
                    } else {
                        info.candidates = all
                        info.updatingEnvironments = updating
                    }
                }
                if info.candidates.isEmpty, !all.isEmpty { info.policy = FluxIndex.preferring(environment, all) { idx.policies[$0].environment } }
                if context == .value {
                    if let p = info.policy {
                        idx.uses[p, default: []].append(k)
                    } else if contestedListed.insert(info.candidates).inserted {
                        for p in info.candidates { idx.uses[p, default: []].append(k) }
                    }
                }
            }
            if context == .value, let ref = info.ref, let p = info.policy ?? info.candidates.first {
                if !files[file].fluxCanRead {
                    info.skipped = "Flux skips files that do not parse"
                } else {
                    (info.automations, info.skipped) = idx.automations(applying: ref, policy: p, path: files[file].path)
                }
            } else if context == .value, info.problem != nil {
                // a marker Flux cannot read, in a file it never opens: skipped before it is read
                if !files[file].fluxCanRead {
                    info.skipped = "Flux skips files that do not parse"
                } else if !idx.automationsByPath.isEmpty, idx.covering(files[file].path).isEmpty {
                    info.skipped = idx.outsideEveryPath()
                }
            }
            infos.append(info)
        }
        return (idx, infos)
    }

    /// Notes the automations of this repository that check out another branch than `checkout`'s, where the checkout is on
    /// the repository's line (its default branch, or one of `hereBranches`, those a GitRepository of it reads), not a
    /// feature branch that will merge into theirs; and what the clone has of that branch under their paths
    /// (flux2-multi-tenancy's tenants, each on a branch of its own).
    mutating func readOtherBranches(_ checkout: Checkout, hereBranches: Set<String>) {
        guard let line = checkout.line(among: hereBranches) else { return }
        for a in automations.indices where automations[a].source != .unknown {
            let spec = automations[a].spec
            guard let branch = spec.hasCheckoutRef ? spec.checkoutBranch : source(of: automations[a])?.fetchedBranch,
                  branch != line else { continue }
            automations[a].otherBranch = branch
            for p in automations[a].paths where !p.isEmpty {
                if let holds = checkout.manifestsUnder?(branch, p) { automations[a].otherBranchHolds[p] = holds }
            }
        }
    }

    /// The ImageUpdateAutomations that apply a marker in `path` naming policy `p`; when none does (and the repository
    /// has automations), why.
    func automations(applying ref: MarkerRef, policy p: PolicyID, path: String) -> (applying: [AutomationID], whyNone: String?) {
        guard !automationsByPath.isEmpty else { return ([], nil) }
        let covering = covering(path)
        if covering.isEmpty { return ([], outsideEveryPath()) }
        let sameNamespace = covering.filter { FluxIndex.sameNamespace(automations[$0].namespace, ref.namespace) }
        if sameNamespace.isEmpty {
            let namespaces = Set(covering.compactMap { automations[$0].namespace }).sorted().joined(separator: ", ")
            return ([], "policy namespace \(ref.namespace) is not the namespace of the automations that update this file (\(namespaces)); Flux only uses policies in an automation's own namespace")
        }
        let selecting = sameNamespace.filter { selectorTakes(automation: $0, policy: p) }
        if selecting.isEmpty {
            return ([], "policy \(policies[p].namespace ?? "<no namespace>")/\(policies[p].name) is not selected by the policySelector of the automations that update this file")
        }
        return (selecting, nil)
    }

    /// Why no automation reads a file that no `update.path` covers; nil where an automation may update another
    /// repository, whose paths say nothing of this one's files.
    func outsideEveryPath() -> String? {
        let judging = automationsByPath.filter { $0.value.contains { !automations[$0].mayUpdateElsewhere } }
        guard !judging.isEmpty else { return nil }
        // written as paths (`./environments`), not names that read like the repository's environments
        let paths = judging.keys.sorted().map { $0.isEmpty ? "." : "./" + $0 }
        return "the file is outside every ImageUpdateAutomation's update.path (\(paths.joined(separator: ", ")))"
    }

    /// Whether automation `a`'s `policySelector` takes policy `p`: no selector takes every policy; `matchLabels` must
    /// all match its labels, as written or as a build that takes it labels it; `matchExpressions`, which Tagwarden does
    /// not evaluate, is taken to take it.
    package func selectorTakes(automation a: AutomationID, policy p: PolicyID) -> Bool {
        guard let selector = automations[a].spec.policySelector else { return true }
        return automations[a].spec.policySelectorExpressions || FluxIndex.matches(selector, policies[p].labels, orAsLabelled: policies[p].addedLabels)
    }

    /// Whether `labels`, or `labels` with one of `added` set over them, satisfy a selector's `matchLabels`.
    public static func matches(_ selector: [String: String], _ labels: [String: String], orAsLabelled added: [[String: String]]) -> Bool {
        matches(selector, labels) || added.contains { matches(selector, labels.merging($0) { _, new in new }) }
    }

    /// Whether `labels` satisfy a selector's `matchLabels` (an empty selector matches everything).
    public static func matches(_ selector: [String: String], _ labels: [String: String]) -> Bool {
        selector.allSatisfy { labels[$0.key] == $0.value }
    }
}

extension Environment {
    /// The tags this environment owns: its tag pattern when set, else its prefix; nil when it has neither.
    public var language: TagLanguage? {
        if let re = tagRegex { return .matching(re) }
        if let p = tagPrefix { return .prefix(p) }
        return nil
    }
}
