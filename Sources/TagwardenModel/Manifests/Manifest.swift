import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// What one file contributes to the model, extracted from its YAML tree in one pass. Files are
/// extracted in parallel; the tree is dropped afterwards.

public struct ObjectRef: Sendable, Hashable {
    public var apiVersion: String
    public var kind: String
    public var namespace: String?
    public var name: String?
}

/// Model elements are classes: rules read them from many places and threads, and a class is shared by
/// one reference where a struct of a dozen strings would be copied field by field.
public final class ManifestObject: Sendable {
    public let file: FileID
    public let document: Int
    public let apiVersion: String
    public let kind: String
    public let name: String?
    /// `metadata.namespace` as written.
    public let declaredNamespace: String?
    /// Where object-level findings point: the `kind` value.
    public let kindSpan: SourceSpan
    public let apiVersionSpan: SourceSpan?
    public let labels: [String: String]
    /// A kustomize kustomization file (by name or by kind).
    public let isKustomization: Bool
    /// kustomization `namespace:`; `resources:` entries as written.
    public let kustomizeNamespace: String?
    /// A builtin NamespaceTransformer written inline under `transformers:`: its namespace, and whether it sets only
    /// objects that have none (`unsetOnly`). kustomize runs it after the kustomization's own `namespace:`.
    public let kustomizeNamespaceTransformer: NamespaceTransformer?
    public struct NamespaceTransformer: Sendable, Hashable { public let namespace: String, unsetOnly: Bool }
    /// kustomization `namePrefix:` and `nameSuffix:`.
    public let kustomizeNamePrefix: String?
    public let kustomizeNameSuffix: String?
    public let kustomizeResources: [String]
    /// Patch files a kustomization names (`patches[].path`, `patchesStrategicMerge`, `patchesJson6902[].path`), where
    /// they are written.
    public let kustomizePatchEntries: [Located]
    public var kustomizePatches: [String] { kustomizePatchEntries.map(\.value) }
    /// The `images:` entries of a kustomization or of a Flux Kustomization's `spec.images`, in order: kustomize
    /// applies them one after another, each to the images whose name is its `name` as written at that point.
    public let kustomizeImages: [KustomizeImageEntry]
    /// What a kustomization does that Tagwarden does not follow.
    public let kustomizeUnknowns: KustomizeUnknowns

    /// What a kustomization does that Tagwarden does not follow, by what it may change in the build.
    public struct KustomizeUnknowns: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Resources that are not files of the repository: Helm charts, generator plugins, remote resources.
        public static let resources = KustomizeUnknowns(rawValue: 1)
        /// Transformer plugins (`transformers:`), which may change any field.
        public static let transformers = KustomizeUnknowns(rawValue: 2)
        /// `replacements:`, which copy values into fields (and may create them).
        public static let replacements = KustomizeUnknowns(rawValue: 4)
        /// A `secretGenerator`, whose Secrets Tagwarden does not read.
        public static let secrets = KustomizeUnknowns(rawValue: 8)
    }
    /// Flux objects: the fields rules need, by object kind.
    public let flux: FluxSpec?
    /// The API group (`apps` of `apps/v1`; empty for the core group).
    public let group: String
    /// A ConfigMap's `data` (its string values), which a Flux Kustomization's `substituteFrom` may read.
    public let configData: [String: String]?
    /// Labelled or annotated `kustomize.toolkit.fluxcd.io/substitute: disabled`: Flux leaves its `${…}` as written.
    public let substitutionDisabled: Bool
    /// A kustomization's `configMapGenerator` entries made from files.
    public let configMapGenerators: [ConfigMapGenerator]
    /// Files a kustomization names as kustomize's own configuration (`transformers`, `generators`, `validators`,
    /// `configurations`): transformer and generator configs, not resources of the cluster.
    public let kustomizeConfigFiles: [String]
    /// A kustomization with patches (of any kind, inline ones too) or `components`: what its resources give may leave
    /// it renamed, changed or removed.
    public let kustomizeChangesResources: Bool
    /// A CustomResourceDefinition: the kind it defines, whether that kind is cluster-scoped, the versions it serves.
    public let definition: CustomResource?
    /// The bytes of the object's document (its root node), to tell identical copies from different objects.
    public let byteRange: Range<Int>

    public struct CustomResource: Sendable {
        public var group: String
        public var kind: String
        public var clusterScoped: Bool
        public var served: [String]
    }

    public struct ConfigMapGenerator: Sendable {
        public var name: String
        public var namespace: String?
        /// (key, path as written): `key=path`, or the path's file name as the key.
        public var files: [(key: String, path: String)]
        /// `behavior: replace`: the ConfigMap a base generates is this one's alone.
        public var replaces = false
        /// The keys of its `literals` (`key=value`).
        public var literalKeys: [String] = []
    }

    /// `group`: `apiVersion`'s, where the caller has it already.
    init(file: FileID, document: Int, apiVersion: String, group: String? = nil, kind: String, kindSpan: SourceSpan, apiVersionSpan: SourceSpan?,
         name: String?, declaredNamespace: String?, labels: [String: String], isKustomization: Bool, kustomizeNamespace: String?,
         kustomizeResources: [String], kustomizePatchEntries: [Located] = [], kustomizeImages: [KustomizeImageEntry] = [],
         kustomizeUnknowns: KustomizeUnknowns = [], flux: FluxSpec?,
         configData: [String: String]? = nil, substitutionDisabled: Bool = false, configMapGenerators: [ConfigMapGenerator] = [],
         kustomizeConfigFiles: [String] = [], definition: CustomResource? = nil, byteRange: Range<Int> = 0..<0,
         kustomizeNamePrefix: String? = nil, kustomizeNameSuffix: String? = nil, kustomizeChangesResources: Bool = false,
         kustomizeNamespaceTransformer: NamespaceTransformer? = nil) {
        self.file = file
        self.document = document
        self.apiVersion = apiVersion
        self.kind = kind
        self.kindSpan = kindSpan
        self.apiVersionSpan = apiVersionSpan
        self.name = name
        self.declaredNamespace = declaredNamespace
        self.labels = labels
        self.isKustomization = isKustomization
        self.kustomizeNamespace = kustomizeNamespace
        self.kustomizeNamespaceTransformer = kustomizeNamespaceTransformer
        self.kustomizeResources = kustomizeResources
        self.kustomizePatchEntries = kustomizePatchEntries
        self.kustomizeImages = kustomizeImages
        self.kustomizeUnknowns = kustomizeUnknowns
        self.flux = flux
        self.configData = configData
        self.substitutionDisabled = substitutionDisabled
        self.configMapGenerators = configMapGenerators
        self.kustomizeConfigFiles = kustomizeConfigFiles
        self.definition = definition
        self.byteRange = byteRange
        self.kustomizeNamePrefix = kustomizeNamePrefix
        self.kustomizeNameSuffix = kustomizeNameSuffix
        self.kustomizeChangesResources = kustomizeChangesResources
        self.group = group ?? ManifestObject.group(of: apiVersion)
    }

    /// A Flux Kustomization (without copying its fields out, as `fluxKustomization` does).
    package var isFluxKustomization: Bool {
        if case .kustomization? = flux { return true }
        return false
    }

    /// A Flux Kustomization's fields; nil for any other object.
    package var fluxKustomization: FluxKustomizationSpec? {
        if case .kustomization(let k)? = flux { return k }
        return nil
    }

    /// The same object with other Flux fields.
    func replacingFlux(_ flux: FluxSpec?) -> ManifestObject { copy(flux: flux, name: name) }

    /// The same object under the name the cluster gets (a kustomization's `namePrefix` and `nameSuffix`).
    func renamed(_ name: String?) -> ManifestObject { copy(flux: flux, name: name) }

    /// The same object as a build deploys it (`EffectiveObjects`).
    func effective(name: String?, labels: [String: String], flux: FluxSpec?) -> ManifestObject { copy(flux: flux, name: name, labels: labels) }

    /// The same object in the file at place `file` of another listing (`SharedExtraction`).
    func moved(to file: FileID) -> ManifestObject { copy(flux: flux, name: name, file: file) }

    private func copy(flux: FluxSpec?, name: String?, labels: [String: String]? = nil, file: FileID? = nil) -> ManifestObject {
        ManifestObject(file: file ?? self.file, document: document, apiVersion: apiVersion, group: group, kind: kind, kindSpan: kindSpan,
                       apiVersionSpan: apiVersionSpan, name: name, declaredNamespace: declaredNamespace, labels: labels ?? self.labels,
                       isKustomization: isKustomization, kustomizeNamespace: kustomizeNamespace, kustomizeResources: kustomizeResources,
                       kustomizePatchEntries: kustomizePatchEntries, kustomizeImages: kustomizeImages, kustomizeUnknowns: kustomizeUnknowns, flux: flux,
                       configData: configData, substitutionDisabled: substitutionDisabled, configMapGenerators: configMapGenerators,
                       kustomizeConfigFiles: kustomizeConfigFiles, definition: definition, byteRange: byteRange,
                       kustomizeNamePrefix: kustomizeNamePrefix, kustomizeNameSuffix: kustomizeNameSuffix,
                       kustomizeChangesResources: kustomizeChangesResources, kustomizeNamespaceTransformer: kustomizeNamespaceTransformer)
    }

    /// `apps` of `apps/v1`; empty for the core group (`v1`).
    static func group(of apiVersion: String) -> String {
        var text = apiVersion
        return text.withUTF8 { b in
            guard let slash = b.firstIndex(of: UInt8(ascii: "/")) else { return "" }
            return String(decoding: UnsafeBufferPointer(rebasing: b[..<slash]), as: UTF8.self)
        }
    }

    /// The apiVersions most manifests have, with their UTF-8 lengths and groups: literals, which an object takes instead of
    /// strings made for it (an allocation for each over 15 bytes).
    static let commonAPIVersions: [(string: String, count: Int)] = commonGroupOfAPIVersion.map { ($0.0, $0.0.utf8.count) }
    static let commonGroupOfAPIVersion = [
        ("v1", ""), ("apps/v1", "apps"), ("batch/v1", "batch"), ("networking.k8s.io/v1", "networking.k8s.io"),
        ("rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io"), ("kustomize.config.k8s.io/v1beta1", "kustomize.config.k8s.io"),
        ("kustomize.config.k8s.io/v1alpha1", "kustomize.config.k8s.io"), ("kustomize.toolkit.fluxcd.io/v1", "kustomize.toolkit.fluxcd.io"),
        ("source.toolkit.fluxcd.io/v1", "source.toolkit.fluxcd.io"), ("source.toolkit.fluxcd.io/v1beta2", "source.toolkit.fluxcd.io"),
        ("helm.toolkit.fluxcd.io/v2", "helm.toolkit.fluxcd.io"), ("image.toolkit.fluxcd.io/v1", "image.toolkit.fluxcd.io"),
        ("image.toolkit.fluxcd.io/v1beta2", "image.toolkit.fluxcd.io"), ("notification.toolkit.fluxcd.io/v1", "notification.toolkit.fluxcd.io"),
        ("notification.toolkit.fluxcd.io/v1beta3", "notification.toolkit.fluxcd.io"),
    ]
}

/// A scalar's value with its location and YAML type.
public struct Located: Sendable, Equatable {
    public var value: String
    public var span: SourceSpan
    public var type: ScalarType
    /// The file the value is written in when it is not its object's own: a kustomize or Flux patch supplied it.
    public var file: FileID? = nil
}

public enum ImageOrigin: String, Sendable {
    case container, helmImage, helmParts, kustomize, marker
}

/// A kustomize `images:` entry: the images it applies to, and what it does to them.
public struct KustomizeImageEntry: Sendable {
    /// `name`, where it is written.
    public var name: Located
    public var newName: String?
    /// It sets `newTag` or `digest`: the image leaves the build with that tag, whatever its manifest says.
    public var setsTag: Bool

    /// What an entry must give an image for its reference as written not to run: a new tag or digest; for a reference
    /// that does not parse only in its name, a new name will do too (the entry's own image, with the name or tag it
    /// sets, is then the one judged).
    struct Needs: Hashable, Sendable {
        var renameSuffices = false
        /// The image's tag and digest as written (`:latest`), where some entry of the repository names an image with its
        /// tag (`name: bitnami/kubectl:latest`): kustomize matches such a name against the whole reference.
        var writtenSuffix = ""

        /// Whether entry `e`, whose name carries a tag or digest, matches the image called `name` written with
        /// `writtenSuffix` (`nameMatches`).
        func matchesWithTag(_ e: KustomizeImageEntry, name: String) -> Bool {
            !writtenSuffix.isEmpty && e.name.value.utf8.count > name.utf8.count && e.name.value.hasPrefix(name)
                && KustomizeImageEntry.nameMatches(e.name.value, reference: name + writtenSuffix)
        }

        /// What reference `text`, which does not parse, needs; nil when no entry can match it (`kustomizeName`).
        init?(invalid text: String) {
            guard let name = KustomizeImageEntry.kustomizeName(of: text) else { return nil }
            let rest = String(decoding: text.utf8.dropFirst(name.utf8.count), as: UTF8.self)
            if case .failure = ImageReference.parse(name), case .success = ImageReference.parse("x" + rest) { renameSuffices = true }
        }

        init() {}
    }

    /// What the entries, one after another, leave of an image called `name`: nil when one gives it what it `needs`
    /// (a tag or digest), else its name (which a `newName` may have changed, so that later entries for the old name
    /// miss it).
    static func apply(_ entries: [KustomizeImageEntry], to name: String, needs: Needs = Needs()) -> String? {
        var name = name
        for e in entries where e.name.value == name || needs.matchesWithTag(e, name: name) {
            if e.setsTag || needs.renameSuffices && e.newName != nil { return nil }
            if let n = e.newName { name = n }
        }
        return name
    }

    /// Whether an entry called `name` matches `reference` as kustomize's `IsImageMatched` does: the reference is the
    /// name, then an optional `@sha256`, an optional `:` and tag characters, an optional `@sha256:` and digest (the
    /// name compared as written, not as the regular expression kustomize makes of it).
    static func nameMatches(_ name: String, reference: String) -> Bool {
        guard reference.hasPrefix(name) else { return false }
        var rest = Substring(reference.dropFirst(name.count))
        func isTagChar(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || "_.{}-".contains(c)) }
        if rest.hasPrefix("@sha256"), !rest.hasPrefix("@sha256:") { rest = rest.dropFirst(7) }
        if rest.hasPrefix(":") { rest = rest.dropFirst().drop(while: isTagChar) }
        if rest.hasPrefix("@sha256:") { rest = rest.dropFirst(8).drop(while: isTagChar) }
        return rest.isEmpty
    }

    /// The name kustomize's `images:` entries compare with a reference written in one scalar: the text before the first
    /// `:` or `@` from its first `/` on (kustomize's `image.Split`), when what follows is one kustomize matches (an
    /// optional `@sha256`, then an optional `:` and tag characters `[a-zA-Z0-9_.{}-]`); nil when no entry can match it.
    static func kustomizeName(of text: String) -> String? {
        let bytes = Array(text.utf8)
        let searchFrom = bytes.firstIndex(of: UInt8(ascii: "/")).map { $0 > 0 ? $0 : 0 } ?? 0
        guard let cut = bytes[searchFrom...].firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "@") }) else { return text }
        var rest = bytes[cut...]
        if rest.starts(with: "@sha256".utf8) { rest = rest.dropFirst(7) }
        if let colon = rest.first, colon == UInt8(ascii: ":") {
            let allowed = rest.dropFirst().allSatisfy { b in
                switch b {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "{"), UInt8(ascii: "}"),
                     UInt8(ascii: "-"): true
                default: false
                }
            }
            guard allowed else { return nil }
        } else if !rest.isEmpty {
            return nil
        }
        return String(decoding: bytes[..<cut], as: UTF8.self)
    }
}

/// An image reference found in a manifest.
public struct ImageUse: Sendable {
    public var origin: ImageOrigin
    public var file: FileID
    public var object: ObjectID?
    /// The reference as Tagwarden composes it, for messages.
    public var text: String
    /// Repository name as written (with registry); nil when the field holds only a tag.
    public var name: String?
    /// The name after Docker Hub normalisation (`nginx` → `docker.io/library/nginx`), parsed once here.
    public var normalizedName: String?
    public var tag: Located?
    public var digest: String?
    /// For an image given in parts, the field that holds its digest (a kustomize entry's or a chart's `digest:`).
    public var digestField: Located?
    /// Why the reference does not parse, if it does not.
    public var invalid: String?
    /// The whole reference (or, for parts, the repository field).
    public var span: SourceSpan
    /// kustomize `images:` entries without `newTag` keep the base's tag.
    public var tagOptional = false
    /// When every kustomize build that deploys this container image replaces its tag (an `images:` entry with
    /// `newTag` or `digest` for its name, in a kustomization above its file): the objects whose entries do (the
    /// nearest on each way up). The tag written here never runs, and the tag rules judge those entries instead.
    public var retaggedBy: [ObjectID] = []
    /// A container's image: the container's `name`.
    public var container: String?
    /// A container's `imagePullPolicy` as written (`IfNotPresent`, `Never`, `Always`): nil where it is not set, and then
    /// Kubernetes pulls an image without a tag, or tagged `latest`, whenever a pod starts.
    public var pullPolicy: String?
    /// A HelmRelease's values image: the path under `spec.values` (or the root of its values file) of the field that
    /// sets its tag (`image.tag`, or the `image` that holds the whole reference), which an overlay's patch, or a later
    /// source of the release's values, may write.
    public var valuesPath: [String]?
    /// A HelmRelease's values image written as the `image` of an item of a `containers` or `initContainers` list: kustomize's
    /// `images:` entries rewrite it as they do a workload's container, wherever the list stands.
    public var inContainerList = false
    /// A release's values image read from a values file that a kustomization's `configMapGenerator` makes a ConfigMap
    /// key of: the release's `valuesFrom` entry that reads it (`ConfigMap/name/key`). Helm merges the entries in order,
    /// and `spec.values` last, so a later source that sets `valuesPath` replaces it.
    public var valuesFromEntry: String?
    /// A workload's container image: which container by place (`containers/0`, `initContainers/1`), as a JSON
    /// patch's path names it.
    public var containerSlot: String?
    /// A kustomize `images:` entry that matches no image of its build (`image-entry-unmatched`), or the image of an
    /// inline patch whose target is of a kind its build does not have: its tag deploys nothing.
    public var deploysNothing = false
    /// A field of a chart's own values.yaml that every release installing the chart sets in its values: the default
    /// written here never runs.
    public var overriddenByReleases = false
    /// Where the kustomize `images:` entry it comes from writes its `name` (an offset in its file).
    var entryNameOffset: Int?
    /// A base's container image that some builds retag and others deploy as written: those others (Flux
    /// Kustomizations by name, root kustomizations by directory), for the tag rules' messages.
    public var writtenTagDeployedBy: [String] = []
    /// The files that tell the environments of those builds: their root kustomizations' and Flux Kustomizations'.
    var writtenTagRootPaths: [String] = []
    /// The files whose reach says whether those builds are deployed: their Flux Kustomizations', or their root
    /// kustomizations' where no Flux Kustomization builds them.
    var writtenTagRootFiles: [FileID] = []
    /// Those builds are reached by no cluster of this repository, though others that change the tag are.
    public var writtenTagUnreached = false
    /// No other build takes it: those builds also take it another way, in which the tag is replaced or it is dropped
    /// (huangyingting/flux2-gitops's apps, whose echo-mirror sets a tag beside echo and echo-canary).
    public var writtenTagRetaggedOnlyWithin = false
    /// A shared base's container image, of no environment of its own: the environments of the builds that deploy it
    /// (by their roots' paths and their Flux Kustomizations'), for the messages and the environment rules, which judge it
    /// in each (`ResolvedImage.judgedIn`).
    public var deployedIn: [String] = []
    /// Beside those environments, the directories of the builds of no environment that deploy it too (for the messages).
    public var deployedAlsoBy: [String] = []
    /// A field Tagwarden knows no image in, read as one only for the full-reference marker on it, whose value does not
    /// name the image the marker's policy updates (a chart's `version: '0.1.8'`): marker-image-mismatch says what Flux
    /// would write there, and the image rules do not judge the value.
    public var namesNoImage = false
    /// The tag written here never runs: every build sets another, every release another value, it is an entry that
    /// matches nothing, or the field holds no image.
    public var retagged: Bool { !retaggedBy.isEmpty || deploysNothing || overriddenByReleases || namesNoImage }
    /// Node index of the field holding the tag (to match a marker's scalar).
    var nodes: [Int] = []
    /// For a reference written with `${…}`: how Flux's post-build substitution made this text of it.
    public var substitution: Substitution?
    /// Where an image that is not written in its object's own manifest comes from, for messages (a release's values
    /// in a ConfigMap).
    public var provenance: String?
    /// What its findings assume (a values source not read here leaves its field alone), said in their messages.
    public var premise: String?
    /// A values image of a component the values turn off (`pgbouncer.enabled: false` beside or above it): that
    /// key, where charts render such a component only where it is true.
    public var disabledBy: String?
    /// A HelmRelease's values image under a top-level `test`, `tests` or `testFramework` key: that key, where the release
    /// does not set `spec.test.enable`. Charts give those values to their `helm test` hooks (gitea's test-connection Pod,
    /// grafana's `testFramework`), which Flux runs only when the release enables tests.
    public var helmTestKey: String?
    /// The object whose environment the image takes when its own object has none: the Flux Kustomization that
    /// substituted it, the kustomization that generates the values file it comes from, the ConfigMap that holds them.
    public var environmentObject: ObjectID?

    /// How messages name it: `image 'nginx:1.25'`, or, for a field that sets only a tag (a `:tag` marker's field,
    /// a chart's `image: {tag: …}`), the image whose tag it sets.
    public var described: String { name == nil && tag != nil ? "the image whose tag this field sets" : "image '\(text)'" }

    init(origin: ImageOrigin, file: FileID, object: ObjectID?, text: String, name: String? = nil, span: SourceSpan) {
        self.origin = origin
        self.file = file
        self.object = object
        self.text = text
        self.name = name
        self.span = span
    }

    /// Given in parts (a kustomize `images:` entry, a chart's `repository` and `tag`), not as one reference.
    package var isParts: Bool { origin == .kustomize || origin == .helmParts }

    /// The same use, with where it comes from.
    func with(provenance: String) -> ImageUse {
        var c = self
        c.provenance = provenance
        return c
    }

    /// The same use, as a new image of the model (no marker refers to it).
    func copy() -> ImageUse {
        var c = ImageUse(origin: origin, file: file, object: object, text: text, name: name, span: span)
        c.normalizedName = normalizedName
        c.tag = tag
        c.digest = digest
        c.invalid = invalid
        c.tagOptional = tagOptional
        c.provenance = provenance
        c.environmentObject = environmentObject
        return c
    }

    /// For a reference given in parts: the text they compose, and why it does not parse, if it does not.
    mutating func compose() {
        // a chart's tag that carries a digest beside a digest field (Renovate pins `tag: v1.90.0@sha256:…` where the
        // chart has `digest:` too, shamubernetes/home-k8s): read as the tag's version and the digest field's digest, as
        // charts that render the digest else the tag do (tailscale's); one that renders `:tag@digest` (gloo's) makes two
        // digests of it, which is not judged. (A kustomize `images:` entry's `newTag` and `digest` make two: kustomize
        // writes both.)
        if origin == .helmParts, let t = tag, digest != nil, let at = t.value.firstIndex(of: "@") {
            tag = at == t.value.startIndex ? nil : Located(value: String(t.value[..<at]), span: t.span, type: t.type)
        }
        text = (name ?? "") + (tag.map { ":" + $0.value } ?? "") + (digest.map { "@" + $0 } ?? "")
        invalid = nil
        normalizedName = nil
        guard let name else { return }
        // a repository that ends in a digest's algorithm beside a tag of its hex (`repository: busybox@sha256`, `tag:
        // 3fbc…`): the chart's `repository:tag` is a digest reference (lenaxia/home-ops-prod's app-template values)
        if digest == nil, tag != nil, name.hasBytesSuffix("@sha256") || name.hasBytesSuffix("@sha384") || name.hasBytesSuffix("@sha512") {
            switch ImageReference.parse(text) {
            case .success(let whole) where whole.tag == nil && whole.digest != nil:
                self.name = whole.name
                normalizedName = whole.normalizedName
                digest = whole.digest
                tag = nil
            case .failure(.invalid(let m)):
                invalid = m
            default:
                invalid = "the repository field '\(name)' already carries a digest"
            }
            return
        }
        switch ImageReference.parse(name) {
        case .failure(let e):
            if case .invalid(let m) = e { invalid = m } else { invalid = "the repository name is empty" }
        case .success(let r):
            normalizedName = r.normalizedName
            if r.tag != nil || r.digest != nil, tag != nil || digest != nil {
                invalid = "the repository field '\(name)' already carries a tag or digest"
            } else if tag.map({ ImageReference.isTag($0.value) }) ?? true, digest.map({ ImageReference.checkDigest($0) == nil }) ?? true {
                // a name that parses, with a tag and digest that pass (neither holds a `:`, `@` or `/`): the whole
                // reference parses into the same parts, nothing to read again
            } else {
                switch ImageReference.parse(text) {
                case .failure(let e):
                    if case .invalid(let m) = e { invalid = m }
                case .success(let whole):
                    // a tag field that carries the digest as well (`tag: v1.60.0@sha256:…`, as Renovate pins charts'
                    // images): the reference has both
                    if digest == nil, let t = tag, let d = whole.digest {
                        digest = d
                        tag = whole.tag.map { Located(value: $0, span: t.span, type: t.type) }
                    }
                }
            }
        }
    }

    /// Reads a whole reference written in one scalar (at `span`).
    mutating func parse(_ text: String) {
        invalid = nil   // (a text substituted again is read afresh)
        switch ImageReference.parse(text) {
        case .success(let ref):
            name = ref.name
            normalizedName = ref.normalizedName
            tag = ref.tag.map { Located(value: $0, span: span, type: .string) }
            digest = ref.digest
        case .failure(let e):
            name = KustomizeImageEntry.kustomizeName(of: text) ?? text
            switch e {
            case .empty: invalid = "the reference is empty"
            case .invalid(let m): invalid = m
            }
        }
    }
}

public struct Suppression: Sendable {
    public var line: Int
    public var rules: [String]
    public var reason: String
    public var span: SourceSpan
}

/// A `$imagepolicy` comment, wherever it is.
public struct MarkerComment: Sendable {
    public var file: FileID
    /// The comment from `#` to the end of the line.
    public var text: String
    public var span: SourceSpan
    /// The scalar the comment follows on its line, if any.
    public var scalar: Located?
    public var context: MarkerContext
    public var object: ObjectID?
    /// The marked scalar's role when it is part of an image (`image`, `newTag`, `tag` …).
    public var fieldKey: String?
    /// Whether the marked field is an `image:` that holds only the name of an image a chart composes from it and the
    /// parts beside it (`image: ghcr.io/team/operator` beside `tag: 1.2.3`).
    public var composedName = false
    /// Keys of fields that hold one part of an image (charts' `image.tag`, kustomize's `newTag`, …).
    public static let tagFields: Set<String> = ["tag", "newTag"]
    public static let nameFields: Set<String> = ["repository", "newName"]
    public static let digestFields: Set<String> = ["digest", "newDigest"]
    /// The image the marked scalar belongs to (an index into `Model.images`).
    public var image: ImageID?
    /// The comment read as Flux reads it (once, here): the policy it names, or why it is no marker.
    public var ref: MarkerRef?
    public var problem: String?

    init(file: FileID, text: String, span: SourceSpan, scalar: Located?, context: MarkerContext, object: ObjectID?, fieldKey: String? = nil) {
        self.file = file
        self.text = text
        self.span = span
        self.scalar = scalar
        self.context = context
        self.object = object
        self.fieldKey = fieldKey
        (ref, problem) = Marker.parse(text)
    }
}

public enum MarkerContext: Sendable, Equatable {
    /// after a scalar value, where Flux reads it
    case value
    /// after a mapping key (`image: # {...}` with the value on the next line, or a collection value)
    case keyLine
    /// on a line of its own, or a commented-out line
    case commentLine
    /// a commented-out line of YAML that held a marker (`# image: web:1.2 # {...}`): switched off on purpose
    case commentedOut
    /// the head comment of a sequence item whose own line comment Flux reads instead
    case hiddenHeadComment
    /// the last line of a sequence item's head comment of several lines
    case multiLineHeadComment
    /// inside a block scalar's text, where it is string content
    case blockScalar
    /// after an alias (`image: *img`): the value is written elsewhere
    case alias
    /// after a flow collection or other non-scalar
    case other
    /// in a file Flux never reads (its name)
    case unreadFile
}

public struct FileFacts: Sendable {
    public let path: String
    /// `Path.dirname(path)`, made once: the model asks for a file's directory some thirty thousand times on the bench fleet.
    public let directory: String
    public var bytes: [UInt8]
    public var documents = 0
    /// A kustomization's `resources`, `bases` and `components` entries, where they are written.
    public var resourceEntries: [Located] = []
    /// The files a kustomization reads as data: a `secretGenerator`'s `files` and `envs`, a `configMapGenerator`'s
    /// `envs`, the `path` of a `replacements:` entry. Part of its build, not resources of it.
    public var kustomizeInputFiles: [String] = []
    /// Top-level fields of the file's kustomization that kustomize does not know (`spec`): it refuses the file, and
    /// every build of its directory fails.
    public var kustomizationUnknownFields: [Located] = []
    /// Where it has such fields: whether the kustomization has others that give its build resources (`resources`,
    /// `components`, a generator, charts): without, what kustomize-controller builds of it once it drops them is empty.
    public var kustomizationMakesResources = true
    /// Whether the file's kustomization sets nothing but apiVersion and kind: kustomize refuses it where a kustomization
    /// takes its directory ("kustomization.yaml is empty"). (Where it is a Flux Kustomization's path, Flux 2.3 and later
    /// add buildMetadata to it first, and build nothing.)
    public var kustomizationSetsNothing = false
    /// Where the documents of a kustomization file after its first begin: kustomize decodes only the first document
    /// of a kustomization file, so Flux and `kubectl apply -k` never read the rest. Nil when it has one.
    public var kustomizationIgnoredFrom: SourcePosition?
    /// The syncs a FluxInstance makes (`spec.sync`, or `instance.sync` in the values of flux-operator's flux-instance
    /// chart): of a GitRepository, an OCIRepository or a Bucket.
    public var fluxInstanceSyncs: [FluxInstanceSync] = []
    /// The ArtifactGenerators of the file (Flux 2.7's source-watcher): the ExternalArtifacts they copy from sources.
    public var artifactGenerators: [ArtifactGenerator] = []
    public struct ArtifactGenerator: Sendable {
        public var namespace: String?
        /// alias → the source (`namespace/name`, the generator's namespace where none is given, and its kind).
        public var sources: [String: (namespace: String?, name: String, kind: String)] = [:]
        /// Each ExternalArtifact it makes, by name, with what it copies: `from: "@alias/path/**"` to `to: "@artifact/dir/"`.
        public var artifacts: [String: [(from: String, to: String)]] = [:]
    }
    public struct FluxInstanceSync: Sendable {
        /// The path it syncs, which its Flux applies as flux bootstrap's sync applies its path: of the repository for
        /// a GitRepository, of the artifact for the others.
        public var path: Located
        /// The kind of source it makes: GitRepository, OCIRepository or Bucket.
        public var kind: String
        /// The source it makes, which the cluster runs on (`Extractor.fluxInstanceSync`).
        public var sourceNamespace: String?
        public var sourceName: String
        /// Whether `sourceName` is taken, neither `sync.name` nor the namespace written (the chart's values, in the
        /// release's namespace, which a kustomization may set): the source may have another name.
        public var sourceNameTaken = false
        /// The URL of that source (`sync.url`): for a GitRepository, this repository's.
        public var url: String?
        /// The Git reference it reads (`sync.ref`, the GitRepository's `ref.name`: `refs/heads/main`).
        public var ref: String?
        /// Whether it syncs a GitRepository, so that its path is one of the repository's.
        public var isGit: Bool { kind == "GitRepository" }
    }
    /// The Flux releases the file installs: flux-operator's flux-instance chart's values (`instance.distribution.version`),
    /// or an OCIRepository of Flux's own manifests (`oci://ghcr.io/fluxcd/flux-manifests` at a tag); with what says so
    /// and the field that holds it.
    public var fluxReleases: [(version: Located, by: String, field: String)] = []
    /// It installs Flux without naming a release: a FluxInstance or the flux-instance chart's values with no version
    /// (flux-operator's default, `2.x`), or a range (`2.x`).
    public var installsUnwrittenFlux = false
    /// The names of the OCIRepositories of Flux's own manifests the file holds (with a tag or not): what a Kustomization
    /// builds from them is Flux itself, never this repository's files.
    public var fluxManifestRepositories: [String] = []
    /// The parsed tree, kept for the files `EffectiveObjects` reads again: kustomizations with patches, patch files,
    /// the image-automation objects' own.
    var tree: YAMLFile?
    /// The file's tree: the one kept, or parsed again.
    var yaml: YAMLFile { tree ?? YAMLFile(parsing: bytes) }
    /// It holds the `$imagepolicy` token: image-automation-controller opens only such files of its `update.path`.
    public var holdsMarkerToken = false
    public var syntaxError: YAMLError?
    /// The first document whose root is a list or a scalar (a JSON patch, say), which kyaml cannot annotate, so Flux's
    /// image automation cannot read the file: its line and what it is.
    public var nonMappingRoot: (line: Int, kind: String)?
    /// Keys given twice in a mapping: where the repeat is, the key, and the line and text of the first (another text
    /// when the two are one key only as Go reads them, `on` and `true`); whether the mapping is a document's
    /// `metadata.annotations`, which kustomize reads leniently (the last of the key wins).
    public var duplicateKeys: [(span: SourceSpan, key: String, firstLine: Int, firstKey: String, inAnnotations: Bool, mergesAnnotations: Bool)] = []
    /// What Go's YAML reader refuses although libyaml parses it (`GoYAML`): where, and why.
    public var goRefusals: [(span: SourceSpan, message: String)] = []
    /// Blocks of comment lines indented with tabs that go-yaml v3 reads and go-yaml v2 refuses (`YAMLFile.tabbedComments`).
    public var tabbedComments: [SourceSpan] = []
    /// Merge keys `<<` given twice in one mapping: where the repeat is, and the line of the first.
    public var duplicateMergeKeys: [(span: SourceSpan, firstLine: Int)] = []
    public var objects: [ManifestObject] = []
    public var images: [ImageUse] = []
    public var markers: [MarkerComment] = []
    public var suppressions: [Suppression] = []
    /// HelmRelease chart versions (`spec.chart.spec.version`), which YAML may read as numbers.
    public var versionFields: [Located] = []
    /// Whole references written with Flux substitution variables (`${TAG}`): judged once the model knows which
    /// Flux Kustomizations apply the file and what they substitute.
    public var substitutable: [ImageUse] = []

    /// `directory`: the path's directory where the caller has it (the string of the file before it in the listing).
    init(path: String, bytes: [UInt8], directory: String? = nil) {
        self.path = path
        self.directory = directory ?? Path.dirname(path)
        self.bytes = bytes
    }

    /// Why Flux's image automation (kyaml's reader, go-yaml v3) cannot read the file and skips its markers; nil when
    /// it can: YAML that does not parse, what Go's reader refuses, a document that is a list or a scalar (kyaml
    /// annotates every document with its path, which neither can hold).
    public var fluxCannotRead: String? {
        if let e = syntaxError { return "line \(e.position.line): \(e.message)" }
        if let refusal = goRefusals.first { return "line \(refusal.span.start.line): \(refusal.message)" }
        if let root = nonMappingRoot { return "line \(root.line): the document is a \(root.kind), not a mapping" }
        return nil
    }

    /// Whether Flux's image automation reads the file (`fluxCannotRead` is nil), without making the reason: asked once
    /// for every marker.
    public var fluxCanRead: Bool { syntaxError == nil && goRefusals.isEmpty && nonMappingRoot == nil }
}

extension FileFacts {
    /// The same facts for the file at place `id` of another listing: its objects, images and markers say which file
    /// they are in (`SharedExtraction`).
    func moved(to id: FileID) -> FileFacts {
        var f = self
        f.objects = objects.map { $0.file == id ? $0 : $0.moved(to: id) }
        for i in f.images.indices { f.images[i].file = id }
        for i in f.substitutable.indices { f.substitutable[i].file = id }
        for i in f.markers.indices { f.markers[i].file = id }
        return f
    }

    /// Whether the file's kustomization names the file `name` in any field (not in a comment): as the last component of
    /// a word of a value (`patches/web.yaml`, `config.yaml=config.yaml`, a `path:` in an inline patch). The file is
    /// parsed again: this is asked only of the files a kustomization's directory holds and its resources do not list.
    public func kustomizationNames(file name: String) -> Bool {
        let y = yaml, name = Array(name.utf8)
        return y.nodes.indices.contains { y.nodes[$0].kind == .scalar && FileFacts.writes(name, in: y.valueBytes($0)) }
    }

    /// Whether `bytes` write the file name `name` as the last component of a word (words end at blanks and
    /// `=,:'"[]{}`).
    private static func writes(_ name: [UInt8], in bytes: ArraySlice<UInt8>) -> Bool {
        func separates(_ c: UInt8) -> Bool {
            switch c {
            case 32, 9, 10, 13, UInt8(ascii: "="), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "'"), UInt8(ascii: "\""),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"): return true
            default: return false
            }
        }
        return bytes.withUnsafeBytes { h in
            name.withUnsafeBytes { n in
                var from = 0
                while let i = SourceText.find(h, n, from: from) {
                    let end = i + n.count
                    if end == h.count || separates(h[end]), i == 0 || separates(h[i - 1]) || h[i - 1] == UInt8(ascii: "/") { return true }
                    from = i + 1
                }
                return false
            }
        }
    }
}
