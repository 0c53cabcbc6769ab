import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// The fields of Flux objects that the rules read.
public struct ImagePolicySpec: Sendable, Equatable {
    public var repositoryName: Located?
    public var repositoryNamespace: String?
    public var hasFilterTags = false
    public var pattern: Located?
    public var extract: Located?
    public var semverRange: Located?
    public var alphabeticalOrder: Located?
    public var numericalOrder: Located?
    public var hasAlphabetical = false
    public var hasNumerical = false
    /// `digestReflectionPolicy` and `interval`, where they are (the API server checks them together).
    public var digestReflectionField: Located?
    public var interval: Located?
    /// (Inlinable, as `reflectsDigests`: a rule that asks it of a policy reads the field, not a copy of the whole spec.)
    @inlinable public var digestReflection: String? { digestReflectionField.flatMap { $0.type == .null ? nil : $0.value } }
    /// Where `spec.policy` is; nil when there is none. In `policyFile` when a patch supplied it.
    public var policySpan: SourceSpan?
    public var policyFile: FileID?
    /// `spec.policy`'s place, for findings.
    public var policyField: Located? { policySpan.map { Located(value: "", span: $0, type: .null, file: policyFile) } }

    /// The policy reports the selected tag's digest (`status.latestRef.digest`) only with
    /// `digestReflectionPolicy` `IfNotPresent` or `Always`; the default is `Never`.
    @inlinable public var reflectsDigests: Bool { digestReflection == "IfNotPresent" || digestReflection == "Always" }
}

public struct ImageRepositorySpec: Sendable, Equatable {
    public var image: Located?
    /// `accessFrom.namespaceSelectors[].matchLabels`; nil when there is no `accessFrom`.
    public var accessSelectors: [[String: String]]?
    public var exclusionList: [Located]?
    public var interval: Located?
    public var timeout: Located?
    /// `spec.insecure: true`: the registry speaks plain HTTP.
    public var insecure = false
    /// `spec.secretRef.name` and `spec.provider`: credentials Tagwarden cannot read outside the cluster.
    public var secretRef: String?
    public var provider: String?
}

public struct AutomationSpec: Sendable, Equatable {
    public var sourceKind: String?
    public var sourceName: Located?
    public var sourceNamespace: String?
    public var checkoutBranch: String?
    public var pushBranch: Located?
    public var messageTemplate: Located?
    public var updatePath: Located?
    public var policySelector: [String: String]?
    public var policySelectorExpressions: Bool = false
    public var hasGit = false
    /// `git.checkout.ref` is given (with or without a branch).
    public var hasCheckoutRef = false
    public var strategy: Located?
    public var interval: Located?
    /// Its GitRepository is another repository: `update.path` is a path of that one, and no file here is updated.
    public var updatesElsewhere = false
    /// `spec.suspend: true`: Flux does not run it.
    public var suspended = false
    /// `git.commit.author`.
    public var authorName: String?
    public var authorEmail: String?
    /// `git.commit.messageTemplateValues`.
    public var messageTemplateValues: [String: String] = [:]
    /// `git.push.refspec` and `git.push.options`.
    public var pushRefspec: String?
    public var pushOptions: [String: String] = [:]
}

public struct GitRepositorySpec: Sendable {
    /// `spec.ref.branch`, the one field image-automation-controller takes a push branch from.
    public var branch: String?
    /// The branch source-controller fetches: `spec.ref.name` as `refs/heads/…` (which ranks above a semver and a tag),
    /// else `spec.ref.branch`; nil where a fixed revision is fetched.
    public var fetchedBranch: String?
    /// The branch a Git reference name (`ref.name`, a FluxInstance's `sync.ref`) reads: `refs/heads/main` is main; nil
    /// for any other, a fixed revision (`refs/tags/v1`, `refs/pull/7/head`).
    public static func branch(ofRefName ref: String) -> String? {
        ref.hasPrefix("refs/heads/") ? String(ref.dropFirst("refs/heads/".count)) : nil
    }
    public var url: String?
    /// `spec.ref` is given (with or without a branch).
    public var hasRef = false
    /// The fixed revision `spec.ref` names instead of a branch, as Flux ranks them (commit, name, semver, tag):
    /// `tag crossplane-1.4.5`; nil for a branch or none.
    public var pinnedRef: String?
    /// `spec.ignore`: gitignore patterns source-controller leaves out of the artifact, after its defaults and the
    /// repository's `.sourceignore`.
    public var ignore: String?
    /// `spec.include[].toPath` (the included GitRepository's name where none is given), rooted: where source-controller
    /// copies another repository's artifact into this one's.
    public var includePaths: [String] = []
}

public struct FluxKustomizationSpec: Sendable {
    public var path: String?
    /// Where `path` is written.
    public var pathSpan: SourceSpan?
    /// `spec.suspend: true`: Flux applies nothing of it, no change since it was suspended.
    public var suspended = false
    /// Its GitRepository reads another revision of this repository (a tag, a commit, a branch other than the checkout's
    /// line), which need not hold the files as they are here: how a premise says so (`tag v1.2 of GitRepository
    /// fleet`); nil otherwise.
    public var pinnedRevision: String?
    /// The branch of this repository that revision is, other than the checkout's; nil for a tag, a commit or none.
    public var pinnedBranch: String?
    /// Its GitRepository is one no file here defines (neither written nor made by a FluxInstance's sync), in a repository
    /// that names its own: made outside the repository, it may read this one or another (arjansiemons/homelab's `homelab`).
    public var sourceUndefined = false
    /// Why what only it applies is applied as it is here by assumption, after "which": nil where only suspension is.
    public var revisionPremise: String? {
        if let pinnedRevision { return "builds \(pinnedRevision), not this checkout: assuming that revision holds this file as it is here" }
        if sourceUndefined, let source {
            return "reads GitRepository \(source.name), which no file here defines: assuming it is this repository, as the checkout has it"
        }
        return nil
    }
    public var targetNamespace: String?
    /// `spec.decryption` is written: kustomize-controller decrypts SOPS-encrypted Secrets of its build. Without, it
    /// refuses the whole build for one.
    public var decrypts = false
    /// `spec.sourceRef`; nil when there is none.
    public var source: SourceRef?

    public struct SourceRef: Sendable, Hashable {
        /// "" when not given (a GitRepository).
        public var kind: String
        /// nil when not given: the Kustomization's own namespace.
        public var namespace: String?
        public var name: String

        /// A GitRepository (the kind given or left out), whose paths are those of a repository's tree.
        public var isGitRepository: Bool { kind.isEmpty || kind == "GitRepository" }
    }
    /// `spec.components`, as written (relative to `path`): Flux appends them to the kustomization it builds there.
    public var components: [String] = []
    /// `spec.components` as the repository's directories, under `path` as written.
    var componentDirectories: [String] {
        guard let path else { return [] }
        return components.compactMap { Model.normalizePath(Sources.join(path, $0)) }
    }
    /// `spec.namePrefix` and `spec.nameSuffix` (Flux 2.5 and later): Flux writes them over the kustomization's own
    /// at its `path`.
    public var namePrefix: String?
    public var nameSuffix: String?
    /// The `path` of a Kustomization of an artifact (an OCIRepository, a Bucket, an ExternalArtifact): of the
    /// artifact, which CI often makes of a directory of this repository (`kubernetes/`); `path` is nil then.
    public var artifactPath: String?
    /// `spec.kubeConfig`: the Secret (`secretRef`) or ConfigMap (`configMapRef`, in the Kustomization's namespace) that
    /// says which cluster its build is applied to, another than the one that applies the Kustomization; nil when none.
    public var kubeConfig: (kind: String, name: String)?
    /// `spec.postBuild`; nil when there is none.
    public var postBuild: PostBuild?
    /// A `spec.patches` patch that sets `postBuild`: the Kustomizations this one applies get variables their
    /// files do not show (a common way to give every app the cluster's settings).
    public var patchesPostBuild = false

    /// Variables Flux substitutes for `${…}` in what the Kustomization builds.
    public struct PostBuild: Sendable {
        /// `substitute`: inline values, which win over every source.
        public var substitute: [String: String] = [:]
        /// `substituteFrom`, in order: a later source's value wins over an earlier one's.
        public var substituteFrom: [Source] = []
        /// Flux substitutes only when at least one variable or source is given.
        public var isActive: Bool { !substitute.isEmpty || !substituteFrom.isEmpty }
        /// `substitute` values that YAML reads as a number or a boolean: the CRD takes strings only.
        public var notStrings: [Located] = []

        public struct Source: Sendable {
            public var kind: String
            public var name: String
            public var optional: Bool
        }
    }
}

public struct HelmReleaseSpec: Sendable {
    /// `valuesFrom` entries, in order: most bring a whole values document; one with a `targetPath` sets one value.
    public var valuesFrom: [ValuesReference] = []
    /// `chart.spec.valuesFiles` (and the older `valuesFile`) of a chart that comes from a GitRepository: paths from
    /// the root of its source, as written; and the chart's own path there.
    public var valuesFiles: [Located] = []
    public var chartPath: String?
    /// That GitRepository: its name and namespace as written (nil: the release's).
    public var chartSource: (name: String, namespace: String?)?
    /// The values fields the chart completes with a tag of its own (`ChartTags`): a bare image there is not `latest`.
    public var chartTaggedFields: [[String]] = []
    /// The values fields whose value without a `/` the chart completes with a registry and a tag of its own
    /// (`ChartTags.composedNames`): such a value is a name, not `latest`.
    public var chartNamedFields: [[String]] = []

    public struct ValuesReference: Sendable {
        public var kind: String
        public var name: String
        /// The key of the ConfigMap or Secret that holds the values (`values.yaml` unless given).
        public var valuesKey: String
        /// The one value the key's content sets, when given.
        public var targetPath: String?

        /// The entry as one text, `ConfigMap/name/key` (with `@targetPath`): what the order of a release's sources compares.
        public var id: String { Self.id(kind: kind, name: name, valuesKey: valuesKey, targetPath: targetPath) }
        static func id(kind: String, name: String, valuesKey: String, targetPath: String? = nil) -> String {
            kind + "/" + name + "/" + valuesKey + (targetPath.map { "@" + $0 } ?? "")
        }
    }
}

public indirect enum FluxSpec: Sendable {
    case imageRepository(ImageRepositorySpec)
    case imagePolicy(ImagePolicySpec)
    case automation(AutomationSpec)
    case gitRepository(GitRepositorySpec)
    case kustomization(FluxKustomizationSpec)
    /// only for a HelmRelease with `valuesFrom`, a chart in a GitRepository, or a chart `ChartTags` knows
    case helmRelease(HelmReleaseSpec)
    /// the Flux Operator's FluxInstance: the Flux distribution it installs (`spec.distribution.version`, `2.7.x`)
    case fluxInstance(version: Located?)
    /// only for an object whose templates make Flux Kustomizations, which are not read: the Flux Operator's ResourceSet
    /// (its `resources` or `resourcesTemplate`), a GitOpsSet (`templates[].content` or `raw`); with its kind
    case templatesOfKustomizations(kind: String)

    /// Whether `spec.suspend` is a YAML 1.1 true, as Kubernetes reads it (`yes` and `on` too).
    static func suspended(_ y: YAMLFile, _ spec: Int) -> Bool {
        y.get(spec, "suspend").map {
            y.resolvedType($0) == .bool && ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"].contains(y.value($0))
        } ?? false
    }

    static func extract(_ y: YAMLFile, root: Int, group: String, kind: String) -> FluxSpec? {
        // most objects are none of these: their group's end says so before it is compared with each pair below (each
        // group below ends in one of these four)
        guard group.hasBytesSuffix(".fluxcd.io") || group.hasBytesSuffix(".controlplane.io") || group.hasBytesSuffix(".weave.works")
                || group.hasBytesSuffix(".gitops.pro") else { return nil }
        func loc(_ n: Int?) -> Located? {
            guard let n, y.nodes[n].kind == .scalar else { return nil }
            return Located(value: y.value(n), span: y.nodes[n].span, type: y.resolvedType(n))
        }
        func str(_ n: Int?) -> String? {
            guard let n, y.nodes[n].kind == .scalar, !y.isNull(n) else { return nil }
            return y.value(n)
        }
        func labels(_ n: Int?) -> [String: String] {
            var out: [String: String] = [:]
            guard let n else { return out }
            for (k, v) in y.pairs(n) { if let s = str(v) { out[y.value(k)] = s } }
            return out
        }
        let spec = y.get(root, "spec")
        // what templates of Flux Kustomizations name: the group, in text; a Kustomization of it, as an object
        let kustomizationGroup: StaticString = "kustomize.toolkit.fluxcd.io/"
        func isFluxKustomization(_ n: Int) -> Bool {
            str(y.get(n, "kind")) == "Kustomization" && str(y.get(n, "apiVersion"))?.hasPrefix("\(kustomizationGroup)") == true
        }
        switch (group, kind) {
        case ("image.toolkit.fluxcd.io", "ImageRepository"):
            var r = ImageRepositorySpec()
            r.image = loc(spec.flatMap { y.get($0, "image") })
            r.interval = loc(spec.flatMap { y.get($0, "interval") })
            r.timeout = loc(spec.flatMap { y.get($0, "timeout") })
            r.insecure = spec.flatMap { y.get($0, "insecure") }.map { y.resolvedType($0) == .bool && ["true", "True", "TRUE"].contains(y.value($0)) } ?? false
            r.secretRef = str(spec.flatMap { y.get($0, "secretRef", "name") })
            r.provider = str(spec.flatMap { y.get($0, "provider") })
            if let af = spec.flatMap({ y.get($0, "accessFrom") }) {
                var selectors: [[String: String]] = []
                if let ns = y.get(af, "namespaceSelectors") {
                    for sel in y.childNodes(ns) { selectors.append(labels(y.get(sel, "matchLabels"))) }
                }
                r.accessSelectors = selectors
            }
            if let ex = spec.flatMap({ y.get($0, "exclusionList") }), y.nodes[ex].kind == .sequence {
                r.exclusionList = y.childNodes(ex).compactMap { loc($0) }
            }
            return .imageRepository(r)
        case ("image.toolkit.fluxcd.io", "ImagePolicy"):
            var p = ImagePolicySpec()
            guard let spec else { return .imagePolicy(p) }
            if let ref = y.get(spec, "imageRepositoryRef") {
                p.repositoryName = loc(y.get(ref, "name"))
                p.repositoryNamespace = str(y.get(ref, "namespace"))
            }
            if let ft = y.get(spec, "filterTags") {
                p.hasFilterTags = true
                p.pattern = loc(y.get(ft, "pattern"))
                p.extract = loc(y.get(ft, "extract"))
            }
            if let pol = y.get(spec, "policy") {
                p.policySpan = y.nodes[pol].span
                if let sv = y.get(pol, "semver") { p.semverRange = loc(y.get(sv, "range")) ?? Located(value: "", span: y.nodes[sv].span, type: .null) }
                if let a = y.get(pol, "alphabetical") { p.hasAlphabetical = true; p.alphabeticalOrder = loc(y.get(a, "order")) }
                if let n = y.get(pol, "numerical") { p.hasNumerical = true; p.numericalOrder = loc(y.get(n, "order")) }
            }
            p.digestReflectionField = loc(y.get(spec, "digestReflectionPolicy"))
            p.interval = loc(y.get(spec, "interval"))
            return .imagePolicy(p)
        case ("image.toolkit.fluxcd.io", "ImageUpdateAutomation"):
            var a = AutomationSpec()
            guard let spec else { return .automation(a) }
            if let src = y.get(spec, "sourceRef") {
                a.sourceKind = str(y.get(src, "kind"))
                a.sourceName = loc(y.get(src, "name"))
                a.sourceNamespace = str(y.get(src, "namespace"))
            }
            a.interval = loc(y.get(spec, "interval"))
            a.suspended = suspended(y, spec)
            if let git = y.get(spec, "git") {
                a.hasGit = true
                a.authorName = str(y.get(git, "commit", "author", "name"))
                a.authorEmail = str(y.get(git, "commit", "author", "email"))
                a.pushRefspec = str(y.get(git, "push", "refspec"))
                a.pushOptions = labels(y.get(git, "push", "options"))
                a.hasCheckoutRef = y.get(git, "checkout", "ref") != nil
                a.checkoutBranch = str(y.get(git, "checkout", "ref", "branch"))
                a.pushBranch = loc(y.get(git, "push", "branch"))
                a.messageTemplate = loc(y.get(git, "commit", "messageTemplate"))
                a.messageTemplateValues = labels(y.get(git, "commit", "messageTemplateValues"))
            }
            // v1alpha1 (Flux before 0.10): `checkout` and `commit` where later versions have `sourceRef` and `git`
            if a.sourceName == nil, let checkout = y.get(spec, "checkout") {
                a.sourceKind = "GitRepository"
                a.sourceName = loc(y.get(checkout, "gitRepositoryRef", "name"))
                a.checkoutBranch = str(y.get(checkout, "branch"))
                a.hasCheckoutRef = a.checkoutBranch != nil
            }
            if !a.hasGit, let commit = y.get(spec, "commit") {
                a.hasGit = true
                a.authorName = str(y.get(commit, "authorName"))
                a.authorEmail = str(y.get(commit, "authorEmail"))
                a.messageTemplate = loc(y.get(commit, "messageTemplate"))
            }
            if let upd = y.get(spec, "update") {
                a.updatePath = loc(y.get(upd, "path"))
                a.strategy = loc(y.get(upd, "strategy"))
            }
            if let sel = y.get(spec, "policySelector") {
                a.policySelector = labels(y.get(sel, "matchLabels"))
                a.policySelectorExpressions = y.get(sel, "matchExpressions") != nil
            }
            return .automation(a)
        case ("source.toolkit.fluxcd.io", "GitRepository"):
            let ref = spec.flatMap { y.get($0, "ref") }
            func field(_ name: StaticString) -> String? { ref.flatMap { str(y.get($0, name)) }.flatMap { $0.isEmpty ? nil : $0 } }
            func pinned(_ name: StaticString) -> String? { field(name).map { "\(name) \($0)" } }
            let branch = field("branch"), commit = pinned("commit"), name = field("name")
            // (`name: refs/heads/main` is a branch, and ranks above a semver and a tag)
            let headsName = name.flatMap(GitRepositorySpec.branch(ofRefName:))
            let pinnedRef = commit ?? (name == nil ? pinned("semver") ?? pinned("tag") : headsName == nil ? "name \(name!)" : nil)
            let includes = spec.flatMap { y.get($0, "include") }.map { y.childNodes($0) } ?? []
            return .gitRepository(GitRepositorySpec(branch: branch, fetchedBranch: pinnedRef == nil ? headsName ?? branch : nil,
                                                    url: str(spec.flatMap { y.get($0, "url") }),
                                                    hasRef: ref != nil,
                                                    pinnedRef: pinnedRef,
                                                    ignore: str(spec.flatMap { y.get($0, "ignore") }),
                                                    includePaths: includes.compactMap { i in
                                                        (str(y.get(i, "toPath")) ?? str(y.get(i, "repository", "name"))).map(Model.rootedPath)
                                                    }))
        case ("kustomize.toolkit.fluxcd.io", "Kustomization"):
            // Flux joins the path to the source's root securely: `..` above the root stays at the root
            var k = FluxKustomizationSpec(path: str(spec.flatMap { y.get($0, "path") }).map(Model.rootedPath),
                                          targetNamespace: str(spec.flatMap { y.get($0, "targetNamespace") }))
            if let src = spec.flatMap({ y.get($0, "sourceRef") }) {
                k.source = .init(kind: str(y.get(src, "kind")) ?? "", namespace: str(y.get(src, "namespace")), name: str(y.get(src, "name")) ?? "")
            }
            k.pathSpan = loc(spec.flatMap { y.get($0, "path") })?.span
            if let config = spec.flatMap({ y.get($0, "kubeConfig") }) {
                k.kubeConfig = str(y.get(config, "secretRef", "name")).map { ("Secret", $0) }
                    ?? str(y.get(config, "configMapRef", "name")).map { ("ConfigMap", $0) }
            }
            if let list = spec.flatMap({ y.get($0, "components") }) { k.components = y.childNodes(list).compactMap(str) }
            k.suspended = spec.map { suspended(y, $0) } ?? false
            k.decrypts = spec.flatMap { y.get($0, "decryption") } != nil
            k.namePrefix = str(spec.flatMap { y.get($0, "namePrefix") }).flatMap { $0.isEmpty ? nil : $0 }
            k.nameSuffix = str(spec.flatMap { y.get($0, "nameSuffix") }).flatMap { $0.isEmpty ? nil : $0 }
            if let pb = spec.flatMap({ y.get($0, "postBuild") }), y.nodes[pb].kind == .mapping {
                var post = FluxKustomizationSpec.PostBuild()
                if let sub = y.get(pb, "substitute") {
                    for (key, value) in y.pairs(sub) {
                        let v = y.resolved(value)   // `APP: *app`: the anchored value
                        if let s = str(v) { post.substitute[y.value(key)] = s }
                        if let l = loc(v), l.type != .string, l.type != .null { post.notStrings.append(l) }
                    }
                }
                if let from = y.get(pb, "substituteFrom") {
                    for item in y.childNodes(from) {
                        guard let kind = str(y.get(item, "kind")), let name = str(y.get(item, "name")) else { continue }
                        post.substituteFrom.append(.init(kind: kind, name: name, optional: str(y.get(item, "optional")) == "true"))
                    }
                }
                k.postBuild = post
            }
            if let patches = spec.flatMap({ y.get($0, "patches") }) {
                k.patchesPostBuild = y.childNodes(patches).contains { str(y.get($0, "patch"))?.containsBytes("postBuild") == true }
            }
            return .kustomization(k)
        case ("helm.toolkit.fluxcd.io", "HelmRelease"):
            var h = HelmReleaseSpec()
            if let from = spec.flatMap({ y.get($0, "valuesFrom") }) {
                for item in y.childNodes(from) {
                    guard let kind = str(y.get(item, "kind")), let name = str(y.get(item, "name")) else { continue }
                    h.valuesFrom.append(.init(kind: kind, name: name, valuesKey: str(y.get(item, "valuesKey")) ?? "values.yaml",
                                              targetPath: str(y.get(item, "targetPath"))))
                }
            }
            if let chart = spec.flatMap({ y.get($0, "chart", "spec") }) {
                if str(y.get(chart, "sourceRef", "kind")) == "GitRepository" {
                    let list = y.get(chart, "valuesFiles").map { y.childNodes($0).map { $0 } } ?? []
                    h.valuesFiles = (list + [y.get(chart, "valuesFile")].compactMap { $0 }).compactMap(loc)
                    h.chartPath = str(y.get(chart, "chart"))
                    h.chartSource = str(y.get(chart, "sourceRef", "name")).map { ($0, str(y.get(chart, "sourceRef", "namespace"))) }
                }
                if let name = str(y.get(chart, "chart")) {
                    h.chartTaggedFields = ChartTags.completedFields(chart: name, version: str(y.get(chart, "version")))
                    h.chartNamedFields = ChartTags.composedNames[name] ?? []
                }
            }
            return h.valuesFrom.isEmpty && h.valuesFiles.isEmpty && h.chartPath == nil && h.chartTaggedFields.isEmpty && h.chartNamedFields.isEmpty
                ? nil : .helmRelease(h)
        case ("fluxcd.controlplane.io", "FluxInstance"):
            return .fluxInstance(version: loc(spec.flatMap { y.get($0, "distribution", "version") }))
        case ("fluxcd.controlplane.io", "ResourceSet"):
            // `resources` as objects; `resourcesTemplate` as the text its inputs are written into (read as text, as it is)
            let listed = spec.flatMap { y.get($0, "resources") }.map { y.childNodes($0) } ?? []
            let makes = listed.contains(where: isFluxKustomization)
                || str(spec.flatMap { y.get($0, "resourcesTemplate") })?.containsBytes(kustomizationGroup) == true
            return makes ? .templatesOfKustomizations(kind: kind) : nil
        case ("templates.weave.works", "GitOpsSet"), ("sets.gitops.pro", "GitOpsSet"):
            // Weave GitOps' GitOpsSet and its successor's: each template's `content` an object, or `raw` text
            let templates = spec.flatMap { y.get($0, "templates") }.map { y.childNodes($0) } ?? []
            let makes = templates.contains { t in
                y.get(t, "content").map(isFluxKustomization) == true
                    || str(y.get(t, "raw"))?.containsBytes(kustomizationGroup) == true
            }
            return makes ? .templatesOfKustomizations(kind: kind) : nil
        default:
            return nil
        }
    }
}
