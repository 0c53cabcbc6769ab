#if canImport(Glibc)
import Glibc
#endif
import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// Turns one parsed file into `FileFacts`: objects, images, markers, suppressions.
package struct Extractor {
    let y: YAMLFile
    let fileIndex: FileID
    var facts: FileFacts
    /// Nodes already taken as (part of) an image.
    var imageNodes: [Int: ImageID] = [:]
    /// For files with many markers: where lines start; for markers not after a scalar: the scalar nodes in
    /// source order. Both are bisected, and built only when a file needs them.
    var lines: LineIndex?
    var scalars: [Int] = []

    // static strings, not arrays or sets: extraction runs on every core, and a shared collection's reference
    // count would be contended by all of them
    static let markerToken: StaticString = "$imagepolicy"
    static let suppressionToken: StaticString = "tagwarden:ignore"

    /// The file names kustomize reads as a directory's kustomization.
    static let kustomizationNames = ["kustomization.yaml", "kustomization.yml", "Kustomization"]
    /// Whether the last component of `path` is one of `kustomizationNames`, read in place (static strings, for the
    /// reason above: this runs for every file).
    package static func isKustomizationPath(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { b in
            var start = b.count
            while start > 0, b[start - 1] != UInt8(ascii: "/") { start -= 1 }
            let name = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[start...]))
            func equals(_ s: StaticString) -> Bool {
                name.count == s.utf8CodeUnitCount && memcmp(name.baseAddress!, s.utf8Start, name.count) == 0
            }
            return !name.isEmpty && (equals("kustomization.yaml") || equals("kustomization.yml") || equals("Kustomization"))
        }
    }

    /// The pod spec of a workload kind.
    func podSpecNode(_ root: Int, kind: String, group: String) -> Int? {
        switch group {
        case "argoproj.io":   // an Argo Rollout runs its template's pods like a Deployment
            return kind == "Rollout" ? y.get(root, "spec", "template", "spec") : nil
        case "serving.knative.dev":   // a Knative Service (or Configuration) runs revisions of its template
            return kind == "Service" || kind == "Configuration" ? y.get(root, "spec", "template", "spec") : nil
        case "apps.kruise.io":   // OpenKruise's workloads
            return ["CloneSet", "StatefulSet", "DaemonSet"].contains(kind) ? y.get(root, "spec", "template", "spec") : nil
        case "keda.sh":   // a KEDA ScaledJob starts Jobs of its template
            return kind == "ScaledJob" ? y.get(root, "spec", "jobTargetRef", "template", "spec") : nil
        default:
            break
        }
        switch kind {
        case "Pod": return y.get(root, "spec")
        case "PodTemplate": return y.get(root, "template", "spec")
        case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job":
            return y.get(root, "spec", "template", "spec")
        case "CronJob": return y.get(root, "spec", "jobTemplate", "spec", "template", "spec")
        default: return nil
        }
    }

    /// `scratch` is parsed into and kept for the next file (see `YAMLFile.reparse`).
    package static func extract(path: String, directory: String? = nil, bytes: [UInt8], index: FileID, unread: Bool = false,
                                reusing scratch: inout YAMLFile) -> FileFacts {
        if unread {
            // not YAML to Flux: only the markers, each on its line
            var facts = FileFacts(path: path, bytes: bytes, directory: directory)
            facts.holdsMarkerToken = SourceText.contains(markerToken, in: bytes)
            let occurrences = SourceText.occurrences(of: markerToken, in: bytes)
            let lines = occurrences.count > 8 ? LineIndex(bytes) : nil
            for off in occurrences {
                var start = off
                while start > 0, bytes[start - 1] != 10 { start -= 1 }
                if let hash = bytes[start..<off].lastIndex(of: UInt8(ascii: "#")) { start = hash }
                let end = SourceText.lineEnd(bytes, from: off)
                facts.markers.append(MarkerComment(file: index, text: String(decoding: bytes[start..<end], as: UTF8.self),
                                                   span: span(bytes, start..<end, lines), scalar: nil, context: .unreadFile, object: nil))
            }
            facts.suppressions = suppressions(bytes)
            return facts
        }
        scratch.reparse(bytes)
        // (the facts made in place: made aside and swapped in, an empty FileFacts was made and destroyed for every file)
        var ex = Extractor(y: scratch, fileIndex: index, facts: FileFacts(path: path, bytes: bytes, directory: directory))
        ex.facts.holdsMarkerToken = SourceText.contains(markerToken, in: bytes)
        ex.facts.suppressions = suppressions(bytes)
        ex.facts.syntaxError = scratch.error
        if !scratch.duplicateKeys.isEmpty {
            func written(_ n: Int) -> String { (scratch.nodes[n].kind == .alias ? "*" : "") + scratch.value(n) }
            // (the documents' own `metadata`, and its `annotations`)
            let metadata = Set(scratch.documents.compactMap { scratch.get($0.root, "metadata") })
            let annotations = Set(metadata.compactMap { scratch.get($0, "annotations") })
            ex.facts.duplicateKeys = scratch.duplicateKeys.map { d in
                let key = written(d.key), parent = scratch.nodes[d.key].parent
                return (scratch.nodes[d.key].span, key, scratch.nodes[d.first].span.start.line, written(d.first),
                        annotations.contains(parent), key == "annotations" && metadata.contains(parent))
            }
        }
        if !scratch.goRefusals.isEmpty { ex.facts.goRefusals = scratch.goRefusals }
        if !scratch.tabbedComments.isEmpty { ex.facts.tabbedComments = scratch.tabbedComments }
        if !scratch.duplicateMergeKeys.isEmpty {
            ex.facts.duplicateMergeKeys = scratch.duplicateMergeKeys.map { (scratch.nodes[$0.key].span, scratch.nodes[$0.first].span.start.line) }
        }
        ex.facts.documents = scratch.documents.count
        let isKustomizationFile = isKustomizationPath(path)
        var firstHoldsOther = false
        for (d, doc) in scratch.documents.enumerated() {
            let root = scratch.nodes[doc.root]
            if ex.facts.nonMappingRoot == nil, root.kind == .sequence || (root.kind == .scalar && !scratch.isNull(doc.root)) {
                ex.facts.nonMappingRoot = (root.span.start.line, root.kind == .sequence ? "list" : "scalar")
            }
            // kustomize decodes a kustomization file's first document only (sigs.k8s.io/yaml): the rest is no object,
            // and no field of its kustomization. One whose first document is another object (a Flux Kustomization) is no
            // kustomization: kustomize refuses it as one, and reads each of its documents where a kustomization lists the
            // file as a resource (willnotcy/Hephaestus's metallb/kustomization.yaml)
            if isKustomizationFile, d > 0, !firstHoldsOther {
                if ex.facts.kustomizationIgnoredFrom == nil, !scratch.isNull(doc.root) { ex.facts.kustomizationIgnoredFrom = root.span.start }
                continue
            }
            if scratch.nodes[doc.root].kind == .sequence {
                ex.jsonPatch(doc.root)
            } else {
                ex.document(d, root: doc.root, isKustomizationFile: isKustomizationFile && d == 0)
            }
            if isKustomizationFile, d == 0 { firstHoldsOther = ex.facts.objects.contains { !$0.isKustomization } }
        }
        // (here, not in `document`: a field set there has the compiler copy the extractor for every document, +50 M
        // instructions on the bench fleet)
        if isKustomizationFile, !firstHoldsOther, let first = scratch.documents.first {
            ex.facts.kustomizationSetsNothing = Extractor.setsNothing(scratch, first.root)
        }
        if ex.facts.holdsMarkerToken { ex.markers() }
        // what `EffectiveObjects` reads again: the kustomizations that hold patches, Components or labels, patch files,
        // the image-automation objects' own files
        // (each word found by a byte rarer in manifests than its first)
        if ex.facts.nonMappingRoot != nil || SourceText.contains("patches", in: bytes, pick: 4)
            || ex.facts.objects.contains(where: { $0.group == FluxAPIs.group })
            || (ex.facts.objects.contains(where: \.isKustomization)
                && (SourceText.contains("components", in: bytes, pick: 3) || SourceText.contains("abels", in: bytes, pick: 1)
                    || SourceText.contains("commonAnnotations", in: bytes, pick: 6))) {
            ex.facts.tree = scratch.compacted()   // `scratch` keeps its storage for the next parse
        }
        var extracted = FileFacts(path: "", bytes: [])
        swap(&extracted, &ex.facts)   // moved out, not copied
        return extracted
    }

    /// A builtin NamespaceTransformer written as text: its namespace and `unsetOnly`.
    static func inlineNamespaceTransformer(_ text: String) -> ManifestObject.NamespaceTransformer? {
        let t = YAMLFile(parsing: Array(text.utf8))
        guard let root = t.documents.first?.root, t.string(root, "apiVersion") == "builtin", t.string(root, "kind") == "NamespaceTransformer",
              let namespace = t.get(root, "metadata").flatMap({ t.string($0, "namespace") }), !namespace.isEmpty else { return nil }
        return ManifestObject.NamespaceTransformer(namespace: namespace, unsetOnly: ["true", "True", "TRUE"].contains(t.string(root, "unsetOnly")))
    }

    func located(_ n: Int) -> Located {
        Located(value: y.value(n), span: y.nodes[n].span, type: y.resolvedType(n))
    }

    /// The apiVersion `node` holds, and its group where it is one of the common ones (literals, not strings made again).
    static func apiVersion(_ y: YAMLFile, _ node: Int?) -> (apiVersion: String?, group: String?) {
        guard let node, y.nodes[node].kind == .scalar, !y.isNull(node) else { return (nil, nil) }
        guard let k = y.valueIndex(node, in: ManifestObject.commonAPIVersions) else { return (y.value(node), nil) }
        return ManifestObject.commonGroupOfAPIVersion[k]
    }

    /// A FluxInstance's `sync`: its path, and the source it makes (a GitRepository, the kind Flux's bootstrap writes, an
    /// OCIRepository or a Bucket), in the FluxInstance's `namespace` (nil for the chart's values: the release's, not
    /// written there), named `sync.name` or after that namespace (flux-system, for the chart's, as flux-operator's
    /// documentation installs it).
    mutating func fluxInstanceSync(_ sync: Int, namespace: String?) {
        let kind = y.scalarString(y.get(sync, "kind")) ?? "GitRepository"
        guard ["GitRepository", "OCIRepository", "Bucket"].contains(kind), let path = y.get(sync, "path"),
              y.nodes[path].kind == .scalar else { return }
        let written = y.scalarString(y.get(sync, "name")) ?? namespace
        facts.fluxInstanceSyncs.append(FileFacts.FluxInstanceSync(path: located(path), kind: kind, sourceNamespace: namespace,
                                                                  sourceName: written ?? "flux-system", sourceNameTaken: written == nil,
                                                                  url: y.scalarString(y.get(sync, "url")),
                                                                  ref: y.scalarString(y.get(sync, "ref"))))
    }

    /// An ArtifactGenerator's sources (GitRepositories, OCIRepositories and Buckets) and the copies of each artifact;
    /// an artifact with a copy that is not whole (`exclude`, a `strategy` other than Overwrite) has none.
    mutating func artifactGenerator(_ spec: Int, namespace: String?) {
        var g = FileFacts.ArtifactGenerator(namespace: namespace)
        for s in y.get(spec, "sources").map(y.childNodes) ?? [] {
            let kind = y.scalarString(y.get(s, "kind")) ?? "GitRepository"
            guard let alias = y.scalarString(y.get(s, "alias")), let name = y.scalarString(y.get(s, "name")),
                  ["GitRepository", "OCIRepository", "Bucket"].contains(kind) else { continue }
            g.sources[alias] = (y.scalarString(y.get(s, "namespace")) ?? namespace, name, kind)
        }
        for a in y.get(spec, "artifacts").map(y.childNodes) ?? [] {
            guard let name = y.scalarString(y.get(a, "name")) else { continue }
            let copies = y.get(a, "copy").map(y.childNodes) ?? []
            g.artifacts[name] = copies.contains { y.get($0, "exclude") != nil || (y.scalarString(y.get($0, "strategy")) ?? "Overwrite") != "Overwrite" }
                ? [] : copies.compactMap { c in
                    guard let from = y.scalarString(y.get(c, "from")), let to = y.scalarString(y.get(c, "to")) else { return nil }
                    return (from, to)
                }
        }
        facts.artifactGenerators.append(g)
    }

    /// The values of flux-operator's flux-instance chart at `values`: the FluxInstance's spec under `instance:`. Those
    /// of a HelmRelease of the chart (`ofRelease`) install Flux whatever they hold; a values file's, where they give
    /// the instance's `distribution` or `sync`.
    mutating func fluxInstanceValues(_ values: Int, ofRelease: Bool) {
        guard let instance = y.get(values, "instance"), y.nodes[instance].kind == .mapping else {
            if ofRelease { facts.installsUnwrittenFlux = true }
            return
        }
        if let sync = y.get(instance, "sync") { fluxInstanceSync(sync, namespace: nil) }
        if let v = y.get(instance, "distribution", "version"), y.nodes[v].kind == .scalar, FluxVersion.parse(y.value(v)) != nil {
            facts.fluxReleases.append((located(v), "flux-instance chart values", "distribution"))
        } else if ofRelease || y.get(instance, "distribution") != nil || y.get(instance, "sync") != nil {
            // (the chart's default is `2.x`, the latest release)
            facts.installsUnwrittenFlux = true
        }
    }

    /// The fields of a kustomization that give its build resources (lower-cased).
    static let resourceMakingFields: Set<String> = ["resources", "bases", "components", "crds", "configmapgenerator", "secretgenerator",
                                                     "helmcharts", "helmchartinflationgenerator", "generators"]

    /// Whether kustomization `root` has a field that gives its build resources, not empty.
    static func makesResources(_ y: YAMLFile, _ root: Int) -> Bool {
        y.pairs(root).contains { k, v in isField(y, k, resourceMakingFieldBytes, resourceMakingFields) && !y.isNull(v) && !y.childNodes(v).isEmpty }
    }
    static let resourceMakingFieldBytes = resourceMakingFields.map { Array($0.utf8) }

    /// Whether key `k` is one of `names` (lower-cased), compared as `names.contains(value.lowercased())` would: an ASCII
    /// key by its bytes, any other through `lowercased()` (a key per kustomization field: a String and a hash each were
    /// most of the check).
    static func isField(_ y: YAMLFile, _ k: Int, _ bytes: [[UInt8]], _ names: Set<String>) -> Bool {
        let b = y.valueBytes(k)
        guard !b.contains(where: { $0 >= 0x80 }) else { return names.contains(y.value(k).lowercased()) }
        return bytes.contains { n in
            n.count == b.count && zip(n, b).allSatisfy { want, c in want == (c >= 65 && c <= 90 ? c | 0x20 : c) }
        }
    }

    /// The fields of a kustomization kustomize v5 decodes (lower-cased): any other makes it refuse the file.
    static let kustomizationFields: Set<String> = Set([
        "apiVersion", "kind", "metadata", "openapi", "namePrefix", "nameSuffix", "namespace", "commonLabels", "labels",
        "commonAnnotations", "patchesStrategicMerge", "patchesJson6902", "patches", "images", "imageTags", "replacements",
        "replicas", "vars", "sortOptions", "resources", "components", "crds", "bases", "configMapGenerator", "secretGenerator",
        "helmGlobals", "helmCharts", "helmChartInflationGenerator", "generatorOptions", "configurations", "generators",
        "transformers", "validators", "buildMetadata",
    ].map { $0.lowercased() })
    static let kustomizationFieldBytes = kustomizationFields.map { Array($0.utf8) }

    /// The Flux a document installs or points to: flux-operator's flux-instance chart in a HelmRelease, a FluxInstance and
    /// what it syncs, an ArtifactGenerator, an OCIRepository of Flux's own manifests.
    mutating func fluxInstallation(_ root: Int, apiVersion: String, kind: String) {
        if kind == "HelmRelease", apiVersion.hasPrefix("helm.toolkit.fluxcd.io/"), let spec = y.get(root, "spec"),
           let chart = y.scalarString(y.get(spec, "chartRef", "name")) ?? y.scalarString(y.get(spec, "chart", "spec", "chart")),
           chart.contains("flux-instance") {
            if let values = y.get(spec, "values") { fluxInstanceValues(values, ofRelease: true) } else { facts.installsUnwrittenFlux = true }
        }
        if kind == "FluxInstance" {
            if let sync = y.get(root, "spec", "sync") { fluxInstanceSync(sync, namespace: y.scalarString(y.get(root, "metadata", "namespace"))) }
            if y.scalarString(y.get(root, "spec", "distribution", "version")).flatMap(FluxVersion.parse) == nil { facts.installsUnwrittenFlux = true }
        }
        if kind == "ArtifactGenerator", apiVersion.hasPrefix("source.extensions.fluxcd.io/"), let spec = y.get(root, "spec") {
            artifactGenerator(spec, namespace: y.scalarString(y.get(root, "metadata", "namespace")))
        }
        // Flux installed from its own manifests' OCI artifact (a Kustomization of it applies them)
        if kind == "OCIRepository", apiVersion.hasPrefix("source.toolkit.fluxcd.io/"), let spec = y.get(root, "spec"),
           y.scalarString(y.get(spec, "url"))?.hasSuffix("/fluxcd/flux-manifests") == true {
            let name = y.scalarString(y.get(root, "metadata", "name")) ?? ""
            facts.fluxManifestRepositories.append(name)
            if let tag = y.get(spec, "ref", "tag"), y.nodes[tag].kind == .scalar {
                facts.fluxReleases.append((located(tag), "OCIRepository \(name) of Flux's manifests", "tag"))
            }
        }
    }

    /// A document's `metadata`: its name and namespace, the labels that matter (of Namespaces and ImagePolicies), and
    /// whether Flux's substitution is disabled for it.
    static func metadata(_ y: YAMLFile, _ root: Int, kind: String)
        -> (name: String?, namespace: String?, labels: [String: String], substitutionDisabled: Bool) {
        var labels: [String: String] = [:]
        var substitutionDisabled = false
        guard let meta = y.get(root, "metadata") else { return (nil, nil, labels, false) }
        for key: StaticString in ["labels", "annotations"] {
            if let m = y.get(meta, key), y.scalarString(y.get(m, "kustomize.toolkit.fluxcd.io/substitute")) == "disabled" {
                substitutionDisabled = true
            }
        }
        // labels matter for Namespaces (environment, accessFrom) and ImagePolicies (policySelector)
        if kind == "Namespace" || kind == "ImagePolicy", let l = y.get(meta, "labels") {
            for (k, v) in y.pairs(l) {
                if let s = y.scalarString(v) { labels[y.value(k)] = s }
            }
        }
        return (y.scalarString(y.get(meta, "name")), y.scalarString(y.get(meta, "namespace")), labels, substitutionDisabled)
    }

    /// The kind a CustomResourceDefinition's `spec` defines (Flux's components define its kinds): which versions the
    /// cluster serves, and whether it has no namespace.
    static func customResource(_ y: YAMLFile, _ spec: Int) -> ManifestObject.CustomResource? {
        guard let g = y.scalarString(y.get(spec, "group")), let k = y.scalarString(y.get(spec, "names", "kind")) else { return nil }
        let served = y.get(spec, "versions").map { y.childNodes($0).filter { y.scalarString(y.get($0, "served")) != "false" }
            .compactMap { y.scalarString(y.get($0, "name")) } } ?? []
        return .init(group: g, kind: k, clusterScoped: y.scalarString(y.get(spec, "scope")) == "Cluster", served: served)
    }

    /// The object of document `d` whose root is `root` (or of each item of a List), and what the file's facts gain by it.
    mutating func document(_ d: Int, root: Int, isKustomizationFile: Bool) {
        guard y.nodes[root].kind == .mapping else { return }
        let apiVersionNode = y.get(root, "apiVersion")
        var (apiVersion, commonGroup) = Extractor.apiVersion(y, apiVersionNode)
        let kindNode = y.get(root, "kind")
        var kind = y.scalarString(kindNode)
        var kindSpan = kindNode.map { y.nodes[$0].span } ?? y.nodes[root].span
        if isKustomizationFile, kind == nil || kind == "Kustomization" {
            kind = "Kustomization"
            if apiVersion == nil { apiVersion = "kustomize.config.k8s.io/v1beta1" }
            if kindNode == nil { kindSpan = SourceSpan(start: y.nodes[root].span.start, end: y.nodes[root].span.start) }
        }
        // flux-operator's flux-instance chart takes the FluxInstance's spec as `instance:` in its values: a values file,
        // or a HelmRelease of that chart with them inline (the home-ops repositories')
        if apiVersion == nil, kind == nil { fluxInstanceValues(root, ofRelease: false) }
        guard let apiVersion, let kind else { return }
        fluxInstallation(root, apiVersion: apiVersion, kind: kind)
        if kind == "List", apiVersion == "v1", let items = y.get(root, "items"), y.nodes[items].kind == .sequence {
            // `kubectl get -o yaml` writes a List; kubectl and Flux apply its items as objects
            for item in y.childNodes(items) where item != root { document(d, root: item, isKustomizationFile: false) }
            return
        }
        let group = commonGroup ?? ManifestObject.group(of: apiVersion)
        let (name, declaredNamespace, labels, substitutionDisabled) = Extractor.metadata(y, root, kind: kind)
        let objectIndex = ObjectID(facts.objects.count)
        var isKustomization = false
        var kustomizeNamespace: String?
        var namespaceTransformer: ManifestObject.NamespaceTransformer?
        var namePrefix: String?, nameSuffix: String?
        var resources: [String] = [], patches: [Located] = [], entries: [KustomizeImageEntry] = []
        var unknowns: ManifestObject.KustomizeUnknowns = []
        var generators: [ManifestObject.ConfigMapGenerator] = []
        var configFiles: [String] = []
        var changesResources = false
        var definition: ManifestObject.CustomResource?
        if isKustomizationFile {
            // kustomize decodes the file with unknown fields disallowed (Go's JSON matching of names, case-insensitive),
            // whatever object it holds (a Flux Kustomization written into `kustomization.yaml` too)
            for (k, _) in y.pairs(root) where !Extractor.isField(y, k, Extractor.kustomizationFieldBytes, Extractor.kustomizationFields) {
                facts.kustomizationUnknownFields.append(located(k))
            }
            if !facts.kustomizationUnknownFields.isEmpty { facts.kustomizationMakesResources = Extractor.makesResources(y, root) }
        }
        if kind == "Kustomization" || kind == "Component", group == "kustomize.config.k8s.io" {
            // a kustomize Component is a kustomization that others pull in with `components:`; `bases:` is the
            // older name of `resources:` (kustomize still reads it)
            isKustomization = true
            kustomizeNamespace = y.scalarString(y.get(root, "namespace"))
            namePrefix = y.scalarString(y.get(root, "namePrefix"))
            nameSuffix = y.scalarString(y.get(root, "nameSuffix"))
            for key: StaticString in ["resources", "bases", "components"] {
                guard let list = y.get(root, key) else { continue }
                for n in y.childNodes(list) where y.nodes[n].kind == .scalar && !y.isNull(n) {
                    let entry = located(n)
                    resources.append(entry.value)
                    facts.resourceEntries.append(entry)
                }
            }
            changesResources = y.get(root, "components") != nil
            for key: StaticString in ["patches", "patchesStrategicMerge", "patchesJson6902"] {
                guard let list = y.get(root, key) else { continue }
                changesResources = true
                patches += kustomizePatches(list, object: objectIndex)
            }
            if let images = y.get(root, "images") { entries = kustomizeImages(images, object: objectIndex, foldingCase: true) }
            // what Tagwarden cannot see into: charts and plugins that make resources, resources from elsewhere
            for key: StaticString in ["helmCharts", "helmChartInflationGenerator", "generators"] where y.get(root, key) != nil {
                unknowns.insert(.resources)
            }
            if let list = y.get(root, "transformers") {
                unknowns.insert(.transformers)
                // (nint8835/ops: each app's kustomization sets its namespace so); they run in order, and one that sets
                // only objects without a namespace changes nothing after one that sets them all
                for n in y.childNodes(list) where y.nodes[n].style == .literal {
                    guard let t = Extractor.inlineNamespaceTransformer(y.value(n)) else { continue }
                    if !t.unsetOnly || namespaceTransformer == nil { namespaceTransformer = t }
                }
            }
            if y.get(root, "replacements") != nil { unknowns.insert(.replacements) }
            if y.get(root, "secretGenerator") != nil { unknowns.insert(.secrets) }
            kustomizeInputs(root)
            // kustomize's own configuration files: transformer and generator configs, not resources
            for key: StaticString in ["transformers", "generators", "validators", "configurations"] {
                guard let list = y.get(root, key) else { continue }
                configFiles += y.childNodes(list).compactMap { y.nodes[$0].style == .literal ? nil : y.scalarString($0) }
            }
            if resources.contains(where: Extractor.isRemote) { unknowns.insert(.resources) }
            if let gens = y.get(root, "configMapGenerator") {
                for g in y.childNodes(gens) {
                    guard let name = y.scalarString(y.get(g, "name")) else { continue }
                    let files = (y.get(g, "files").map { y.childNodes($0) } ?? []).compactMap { y.scalarString($0) }.map(Extractor.generatorFile)
                    let literals = (y.get(g, "literals").map { y.childNodes($0) } ?? []).compactMap { y.scalarString($0) }.compactMap { entry in
                        entry.firstIndex(of: "=").map { String(entry[..<$0]) }
                    }
                    // (one from `envs` alone, or from nothing, still makes its ConfigMap: its keys are not known here)
                    generators.append(.init(name: name, namespace: y.scalarString(y.get(g, "namespace")), files: files,
                                            replaces: y.scalarString(y.get(g, "behavior")) == "replace", literalKeys: literals))
                }
            }
        } else if kind == "Kustomization", group == "kustomize.toolkit.fluxcd.io" {
            if let images = y.get(root, "spec", "images") { entries = kustomizeImages(images, object: objectIndex) }
            if let list = y.get(root, "spec", "patches") {
                for item in y.childNodes(list) {
                    if let patch = y.get(item, "patch") { inlinePatch(patch, object: objectIndex) }
                }
            }
        } else if kind == "CustomResourceDefinition", group == "apiextensions.k8s.io", let spec = y.get(root, "spec") {
            definition = Extractor.customResource(y, spec)
        } else {
            if kind == "HelmRelease", let v = y.get(root, "spec", "chart", "spec", "version"), y.nodes[v].kind == .scalar {
                facts.versionFields.append(located(v))
            }
            workloadImages(root, kind: kind, group: group, object: objectIndex)
        }
        var configData: [String: String]?
        if kind == "ConfigMap", group.isEmpty, let data = y.get(root, "data") {
            configData = [:]
            for (k, v) in y.pairs(data) { if let s = y.scalarString(v) { configData![y.value(k)] = s } }
        }
        facts.objects.append(ManifestObject(
            file: fileIndex, document: d, apiVersion: apiVersion, group: group, kind: kind, kindSpan: kindSpan,
            apiVersionSpan: apiVersionNode.map { y.nodes[$0].span }, name: name, declaredNamespace: declaredNamespace,
            labels: labels, isKustomization: isKustomization, kustomizeNamespace: kustomizeNamespace, kustomizeResources: resources,
            kustomizePatchEntries: patches, kustomizeImages: entries, kustomizeUnknowns: unknowns, flux: FluxSpec.extract(y, root: root, group: group, kind: kind), configData: configData,
            substitutionDisabled: substitutionDisabled, configMapGenerators: generators, kustomizeConfigFiles: configFiles,
            definition: definition, byteRange: y.nodes[root].span.start.offset..<y.nodes[root].span.end.offset,
            kustomizeNamePrefix: namePrefix, kustomizeNameSuffix: nameSuffix, kustomizeChangesResources: changesResources, kustomizeNamespaceTransformer: namespaceTransformer))
    }

    /// A kustomization's list of patches: the files it names (a path, or an entry's `path`), where they are written; the
    /// inline ones read as they stand (`patchesStrategicMerge` takes them too).
    mutating func kustomizePatches(_ list: Int, object: ObjectID) -> [Located] {
        var files: [Located] = []
        for item in y.childNodes(list) {
            if y.nodes[item].kind == .scalar, y.nodes[item].style == .literal {
                inlinePatch(item, object: object)
            } else if let file = y.scalarString(item) != nil ? item : y.get(item, "path"), y.scalarString(file) != nil {
                files.append(located(file))
            } else if let patch = y.get(item, "patch") {
                inlinePatch(patch, object: object)
            }
        }
        return files
    }

    /// The images of a HelmRelease (values, post-renderers) or of a workload's pod spec: an object's, or those a
    /// strategic merge patch sets.
    mutating func workloadImages(_ root: Int, kind: String, group: String, object: ObjectID) {
        if kind == "HelmRelease" {
            let valuesImages = facts.images.count
            if let values = y.get(root, "spec", "values") { helmValues(values, object: object, depth: 0, path: []) }
            if !Extractor.runsTests(y, root) {
                for i in valuesImages..<facts.images.count {
                    // (the top level only: a subchart's, or app-template's controller named `test`, is another thing)
                    facts.images[i].helmTestKey = facts.images[i].valuesPath?.first.flatMap { Extractor.helmTestKeys.contains($0) ? $0 : nil }
                }
            }
            // a post-renderer's kustomize `images:` rewrite the rendered chart's images like a kustomization's
            if let renderers = y.get(root, "spec", "postRenderers"), y.nodes[renderers].kind == .sequence {
                var rendered: [PostRendererImages] = [.init(images: valuesImages..<facts.images.count)]
                for r in y.childNodes(renderers) {
                    let first = facts.images.count
                    let entries = y.get(r, "kustomize", "images").map { kustomizeImages($0, object: object) } ?? []
                    if let list = y.get(r, "kustomize", "patches") {
                        for item in y.childNodes(list) { if let patch = y.get(item, "patch") { inlinePatch(patch, object: object) } }
                    }
                    rendered.append(.init(images: first..<facts.images.count, entries: entries))
                }
                markRetaggedByPostRenderers(rendered, release: object)
            }
        } else if let spec = podSpecNode(root, kind: kind, group: group) {
            podSpec(spec, object: object)
        }
    }

    /// The images a HelmRelease's values or one of its post-renderers give (its patches' containers; its `images:`
    /// entries' own among them), and that post-renderer's entries.
    struct PostRendererImages {
        var images: Range<Int>
        var entries: [KustomizeImageEntry] = []
    }

    /// Marks the images of a HelmRelease that its own post-renderers retag. Flux runs the kustomize of each
    /// `spec.postRenderers` item in order on the chart's output, and kustomize applies a kustomization's `images:`
    /// entries after its patches: an entry that sets a tag or digest retags the chart's images of its name (those the
    /// values give, as they are judged: as the chart renders them as written) and the containers that the patches of
    /// its own post-renderer or of an earlier one add, not those a later one's add. Nothing else reaches them: the
    /// `images:` entries of a kustomization that builds the release do not rewrite the text of its patches.
    mutating func markRetaggedByPostRenderers(_ rendered: [PostRendererImages], release: ObjectID) {
        for (at, part) in rendered.enumerated() {
            let entries = rendered[at...].flatMap(\.entries)
            guard !entries.isEmpty else { continue }
            for i in part.images where facts.images[i].origin != .kustomize {
                guard let name = facts.images[i].name else { continue }
                var needs = KustomizeImageEntry.Needs()
                if facts.images[i].text.hasPrefix(name) { needs.writtenSuffix = String(facts.images[i].text.dropFirst(name.count)) }
                if KustomizeImageEntry.apply(entries, to: name, needs: needs) == nil { facts.images[i].retaggedBy = [release] }
            }
        }
    }

    /// A JSON patch (RFC 6902) written as YAML, as kustomize's `patches` read it from a file: the values that an
    /// `add` or `replace` writes to a container's `image`, or the containers it writes whole.
    mutating func jsonPatch(_ list: Int) {
        for op in y.childNodes(list) where y.nodes[op].kind == .mapping {
            guard let kind = y.scalarString(y.get(op, "op")), kind == "add" || kind == "replace",
                  let path = y.scalarString(y.get(op, "path")), let value = y.get(op, "value") else { continue }
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            // the container list, a container in it, or a container's image
            guard let c = segments.lastIndex(where: { $0 == "containers" || $0 == "initContainers" || $0 == "ephemeralContainers" })
            else { continue }
            let rest = segments[(c + 1)...]
            if rest.count == 2, rest.last == "image", y.nodes[value].kind == .scalar {
                addReference(value, origin: .container, object: nil)
            } else if rest.count == 1, y.nodes[value].kind == .mapping, let image = y.get(value, "image"), y.nodes[image].kind == .scalar {
                addReference(image, origin: .container, object: nil)
            } else if rest.isEmpty, y.nodes[value].kind == .sequence {
                for item in y.childNodes(value) {
                    if let image = y.get(item, "image"), y.nodes[image].kind == .scalar { addReference(image, origin: .container, object: nil) }
                }
            }
        }
    }

    mutating func podSpec(_ spec: Int, object: ObjectID) {
        for key: StaticString in ["initContainers", "containers", "ephemeralContainers"] {
            guard let list = y.get(spec, key), y.nodes[list].kind == .sequence else { continue }
            for (place, c) in y.childNodes(list).enumerated() {
                guard let img = y.get(c, "image"), y.nodes[img].kind == .scalar else { continue }
                let before = facts.images.count
                addReference(img, origin: .container, object: object)
                if facts.images.count > before {
                    facts.images[before].container = y.scalarString(y.get(c, "name"))
                    facts.images[before].pullPolicy = y.scalarString(y.get(c, "imagePullPolicy"))
                    facts.images[before].containerSlot = "\(key)/\(place)"
                }
            }
        }
    }

    /// `${VAR}` (Flux post-build substitution) or `{{ … }}` (a template): resolved later, not an image yet.
    static func isTemplated(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { b in
            // (each `{` found by memchr, and the byte before it looked at: most references have none)
            guard let base = b.baseAddress else { return false }
            var i = 0
            while i < b.count, let p = memchr(base + i, Int32(UInt8(ascii: "{")), b.count - i) {
                let at = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
                if at > 0, b[at - 1] == UInt8(ascii: "$") || b[at - 1] == UInt8(ascii: "{") { return true }
                i = at + 1
            }
            return false
        }
    }

    /// A scalar that holds a whole reference.
    mutating func addReference(_ n: Int, origin: ImageOrigin, object: ObjectID?) {
        guard imageNodes[n] == nil, !y.isNull(n) else { return }
        let text = y.value(n)
        if text.isEmpty { return }
        // Istio's sidecar and gateway injection replaces a container's `image: auto` with its proxy's image
        if origin == .container, text == "auto" { return }
        if Extractor.isTemplated(text) {
            if !text.containsBytes("{{") {
                facts.substitutable.append(ImageUse(origin: origin, file: fileIndex, object: object, text: text, span: y.nodes[n].span))
            }
            return
        }
        // (made in its place in the list, then read: made aside and appended, the large value was copied twice)
        let image = facts.images.count
        facts.images.append(ImageUse(origin: origin, file: fileIndex, object: object, text: text, span: y.nodes[n].span))
        facts.images[image].parse(text)
        facts.images[image].nodes = [n]
        imageNodes[n] = ImageID(image)
    }

    /// The entries' images; returns the entries.
    /// `foldingCase`: a kustomization's, whose fields kustomize matches whatever their case (`newtag:`); a Flux
    /// Kustomization's `spec.images` are the API server's, which drops fields of another case.
    mutating func kustomizeImages(_ list: Int, object: ObjectID, foldingCase: Bool = false) -> [KustomizeImageEntry] {
        guard y.nodes[list].kind == .sequence else { return [] }
        var entries: [KustomizeImageEntry] = []
        for entry in y.childNodes(list) where y.nodes[entry].kind == .mapping {
            var fields = (name: y.get(entry, "name"), newName: y.get(entry, "newName"), newTag: y.get(entry, "newTag"), digest: y.get(entry, "digest"))
            // a key of another case (`newtag:`), looked for only where the entry holds a key none of those is
            if foldingCase, y.nodes[entry].childCount / 2 > [fields.name, fields.newName, fields.newTag, fields.digest].count(where: { $0 != nil }) {
                fields = (y.getFoldingCase(entry, "name"), y.getFoldingCase(entry, "newName"), y.getFoldingCase(entry, "newTag"),
                          y.getFoldingCase(entry, "digest"))
            }
            guard let nameNode = fields.name, let name = y.scalarString(nameNode) else { continue }
            let newName = fields.newName
            // kustomize keeps the name it splits from the container's reference: a name written with its tag
            // (`bitnami/kubectl:latest`) gives the image its name alone
            let effective = y.scalarString(newName) ?? KustomizeImageEntry.kustomizeName(of: name) ?? name
            var use = ImageUse(origin: .kustomize, file: fileIndex, object: object, text: effective,
                               name: effective, span: y.nodes[newName ?? nameNode].span)
            use.tagOptional = true
            use.entryNameOffset = y.nodes[nameNode].span.start.offset
            var nodes = [nameNode]
            if let newName { nodes.append(newName) }
            if let t = fields.newTag, y.nodes[t].kind == .scalar, !y.isNull(t) {
                use.tag = located(t)
                nodes.append(t)
            }
            // kustomize takes an empty digest for none (JournalDuHacker/fluxcd's `digest: ""` that a marker fills)
            if let dg = fields.digest, let d = y.scalarString(dg), !d.isEmpty {
                use.digest = d
                use.digestField = located(dg)
                nodes.append(dg)
            }
            entries.append(KustomizeImageEntry(name: located(nameNode), newName: y.scalarString(newName),
                                               setsTag: use.tag != nil || use.digest != nil))
            finishParts(&use, nodes: nodes)
        }
        return entries
    }

    /// Whether kustomization `root` sets nothing but kustomize's defaults of apiVersion and kind, which kustomize refuses
    /// ("kustomization.yaml is empty": `Kustomization.CheckEmpty`, after `FixKustomization` fills those two in). Any other
    /// field with a value, even an empty list, is something.
    static func setsNothing(_ y: YAMLFile, _ root: Int) -> Bool {
        guard y.nodes[root].kind == .mapping else { return false }
        // (bytes compared in place: most kustomizations are something, and say so at their third key)
        return y.pairs(root).allSatisfy { k, v in
            if y.isNull(v) { return true }
            guard y.nodes[v].kind == .scalar else { return false }
            if y.valueEquals(k, "apiVersion") { return y.valueEquals(v, "") || y.valueEquals(v, "kustomize.config.k8s.io/v1beta1") }
            if y.valueEquals(k, "kind") { return y.valueEquals(v, "") || y.valueEquals(v, "Kustomization") }
            return false
        }
    }

    /// The files kustomization `root` reads as data: its generators' and replacements' (a configMapGenerator's
    /// `files` are its ConfigMaps' data, read with them).
    @inline(never)
    mutating func kustomizeInputs(_ root: Int) {
        if let list = y.get(root, "secretGenerator") {
            for g in y.childNodes(list) { generatorInputs(g, fields: ["files", "envs", "env"]) }
        }
        if let list = y.get(root, "configMapGenerator") {
            for g in y.childNodes(list) { generatorInputs(g, fields: ["envs", "env"]) }
        }
        if let list = y.get(root, "replacements") {
            for r in y.childNodes(list) { if let p = y.scalarString(y.get(r, "path")) { facts.kustomizeInputFiles.append(p) } }
        }
    }

    /// A generator's `files` entry, `key=path` or a path whose file name is the key.
    static func generatorFile(_ entry: String) -> (key: String, path: String) {
        if let eq = entry.firstIndex(of: "=") { return (String(entry[..<eq]), String(entry[entry.index(after: eq)...])) }
        return (Path.basename(entry), entry)
    }

    /// The files generator `g` reads under `fields` (`files: [key=path]`, `envs: [path]`, `env: path`).
    mutating func generatorInputs(_ g: Int, fields: [StaticString]) {
        for field in fields {
            guard let node = y.get(g, field) else { continue }
            let entries = y.nodes[node].kind == .scalar ? [node] : y.childNodes(node)
            for n in entries {
                if let entry = y.scalarString(n) { facts.kustomizeInputFiles.append(Extractor.generatorFile(entry).path) }
            }
        }
    }

    /// Composes and validates a reference given in parts. One with `${…}` in a part waits for the model, which
    /// knows what Flux substitutes; one with `{{ … }}` is filled in by a template later and not judged.
    mutating func finishParts(_ use: inout ImageUse, nodes: [Int]) {
        use.compose()
        let parts = [use.name, use.tag?.value, use.digest].compactMap { $0 }
        if parts.contains(where: Extractor.isTemplated) {
            if !parts.contains(where: { $0.containsBytes("{{") }) { facts.substitutable.append(use) }
            return
        }
        use.nodes = nodes
        for n in nodes { imageNodes[n] = ImageID(facts.images.count) }
        facts.images.append(use)
    }

    /// Whether a values key names an image's tag beside it, in any case and spelling (`imageTag`, `imagetag`, `image_tag`,
    /// `appTag`), `tag` itself aside.
    static func namesATag(_ key: ArraySlice<UInt8>) -> Bool {
        guard key.count > 3 else { return false }
        let end = key.endIndex
        return key[end - 3] | 0x20 == UInt8(ascii: "t") && key[end - 2] | 0x20 == UInt8(ascii: "a") && key[end - 1] | 0x20 == UInt8(ascii: "g")
    }

    /// Whether an `image:` value writes a tag or digest of its own: a `:` after its last `/`, as Flux's substitution
    /// leaves it when no variable is set (`${repo:=docker.io/mesosphere/kubectl}` is a repository, whose `:=` is no
    /// tag's; so is `localhost:5001/knative-operator`, whose `:` is its registry's port).
    static func holdsTagSeparator(_ written: String) -> Bool {
        guard written.containsBytes(":") else { return false }
        let text = written.containsBytes("${") ? Envsubst.expand(written) { _ in .undefined }?.text ?? written : written
        return text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last?.contains(UInt8(ascii: ":")) ?? false
    }

    /// A kustomize resource from outside the repository: a URL, or a git repository (`github.com/org/repo//path?ref=v1`,
    /// `git@github.com:org/repo`). A local path has no `:`, `?` or `@`.
    package static func isRemote(_ r: String) -> Bool {
        var r = r
        return r.withUTF8 { b in
            b.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "@") })
                || b.starts(with: "github.com/".utf8) || b.starts(with: "gitlab.com/".utf8)
        }
    }

    /// The digest a chart's image parts pin beside the tag, with its node: `digest:`, or `sha:` holding a whole digest
    /// (`sha256:` and 64 hex digits, as kguardian's chart reads it). A `sha:` of the bare hex digits (the form
    /// kube-prometheus-stack's and Grafana's charts read) is not taken: a digest written there would not be in it.
    func partsDigest(_ n: Int) -> (node: Int, digest: String)? {
        if let dg = y.get(n, "digest"), let d = y.scalarString(dg), !d.isEmpty { return (dg, d) }
        guard let sha = y.get(n, "sha"), let d = y.scalarString(sha), SHA256.isDigest(d) else { return nil }
        return (sha, d)
    }

    /// HelmRelease values: `image:` strings and `repository` + `tag` maps (`name` or `repo` + `tag` under an `image:` key), at
    /// any depth; and `image: {tag: …}`, which keeps the chart's repository and sets only the tag.
    /// `path`: where `n` stands under a HelmRelease's `spec.values` (nil elsewhere, or under a list), which each image
    /// found keeps as the path of the field that sets its tag (`ImageUse.valuesPath`).
    /// `composed`: a mapping above holds a `hub` (Istio's `global.hub` composes `global.proxy.image`).
    /// `containers`: `n` is a `containers` or `initContainers` list (or an item of one), whose items' `image` kustomize's
    /// `images:` entries rewrite (`ImageUse.inContainerList`).
    /// `disabled`: a mapping above turns its component off (`Extractor.disables`), which the images found say.
    mutating func helmValues(_ n: Int, object: ObjectID, depth: Int, underImageKey: Bool = false, path: [String]? = nil, composed above: Bool = false,
                             containers: Bool = false, disabled: String? = nil) {
        guard depth < 64 else { return }
        switch y.nodes[n].kind {
        case .mapping:
            // under an `image:` key some charts call the repository `name`, or `repo` (tailscale-operator's); beside an
            // `imageTag:` (loki-stack's logstash) an `image:` without a tag of its own is the repository
            var repo = y.get(n, "repository")
            // beside a `repository`, an `image:` key's `name` is the last part of the path the chart joins
            // (`{{ .repository }}/{{ .name }}:{{ .tag }}`, strimzi-kafka-operator's: `strimzi` and `operator`)
            let pathName = underImageKey && repo != nil ? y.scalarString(y.get(n, "name")).flatMap { $0.isEmpty ? nil : $0 } : nil
            if repo == nil, underImageKey { repo = y.get(n, "name") }
            if repo == nil, underImageKey { repo = y.get(n, "repo") }
            // `repository: ""`, like `tag: ""`, leaves the chart's own (slurm's `default (include …)`)
            if let r = repo, y.nodes[r].kind == .scalar, y.nodes[r].valueCount == 0 { repo = nil }
            var tag = y.get(n, "tag"), tagKey = "tag"
            if repo == nil, tag == nil, let t = y.get(n, "imageTag"), let written = y.get(n, "image") {
                let i = y.resolved(written)
                if y.nodes[i].kind == .scalar, let last = y.scalarString(i)?.split(separator: "/").last, !last.contains(":"), !last.contains("@") {
                    (repo, tag, tagKey) = (i, t, "imageTag")
                }
            }
            if let repo, let tag, let repoName = y.scalarString(repo), y.nodes[tag].kind == .scalar {
                var name = repoName
                var nodes = [repo, tag]
                if let pathName, let nameNode = y.get(n, "name") {
                    name = repoName.hasSuffix("/") ? repoName + pathName : repoName + "/" + pathName
                    nodes.append(nameNode)
                }
                if let reg = y.get(n, "registry"), let r = y.scalarString(reg), !r.isEmpty {
                    // a registry written with its `/` is one the chart joins as written (openebs/zfs-localpv's
                    // `{{ registry }}{{ repository }}`, whose values ask for the slash)
                    name = r.hasSuffix("/") ? r + repoName : r + "/" + repoName
                    nodes.append(reg)
                }
                var use = ImageUse(origin: .helmParts, file: fileIndex, object: object, text: name, name: name, span: y.nodes[repo].span)
                // `tag: ""` is the charts' way of saying "the chart's appVersion", like no tag at all
                if !y.isNull(tag), y.nodes[tag].valueCount > 0 { use.tag = located(tag) } else { use.tagOptional = true }
                if let (dg, d) = partsDigest(n) {
                    use.digest = d
                    use.digestField = located(dg)
                    nodes.append(dg)
                }
                use.valuesPath = path.map { $0 + [tagKey] }
                use.disabledBy = disabled
                finishParts(&use, nodes: nodes)
            } else if underImageKey, repo == nil, let tag, y.nodes[tag].kind == .scalar, !y.isNull(tag),
                      y.nodes[tag].valueCount > 0, imageNodes[tag] == nil, !Extractor.isTemplated(y.value(tag)) {
                var use = ImageUse(origin: .helmParts, file: fileIndex, object: object, text: y.value(tag), span: y.nodes[tag].span)
                use.tag = located(tag)
                use.nodes = [tag]
                use.valuesPath = path.map { $0 + ["tag"] }
                use.disabledBy = disabled
                if let (dg, d) = partsDigest(n) {
                    use.digest = d
                    use.digestField = located(dg)
                    use.nodes.append(dg)
                    imageNodes[dg] = ImageID(facts.images.count)
                }
                imageNodes[tag] = ImageID(facts.images.count)
                facts.images.append(use)
            }
            // Istio's charts (and others) compose `hub/image:tag` from sibling fields: `image: pilot` beside a `hub`, a
            // `tag` or a `repository` (gpu-operator's `repository/image:version`) is a part, not a whole reference; a web
            // address is a picture (homepage's `background.image`)
            let hub = above || y.get(n, "hub") != nil
            let composed = hub || Extractor.composesImage(y, n)
            for (k, v) in y.pairs(n) {
                if y.valueEquals(k, "image"), y.nodes[y.resolved(v)].kind == .scalar, y.resolved(v) != repo,
                   case let written = y.value(y.resolved(v)), !composed || Extractor.holdsTagSeparator(written),
                   !written.hasPrefix("https://"), !written.hasPrefix("http://") {
                    let at = facts.images.count
                    addReference(y.resolved(v), origin: .helmImage, object: object)
                    if let path, facts.images.count > at { facts.images[at].valuesPath = path + ["image"] }
                    if containers, facts.images.count > at { facts.images[at].inContainerList = true }
                    if disabled != nil, facts.images.count > at { facts.images[at].disabledBy = disabled }
                } else if y.nodes[v].kind != .scalar {
                    let list = y.nodes[v].kind == .sequence && (y.valueEquals(k, "containers") || y.valueEquals(k, "initContainers"))
                    helmValues(v, object: object, depth: depth + 1, underImageKey: y.valueEquals(k, "image"),
                               path: y.nodes[v].kind == .mapping ? path.map { $0 + [y.value(k)] } : nil, composed: hub, containers: list,
                               disabled: disabled ?? (Extractor.disables(y, v) ? y.value(k) + ".enabled" : nil))
                }
            }
        case .sequence:
            for c in y.childNodes(n) where y.nodes[c].kind != .scalar {
                helmValues(c, object: object, depth: depth + 1, composed: above, containers: containers && y.nodes[c].kind == .mapping,
                           disabled: disabled)
            }
        default:
            break
        }
    }

    /// Whether mapping `n` composes an image from sibling parts: a `hub`, a `tag` (or a key of a tag however spelled,
    /// `imagetag:`, which the chart's `imageTag` default stands in for), a `repository` or a `version` (tigera-operator's
    /// `registry/image:version`) beside its `image:`.
    static func composesImage(_ y: YAMLFile, _ n: Int) -> Bool {
        y.get(n, "hub") != nil || y.get(n, "tag").map { y.nodes[$0].kind == .scalar } == true
            || y.get(n, "repository").map { y.nodes[y.resolved($0)].kind == .scalar } == true
            || y.get(n, "version").map { y.nodes[y.resolved($0)].kind == .scalar } == true
            || y.pairs(n).contains { p in Extractor.namesATag(y.valueBytes(p.key)) && y.nodes[y.resolved(p.value)].kind == .scalar }
    }

    /// The values keys charts give to their `helm test` hooks (`ImageUse.helmTestKey`).
    static let helmTestKeys: Set<String> = ["test", "tests", "testFramework", "chartTests"]   // (chartTests: qdrant's)

    /// Whether HelmRelease `root` has Flux run the chart's tests after an install or upgrade (`spec.test.enable: true`).
    static func runsTests(_ y: YAMLFile, _ root: Int) -> Bool {
        guard let e = y.get(root, "spec", "test", "enable"), y.nodes[e].kind == .scalar, y.resolvedType(e) == .bool else { return false }
        return ["true", "yes", "on", "y"].contains(y.value(e).lowercased())
    }

    /// Whether values mapping `n` turns its component off: `enabled: false` (YAML 1.1's `no` and `off` too, as Helm reads
    /// values).
    static func disables(_ y: YAMLFile, _ n: Int) -> Bool {
        guard y.nodes[n].kind == .mapping, let e = y.get(n, "enabled"), y.nodes[e].kind == .scalar, y.resolvedType(e) == .bool else { return false }
        return ["false", "no", "off", "n"].contains(y.value(e).lowercased())
    }

    // MARK: markers

    /// Whether the `$imagepolicy` at `token` reads as a marker, well-formed or not: a `{` before it in its comment (from
    /// `from`), or a `:` after it on its line. Prose that names it ("rewritten by the $imagepolicy setter", "update the
    /// policy name in the `$imagepolicy` comment": shyim/mochi, PHACDataHub/cpho-phase2) is no marker.
    static func readsAsMarker(_ bytes: [UInt8], from: Int, token: Int, lineEnd: Int) -> Bool {
        bytes[from..<token].contains(UInt8(ascii: "{"))
            || bytes[min(token + markerToken.utf8CodeUnitCount, lineEnd)..<lineEnd].contains(UInt8(ascii: ":"))
    }

    /// Every `$imagepolicy` that reads as a marker in the file, classified by where it sits.
    mutating func markers() {
        let bytes = y.bytes
        let occurrences = SourceText.occurrences(of: Extractor.markerToken, in: bytes)
        guard !occurrences.isEmpty else { return }
        if occurrences.count > 8 { lines = LineIndex(bytes) }
        // comments taken by step 1, in source order
        var claimed: [Range<Int>] = []
        // 1. comments that follow a scalar on its line (in source order, as the occurrences are: one pass over both)
        var nextOccurrence = 0
        for i in y.commented {
            let node = y.nodes[i]
            let range = node.commentStart..<node.commentEnd
            while nextOccurrence < occurrences.count, occurrences[nextOccurrence] < range.lowerBound { nextOccurrence += 1 }
            guard nextOccurrence < occurrences.count, range.contains(occurrences[nextOccurrence]) else { continue }
            let token = occurrences[nextOccurrence]
            claimed.append(range)
            guard Extractor.readsAsMarker(bytes, from: range.lowerBound, token: token, lineEnd: range.upperBound) else { continue }
            let context: MarkerContext = node.isKey ? .keyLine : .value
            var key: String?
            if node.parent >= 0, y.nodes[node.parent].kind == .mapping {
                let kids = y.childNodes(node.parent)
                if let pos = kids.firstIndex(of: i), (pos - kids.startIndex) % 2 == 1 { key = y.value(kids[pos - 1]) }
            }
            let scalar = node.isKey ? nil : located(i)
            var marker = MarkerComment(file: fileIndex, text: String(decoding: bytes[range], as: UTF8.self),
                                       span: span(range, after: i), scalar: scalar, context: context, object: objectOf(i), fieldKey: key)
            // an `image:` without a tag of its own beside parts a chart composes it with is that image's name
            marker.composedName = key == "image" && !node.isKey && Extractor.composesImage(y, node.parent)
                && !Extractor.holdsTagSeparator(y.value(i))
            if context == .value {
                attachMarker(i, marker: marker)
                marker.image = imageNodes[i]
            }
            facts.markers.append(marker)
        }
        // 2. every other occurrence: a comment line, a key line, or text inside a string. Occurrences come in
        // source order, so the claimed ranges are passed once; step 2 claims the rest of an occurrence's line.
        var next = 0
        var claimedUpTo = 0
        for off in occurrences {
            while next < claimed.count, claimed[next].upperBound <= off { next += 1 }
            if off < claimedUpTo || (next < claimed.count && claimed[next].contains(off)) { continue }
            if scalars.isEmpty { scalars = y.nodes.indices.filter { y.nodes[$0].kind == .scalar } }
            if let n = scalarContaining(off) {
                let end = SourceText.lineEnd(bytes, from: off)
                var start = off
                while start > 0, bytes[start - 1] != 10, bytes[start - 1] != UInt8(ascii: "#") { start -= 1 }
                if start > 0, bytes[start - 1] == UInt8(ascii: "#") { start -= 1 }
                claimedUpTo = end
                guard Extractor.readsAsMarker(bytes, from: start, token: off, lineEnd: end) else { continue }
                facts.markers.append(MarkerComment(file: fileIndex, text: String(decoding: bytes[start..<end], as: UTF8.self),
                                                   span: span(start..<end), scalar: nil, context: .blockScalar, object: objectOf(n)))
                continue
            }
            var lineStart = off
            while lineStart > 0, bytes[lineStart - 1] != 10 { lineStart -= 1 }
            // the comment starts at the first '#' on the line that is at the line start or after a blank
            var hash = lineStart
            var found = -1
            while hash < off {
                if bytes[hash] == UInt8(ascii: "#"), hash == lineStart || bytes[hash - 1] == 32 || bytes[hash - 1] == 9 { found = hash; break }
                hash += 1
            }
            guard found >= 0 else { continue }
            let end = SourceText.lineEnd(bytes, from: found)
            claimedUpTo = end
            guard Extractor.readsAsMarker(bytes, from: found, token: off, lineEnd: end) else { continue }
            let before = bytes[lineStart..<found].filter { $0 != 32 && $0 != 9 }
            var context: MarkerContext
            if before.isEmpty { context = .commentLine }
            else if before.last == UInt8(ascii: ":") { context = .keyLine }
            else if Extractor.lastToken(bytes, lineStart..<found).first == UInt8(ascii: "*") { context = .alias }
            else { context = .other }
            let text = String(decoding: bytes[found..<end], as: UTF8.self)
            // after a sequence entry's `-` whose item starts on the next line (`- # …`), the comment is that item's head comment too
            let dashLine = !before.isEmpty && before.allSatisfy { $0 == UInt8(ascii: "-") }
            if context == .commentLine || dashLine, let (item, alone) = headCommentItem(lineStart: lineStart, commentEnd: end, dashLine: dashLine) {
                // the head comment of a block sequence item or mapping value: Flux reads it when the value has no line comment
                if !alone {
                    context = .multiLineHeadComment
                } else if y.nodes[item].commentStart >= 0 {
                    context = .hiddenHeadComment
                } else {
                    var marker = MarkerComment(file: fileIndex, text: text, span: span(found..<end), scalar: located(item),
                                               context: .value, object: objectOf(item))
                    attachMarker(item, marker: marker)
                    marker.image = imageNodes[item]
                    facts.markers.append(marker)
                    continue
                }
            }
            // a comment that is more than the marker: a line of YAML commented out with its marker
            if context == .commentLine, bytes[found..<end].first(where: { $0 != UInt8(ascii: "#") && $0 != 32 && $0 != 9 }) != UInt8(ascii: "{") {
                context = .commentedOut
            }
            facts.markers.append(MarkerComment(file: fileIndex, text: text, span: span(found..<end), scalar: nil, context: context,
                                               object: objectAt(found)))
        }
        facts.markers.sort { $0.span.start.offset < $1.span.start.offset }
    }

    func span(_ r: Range<Int>) -> SourceSpan { Extractor.span(y.bytes, r, lines) }

    /// The span of one-line `r`, which follows node `n` on the line where the node starts or ends (its line comment):
    /// counted from the node's position, not from the file's start.
    func span(_ r: Range<Int>, after n: Int) -> SourceSpan {
        let node = y.nodes[n].span
        guard let start = SourceText.position(y.bytes, offset: r.lowerBound, onLineOf: r.lowerBound >= node.end.offset ? node.end : node.start)
        else { return span(r) }
        return Extractor.span(y.bytes, r, from: start)
    }

    func position(_ offset: Int) -> SourcePosition {
        lines?.position(y.bytes, offset: offset) ?? SourceText.position(y.bytes, offset: offset)
    }

    /// The last blank-separated token of `range` (an alias `*img` before a comment, say).
    static func lastToken(_ bytes: [UInt8], _ range: Range<Int>) -> ArraySlice<UInt8> {
        var end = range.upperBound
        while end > range.lowerBound, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
        var start = end
        while start > range.lowerBound, !" \t[{,".utf8.contains(bytes[start - 1]) { start -= 1 }
        return bytes[start..<end]
    }

    /// The scalar a comment line is the head comment of, as go-yaml v3 gives it: an item of a block sequence, or a
    /// value of a block mapping, that starts on the next line (a `- # …` line's item too); and whether the comment
    /// stands alone: go-yaml joins the comment lines right above it, and those above a bare `-` line, into one head
    /// comment, which Flux cannot read as one JSON object. A key's head comment is no value's. (A blank line after
    /// the comment makes go-yaml place it elsewhere, variously: it is taken as a line of its own.)
    func headCommentItem(lineStart: Int, commentEnd: Int, dashLine: Bool = false) -> (item: Int, alone: Bool)? {
        let bytes = y.bytes
        /// What the line before the one starting at `start` holds, and where it starts.
        func lineAbove(_ start: Int) -> (kind: UInt8?, start: Int)? {
            guard start > 0 else { return nil }
            var prev = start - 1
            while prev > 0, bytes[prev - 1] != 10 { prev -= 1 }
            let text = bytes[prev..<(start - 1)].filter { $0 != 32 && $0 != 9 && $0 != 13 }
            if text.first == UInt8(ascii: "#") { return (UInt8(ascii: "#"), prev) }
            if !text.isEmpty, text.allSatisfy({ $0 == UInt8(ascii: "-") }) { return (UInt8(ascii: "-"), prev) }
            return (nil, prev)
        }
        var next = commentEnd
        if next < bytes.count, bytes[next] == 13 { next += 1 }
        guard next < bytes.count, bytes[next] == 10 else { return nil }
        next += 1
        // the first scalar at or after the next line's start, if it starts on that line
        let k = firstScalar(startingAtOrAfter: next)
        guard k < scalars.count else { return nil }
        let i = scalars[k], n = y.nodes[i]
        guard n.span.start.line == position(next).line, n.parent >= 0, !y.nodes[n.parent].isFlow, !n.isKey else { return nil }
        var alone = true
        if var above = lineAbove(lineStart) {
            // between a bare `-` and its own item (not a nested `- …` entry), the comment joins those above the `-`
            if above.kind == UInt8(ascii: "-"), !dashLine, !bytes[next..<n.span.start.offset].contains(UInt8(ascii: "-")),
               let further = lineAbove(above.start) { above = further }
            if above.kind == UInt8(ascii: "#") { alone = false }
        }
        return (i, alone)
    }

    /// The position in `scalars` of the first scalar that starts at or after `offset`.
    func firstScalar(startingAtOrAfter offset: Int) -> Int {
        var lo = 0, hi = scalars.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if y.nodes[scalars[mid]].span.start.offset < offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The span of a one-line byte range.
    static func span(_ bytes: [UInt8], _ r: Range<Int>, _ lines: LineIndex?) -> SourceSpan {
        span(bytes, r, from: lines?.position(bytes, offset: r.lowerBound) ?? SourceText.position(bytes, offset: r.lowerBound))
    }

    /// The span of one-line range `r`, which starts at `s`.
    static func span(_ bytes: [UInt8], _ r: Range<Int>, from s: SourcePosition) -> SourceSpan {
        var e = s
        e.offset = r.upperBound
        e.column = s.column + SourceText.column(bytes, lineStart: r.lowerBound, at: r.upperBound) - 1   // the range is one line
        return SourceSpan(start: s, end: e)
    }

    /// The scalar whose text holds byte `off` (scalars do not overlap).
    func scalarContaining(_ off: Int) -> Int? {
        let k = firstScalar(startingAtOrAfter: off + 1) - 1
        guard k >= 0, off < y.nodes[scalars[k]].span.end.offset else { return nil }
        return scalars[k]
    }

    /// The object whose document contains node `n`.
    func objectOf(_ n: Int) -> ObjectID? {
        objectAt(y.nodes[n].span.start.offset)
    }

    /// The last object whose document holds `offset` (objects come in document order).
    func objectAt(_ offset: Int) -> ObjectID? {
        var lo = 0, hi = facts.objects.count   // the objects whose document starts at or before offset
        while lo < hi {
            let mid = (lo + hi) / 2
            if y.documents[facts.objects[mid].document].span.start.offset <= offset { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, offset <= y.documents[facts.objects[lo - 1].document].span.end.offset else { return nil }
        return ObjectID(lo - 1)
    }

    /// A marker on a scalar makes it an image field, if nothing else did.
    mutating func attachMarker(_ n: Int, marker: MarkerComment) {
        guard imageNodes[n] == nil, let parsed = marker.ref else { return }
        // a whole-reference marker on a field that holds one part (`tag: 1.2.3`) makes it that part, not a reference:
        // marker-wrong-form says what is wrong with the marker
        let key = marker.fieldKey ?? ""
        let isTag = parsed.part == .tag || (parsed.part == .reference && MarkerComment.tagFields.contains(key))
        if parsed.part == .reference, MarkerComment.nameFields.contains(key) || MarkerComment.digestFields.contains(key) { return }
        switch parsed.part {
        case .reference where !isTag:
            addReference(n, origin: .marker, object: marker.object)
        case .reference, .tag:
            // outside a Kubernetes object (a data or values file), a key that names no image's part is a value Flux writes
            // a tag into, not an image (kingdon-ci's `content-hash: v1` rolls a deployment); a release that reads the
            // file reads its images by the chart's keys (`ValuesFiles`)
            if marker.object == nil, !key.isEmpty, !["tag", "image", "version"].contains(where: { key.lowercased().contains($0) }) { return }
            var use = ImageUse(origin: .marker, file: fileIndex, object: marker.object, text: y.value(n), span: y.nodes[n].span)
            use.tag = located(n)
            use.nodes = [n]
            imageNodes[n] = ImageID(facts.images.count)
            facts.images.append(use)
        default:
            break
        }
    }

    // MARK: suppressions

    /// `# tagwarden:ignore RULE[,RULE] reason`
    static func suppressions(_ bytes: [UInt8]) -> [Suppression] {
        // (found by its `w`: every file has many a `t`)
        let occurrences = SourceText.occurrences(of: suppressionToken, in: bytes, pick: 3)
        guard !occurrences.isEmpty else { return [] }
        let lines = occurrences.count > 8 ? LineIndex(bytes) : nil
        var out: [Suppression] = []
        for off in occurrences {
            var k = off - 1
            while k >= 0, bytes[k] == 32 || bytes[k] == 9 { k -= 1 }
            guard k >= 0, bytes[k] == UInt8(ascii: "#") else { continue }
            let end = SourceText.lineEnd(bytes, from: off)
            let rest = String(decoding: bytes[(off + suppressionToken.utf8CodeUnitCount)..<end], as: UTF8.self)
            let words = rest.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            let rules = words.first.map { $0.split(separator: ",").map(String.init) } ?? []
            let reason = words.count > 1 ? String(words[1]).trimmingBlanks : ""
            let start = lines?.position(bytes, offset: k) ?? SourceText.position(bytes, offset: k)
            var e = lines?.position(bytes, offset: end) ?? SourceText.position(bytes, offset: end)
            e.line = start.line
            out.append(Suppression(line: start.line, rules: rules, reason: reason, span: SourceSpan(start: start, end: e)))
        }
        return out
    }
}

extension String {
    package var trimmingBlanks: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

extension YAMLFile {
    /// The value of scalar `n`; nil for a null, or a node that is no scalar. (A method of the tree, not of the extractor:
    /// where the extractor's own methods are called, a mutating one may take a copy of the whole extractor to call it.)
    func scalarString(_ n: Int?) -> String? {
        guard let n, nodes[n].kind == .scalar, !isNull(n) else { return nil }
        return value(n)
    }
}
