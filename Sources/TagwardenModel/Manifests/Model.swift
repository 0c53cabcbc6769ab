import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import Dispatch

/// Everything the rules read, built once per run from all files. Rules never parse YAML.
public struct Model: Sendable {
    public let files: Files
    public let objects: Objects
    /// Every image reference, resolved.
    public let images: Table<ImageID, ResolvedImage>
    /// Every `$imagepolicy` comment, resolved.
    public let markers: Table<MarkerID, ResolvedMarker>
    public let config: Config
    public let environments: EnvironmentModel
    /// Effective namespace per object: declared, inherited from kustomize, or a Flux Kustomization's target.
    public let objectNamespace: Table<ObjectID, String?>
    public let objectEnvironment: Table<ObjectID, String?>
    public let floatingTags: Set<String>
    /// `shortVersionReleases`: images whose tags of one or two numbers are releases, not series.
    public let shortVersionReleases: [Glob]
    /// Labels of the Namespace objects in the repository, by name.
    public let namespaceLabels: StringMap<[String: String]>
    /// The labels builds add to the Namespaces of each name (`labelsAddedByBuilds`): one map per build that adds some.
    public let namespaceAddedLabels: [String: [[String: String]]]
    /// Flux objects resolved against each other.
    public let flux: FluxIndex
    /// kustomize `images:` entries that match no image of their build.
    public let unmatchedImageEntries: [UnmatchedImageEntry]
    /// The clusters the repository describes, what each applies and the Flux each runs.
    public let clusters: Clusters
    /// Object → what gave it another namespace than it declares (a kustomization's `namespace:`, a Flux
    /// Kustomization's `targetNamespace`), for messages.
    public let namespaceOverride: [ObjectID: String]
    /// Object → why its namespace is not known: a kustomization's `replacements:` that Tagwarden does not follow may set
    /// the targetNamespace of the Flux Kustomization that builds it (`replaceTargetNamespaces`).
    public let namespaceNotKnown: [ObjectID: String]
    /// Object → the namespaces the builds that take it give it, where they give it different ones (its namespace is
    /// then nil: open): a base's Secret that the production and staging overlays each move (gjcourt/homelab).
    public let openNamespaces: [ObjectID: [String]]
    /// Object → the name it is written with, for those a kustomization's `namePrefix`/`nameSuffix` renames (their
    /// `name` is the cluster's).
    public let writtenName: [ObjectID: String]
    /// Object → the object it is another variant of: a base's image-automation object that builds patch differently
    /// (`EffectiveObjects`), deployed by other builds under the same file and line.
    public let variantOf: [ObjectID: ObjectID]
    /// Variant object (and the base object it was made of) → the clusters whose builds deploy it, known by its root
    /// kustomizations (`clusters(deploying:)`).
    let variantClusters: [ObjectID: [ClusterID]]
    /// Helm charts of the repository whose templates make ImagePolicies: Go templates Tagwarden does not render, so a
    /// policy no manifest defines may be one of theirs.
    public let policyCharts: [String]
    /// What kustomizations list in `resources` (or `bases`, `components`) that the input has neither as a manifest
    /// nor as a directory of files: a file under a name the listing passes over (`app.json`), or nothing.
    public let unlistedResources: [String]
    /// Kustomization object → what its `resources`, `bases` or `components` name (normalised) that kustomize cannot
    /// take: a path the repository does not hold (no file, no directory of files, nothing skipped or ignored there), or
    /// a directory without a kustomization file; and patch files it does not hold; each with why. Remote resources and
    /// paths that leave the repository are not judged.
    public let missingResources: [ObjectID: [MissingEntry]]
    /// A path a kustomization names that kustomize cannot take, with why; `isPatch`: named as a patch file.
    public struct MissingEntry: Sendable {
        public let path: String, why: String, isPatch: Bool
    }
    /// The Flux Kustomizations of this repository whose `path` holds no manifest here: they deploy nothing. A path
    /// that a patch of a build taking the Kustomization may set is judged as the patch writes it, not as written.
    public let emptyFluxPaths: [EmptyFluxPath]
    /// Of those, the ones whose GitRepository is taken to be this repository, and the premise.
    public let emptyPathPremises: [ObjectID: String]
    /// The patches kustomize refuses to apply (`PatchTargets`), by the kustomization whose build they fail.
    public let patchFailures: [PatchFailure]
    /// The files that fail the kustomization Flux generates at a Flux Kustomization's `path` (`generatedBuildRefusals`).
    public let generatedBuildRefusals: [GeneratedBuildRefusal]
    /// The kustomizations that change resources (`kustomizeChangesResources`) → the targets of those of their patches
    /// that may delete or rename what they select; nil where anything may (Components, `allowNameChange`, a patch
    /// whose target is not read). A kustomization whose patches only edit fields passes its resources' identities on.
    let identityPatches: [ObjectID: [EffectiveObjects.Selector]?]
    /// The directories that hold a kustomization.
    let kustomizationDirectories: StringSet
    /// Each Flux Kustomization `path` without a kustomization file → the file of the first Flux Kustomization of it,
    /// whose generated kustomization builds it (`sideBySideBuilds(of:)`).
    let generatedBuilds: [String: FileID]
    /// The resources kustomize builds take twice, and the builds it refuses for them.
    public let duplicateIDs: DuplicateIDs
    /// What staging ran (from git history), for the promotion rules; nil when they do not apply.
    public let evidence: PromotionEvidence?
    /// The files of the snapshot that were not read, and why.
    public let skipped: [SkippedFile]
    /// What includes what among the kustomizations, and the one way up their chains.
    public let graph: IncludeGraph
    /// File path (or directory) → the kustomizations whose `resources`, `bases` or `components` name it.
    public var includedBy: StringMap<[ObjectID]> { graph.includedBy }

    /// The elements of `list`, moved out one by one (a consuming iterator): `list` is left empty.
    static func take<T>(_ list: inout [T]) -> Taken<T> {
        var out: [T] = []
        swap(&out, &list)
        // (reversed in place by moves: the array's own `reverse` swaps by copies, each retaining all an element holds)
        out.withUnsafeMutableBufferPointer { $0.reverse() }
        return Taken(rest: out)
    }

    struct Taken<T>: Sequence, IteratorProtocol {
        var rest: [T]
        mutating func next() -> T? { rest.popLast() }
    }

    /// The directories of Helm charts (holding a `Chart.yaml`), each with its trailing slash ("" for the root).
    public static func chartDirectories(_ paths: [String]) -> [String] {
        paths.compactMap { p in p == "Chart.yaml" ? "" : p.hasBytesSuffix("/Chart.yaml") ? String(p.dropLast("Chart.yaml".count)) : nil }
    }

    /// The chart (of `chartDirectories`) that `path` is a file of: the nearest.
    public static func chartHolding(_ path: String, charts: [String]) -> Int? {
        charts.indices.filter { path.hasPrefix(charts[$0]) }.max { charts[$0].utf8.count < charts[$1].utf8.count }
    }

    /// A file of chart `chart` (a directory of `chartDirectories`) that Helm does not parse itself: not its metadata,
    /// values (`values*.yaml` beside `Chart.yaml`), templates or CRDs; its templates may read it through `.Files`.
    public static func isChartDataFile(_ path: String, chart: String) -> Bool {
        let inside = path.dropFirst(chart.count)
        let name = Path.basename(path)
        if !inside.contains("/") { return !(name.hasPrefix("values") || name == "Chart.yaml" || name == "Chart.lock") }
        return !(inside.hasPrefix("templates/") || inside.hasPrefix("crds/") || inside.hasPrefix("charts/"))
    }

    public static let defaultFloatingTags = ["main", "master", "develop", "development", "dev", "stable", "edge", "nightly",
                                             "canary", "release", "head", "snapshot", "prod", "production", "staging", "stage",
                                             "test", "testing", "unstable", "next", "trunk", "current", "lts", "mainline", "beta", "alpha", "preview"]
        + variantTags

    /// The floating tags that name a base or a build of the image, not a channel: distribution codenames, rebuilt with every
    /// point release and security fix, and variants that name no version, which follow the image's latest release. Such a
    /// word may carry a version of its own (`alpine3.20`, `ltsc2022`, `ubi9`) and still name no version of the image; a
    /// channel's word with a number (`release2`, `beta2`) names a release.
    public static let variantTags = ["stretch", "buster", "bullseye", "bookworm", "trixie", "sid", "bionic", "focal", "jammy", "noble",
                                     "alpine", "slim", "windowsservercore", "nanoserver", "ltsc", "ubi", "ubuntu", "debian", "distroless"]

    /// Parses and extracts every file (in parallel), then resolves namespaces and environments.
    /// `policyCharts`: the Helm charts of the repository whose templates (not read) make ImagePolicies.
    /// `skipped`: the files of the snapshot that were not read. `evidence`: what staging ran, which needs the Model to
    /// know where staging lives; it is given the Model once built, and the Model returned holds what it found.
    /// `sharing`: another audit's facts to take, or this one's to offer (`SharedExtraction`).
    public static func build(_ sources: [SourceFile], config: Config, profile: String?, remoteURLs: [String] = [], checkout: Checkout? = nil,
                             policyCharts: [String] = [], skipped: [SkippedFile] = [], sourceIgnore: String? = nil,
                             readIgnoreFile: ((String) -> String?)? = nil, holdsFiles: ((String) -> Bool)? = nil,
                             sharing: SharedExtraction.Role? = nil,
                             evidence: (Model) throws -> PromotionEvidence? = { _ in nil }) rethrows -> Model {
        let facts = extractAll(sources, sharing: sharing)
        Timings.mark("extract")
        return try build(facts: consume facts, config: config, profile: profile, remoteURLs: remoteURLs, checkout: checkout, policyCharts: policyCharts,
                         skipped: skipped, sourceIgnore: sourceIgnore, readIgnoreFile: readIgnoreFile, holdsFiles: holdsFiles, evidence: evidence)
    }

    /// Appends the images of release values files (a generated ConfigMap's file, a chart's `valuesFiles`) to `images`.
    /// A marked field there was read as the marker's image too: that reading is dropped, and the marker belongs to
    /// the release's image of the field, so it is judged once, with the name beside it. Returns the images whose field
    /// several releases read.
    static func adoptMarkedValues(_ values: [ImageUse], into images: inout Table<ImageID, ImageUse>,
                                  markers: inout Table<MarkerID, MarkerComment>) -> Set<ImageID> {
        guard !values.isEmpty else { return [] }
        let first = images.endIndex
        images += values
        var covering: [FileID: [Int: ImageID]] = [:]   // file → field offset → image
        var readers: [ImageID: Set<ObjectID?>] = [:]    // image → the releases that read its field
        for i in first..<images.endIndex {
            let img = images[i]
            for offset in [img.span.start.offset] + [img.tag?.span, img.digestField?.span].compactMap({ $0?.start.offset }) {
                if let earlier = covering[img.file]?[offset] {
                    readers[earlier, default: [images[earlier].object]].insert(img.object)
                } else {
                    covering[img.file, default: [:]][offset] = i
                }
            }
        }
        var dropped = Set<ImageID>()
        for k in markers.indices {
            let m = markers[k]
            guard let field = m.scalar?.span.start.offset, let i = covering[m.file]?[field] else { continue }
            if let own = m.image, images[own].origin == .marker { dropped.insert(own) }
            if m.image == nil || dropped.contains(m.image!) { markers[k].image = i }
        }
        // a chart's default that every release overrides is read only to hold the marker on its field
        let marked = Set(markers.rows.compactMap(\.image))
        for i in first..<images.endIndex where images[i].overriddenByReleases && !marked.contains(i) { dropped.insert(i) }
        let shared = Set(readers.filter { $0.value.count > 1 }.keys)
        guard !dropped.isEmpty else { return shared }
        var renumbered = Table<ImageID, ImageID?>(repeating: nil, count: images.count)
        var kept = Table<ImageID, ImageUse>()
        kept.reserveCapacity(images.count - dropped.count)
        for (i, img) in images.withIDs where !dropped.contains(i) { renumbered[i] = kept.add(img) }
        images = kept
        for k in markers.indices { if let i = markers[k].image { markers[k].image = renumbered[i] } }
        return Set(shared.compactMap { renumbered[$0] })
    }

    /// `sharing`: the facts of another audit's files to take where a file is the same, or this one's to offer.
    static func extractAll(_ sources: [SourceFile], sharing: SharedExtraction.Role? = nil) -> Files {
        let workers = max(1, min(sources.count, 8))
        let chunk = max(1, (sources.count + workers * 8 - 1) / (workers * 8))
        var taken: SharedExtraction.Taken?
        if case .take(let shared)? = sharing { taken = shared.taken() }
        // (a listing keeps a directory's files together: each takes the string of the directory of the one before where
        // it is the same, three files to a directory on the bench fleet)
        let files = Files(concurrentMap(sources.count, chunkSize: chunk, makeState: { (YAMLFile(), directory: "") }) { [taken] state, i in
            if let known = taken?.facts(for: sources[i], id: FileID(i)) { return known }
            let path = sources[i].path
            if !Path.isDirectlyIn(path, state.directory) { state.directory = Path.dirname(path) }
            return Extractor.extract(path: path, directory: state.directory, bytes: sources[i].bytes, index: FileID(i),
                                     unread: sources[i].unread, reusing: &state.0)
        })
        if case .offer(let shared)? = sharing { shared.offer(sources, files) }
        return files
    }

    public static func build(facts input: consuming Files, config: Config, profile: String?, remoteURLs: [String] = [], checkout: Checkout? = nil,
                             policyCharts: [String] = [], skipped: [SkippedFile] = [], sourceIgnore: String? = nil,
                             readIgnoreFile: ((String) -> String?)? = nil, holdsFiles: ((String) -> Bool)? = nil,
                             evidence: (Model) throws -> PromotionEvidence? = { _ in nil }) rethrows -> Model {
        var facts = consume input
        var objects: Objects = []
        var images = Table<ImageID, ImageUse>()
        var markers = Table<MarkerID, MarkerComment>()
        var substitutable: [ImageUse] = []
        // (each table made at its size once: grown step by step, the rows of 100,000 files were moved again and again)
        objects.reserveCapacity(facts.reduce(0) { $0 + $1.objects.count })
        images.reserveCapacity(facts.reduce(0) { $0 + $1.images.count })
        markers.reserveCapacity(facts.reduce(0) { $0 + $1.markers.count })
        for f in facts.indices {
            // the file's objects, images and markers are numbered within it: from here on, within the Model
            let base = objects.count
            objects.append(contentsOf: facts[f].objects)
            // the Model holds each once: moved out of the file's facts, element by element, never copied
            for var img in take(&facts[f].substitutable) {
                img.object = img.object?.advanced(by: base)
                substitutable.append(img)
            }
            let imageBase = images.count
            for var img in take(&facts[f].images) {
                img.object = img.object?.advanced(by: base)
                images.append(img)
            }
            for var m in take(&facts[f].markers) {
                m.object = m.object?.advanced(by: base)
                m.image = m.image?.advanced(by: imageBase)
                markers.append(m)
            }
            facts[f].objects = []
        }
        let (here, hereInferred) = hereRepositories(objects: objects, files: facts, remoteURLs: remoteURLs)
        let artifactSyncs = artifactSyncs(files: facts)
        markSourcesElsewhere(&objects, files: facts, here: here, artifactSyncs: artifactSyncs, checkout: checkout)
        var labels = StringMap<[String: String]>()
        for o in objects where o.kind == "Namespace" && o.apiVersion == "v1" {
            // the API server labels every Namespace with its name (selectors such as accessFrom's use it)
            if let n = o.name { labels[n, default: ["kubernetes.io/metadata.name": n]].merge(o.labels) { a, _ in a } }
        }
        let resources = resolvedResources(objects, files: facts)
        let builds = LazyBuildSets(objects: objects, files: facts, resources: resources)
        // the patches the effective objects apply, read on other threads while the clusters, namespaces and names are made
        let steps: Started<[ObjectID: EffectiveObjects.Steps]>? = objects.contains(where: { EffectiveObjects.patches($0, files: facts) })
            ? { [objects, facts, fileAt = builds.value.fileAt] in
                Started { EffectiveObjects.readAllSteps(objects: objects, files: facts, fileAt: fileAt) }
            }() : nil
        var nonResources = FluxIndex.nonResources(objects, files: facts)
        let graph = IncludeGraph(resources: resources, objects: objects, files: facts)
        patchPostBuilds(&objects, files: facts, graph: graph, builds: builds)
        // (each kustomization's replacements read once, for the target namespaces here and the image fields below)
        let replacements = objects.contains(where: { $0.kustomizeUnknowns.contains(.replacements) })
            ? replacementEntries(objects, files: facts, fileAt: builds.value.fileAt) : [:]
        let namespaceNotKnown = replaceTargetNamespaces(&objects, files: facts, graph: graph, builds: builds, replacements: replacements)
        // what the kustomizations list that is not here, found on another thread while the clusters are made
        // (what GitRepositories' `include` fills is another repository's: not read, as what is skipped is not)
        let included = includedPaths(objects)
        let unread = { [objects, built = builds.value] in
            Started { unreadResources(resources, objects: objects, builds: built, skipped: skipped, included: included, config: config) }
        }()
        let patchedPaths = inlinePatchedPaths(objects: objects, files: facts, graph: graph, builds: builds)
        let pathPatched = pathsPatchedEverywhere(objects: objects, files: facts, graph: graph, nonResources: nonResources)
        // (each a `let`: a closure that reads a `var` struct copies it at every call, and all it holds is retained)
        let detection = EnvironmentModel.base(config: config, profile: profile)
        // what each file's path tells of its environment, read on another core while this one finds the clusters
        let pathClues = Started { [facts] in detection.clues(of: facts) }
        var clusters = Clusters.build(objects: objects, files: facts, builds: builds, graph: graph, ignoring: nonResources, config: config,
                                      sourceIgnore: sourceIgnore, artifactSyncs: artifactSyncs, pathPatched: pathPatched,
                                      patchedPaths: patchedPaths)
        var (namespaces, namespaceOverride, openNamespaces) = resolveNamespaces(objects, files: facts, graph: graph, clusters: clusters)
        var writtenName: [ObjectID: String] = [:]
        // kustomize's names, with the references a `configurations:` file has it rewrite; without such files the
        // effective objects below give each build's names alone
        let names = objects.contains(where: { !$0.kustomizeConfigFiles.isEmpty })
            ? resolveNames(objects, files: facts, graph: graph) : Names()
        for (i, name) in names.renamed {
            writtenName[i] = objects[i].name
            objects[i] = objects[i].renamed(name)
            if let ref = names.reference[i], case .imagePolicy(var spec)? = objects[i].flux, let written = spec.repositoryName {
                spec.repositoryName = Located(value: ref, span: written.span, type: written.type)
                objects[i] = objects[i].replacingFlux(.imagePolicy(spec))
            }
        }
        // the image-automation objects as the builds that patch them deploy them: each variant is an object
        var variantOf: [ObjectID: ObjectID] = [:]
        var rootPaths: [ObjectID: [String]] = [:]
        let stepsOf = steps?.value ?? [:]
        // (the patches that change nothing found on another core while this one finds those that delete)
        let identityPatchesFound = stepsOf.isEmpty ? nil : Started { [objects, stepsOf] in Model.identityPatches(objects: objects, stepsOf: stepsOf) }
        nonResources.formUnion(deletedByPatches(objects: objects, files: facts, graph: graph, stepsOf: stepsOf))
        let (unlisted, missing, writtenEmptyPaths) = unread.value
        let identityPatches = identityPatchesFound?.value ?? Model.identityPatches(objects: objects, stepsOf: stepsOf)
        let patchFailures = (stepsOf.isEmpty ? [] : PatchTargets.failures(objects: objects, files: facts, builds: builds, stepsOf: stepsOf,
                                                                          writtenName: writtenName, refused: Set(missing.keys)))
            + PatchTargets.generatorFailures(objects: objects, files: facts, builds: builds, writtenName: writtenName, refused: Set(missing.keys))
        // the repository's ConfigMaps by namespace/name, which substitution and release values both look up
        var configMaps: [String: [ObjectID]] = [:]
        for (i, o) in objects.withIDs where o.configData != nil {
            if let name = o.name { configMaps[(namespaces[i] ?? "") + "/" + name, default: []].append(i) }
        }
        let changedConfigMaps = PostBuildVariables.changedByBuilds(configMaps.values.flatMap { $0 }, objects: objects, files: facts, graph: graph)
        var declared: [FileID: [String: String]] = [:]   // a Kustomization's file → the config's values for its clusters
        if clusters.clusters.contains(where: { !$0.substitute.isEmpty }) {
            for o in objects where o.fluxKustomization?.postBuild?.isActive == true {
                for c in clusters.of(o.file) { declared[o.file, default: [:]].merge(clusters.clusters[c].substitute) { a, _ in a } }
            }
        }
        // post-build substitution of the image-automation objects, ConfigMaps and parents' values included (environments,
        // which only settle between ConfigMaps of one name in no cluster, are not known yet)
        // a Flux Kustomization in a file that is not deployed (a template source-controller leaves out) substitutes nothing
        func notDeployed(_ k: ObjectID) -> Bool { if case .notDeployed = clusters.reach[objects[k].file] { true } else { false } }
        let substituting = !objects.indices.contains { objects[$0].isFluxKustomization && notDeployed($0) } ? clusters.kustomizationsOfFile
            : clusters.kustomizationsOfFile.mapValues { ks in ks.filter { !notDeployed($0) } }
        let early = PostBuildVariables(objects: objects, namespaces: namespaces, environments: Table(repeating: nil, count: objects.count),
                                       configMaps: configMaps, kustomizationsOfFile: substituting, changedConfigMaps: changedConfigMaps, declared: declared,
                                       clustersOf: { [clusters] in clusters.of($0) })
        let effective = EffectiveObjects.resolve(objects: objects, files: facts, graph: graph, clusters: clusters,
                                                 kustomizationAt: builds.value.kustomizationAt,
                                                 writtenName: writtenName, nonResources: nonResources, stepsOf: stepsOf,
                                                 variables: { flux in early.lookup(flux) })
        for i in effective.keys.sorted() {
            // deleted by every build that would deploy it (`$patch: delete`): not a resource of the cluster
            if effective[i]!.isEmpty { nonResources.insert(i) }
            let written = writtenName[i] ?? objects[i].name
            for (n, v) in effective[i]!.enumerated() {
                var at = i
                if n == 0 {
                    objects[i] = v.object
                    if v.namespace != namespaces[i] { namespaceOverride[i] = nil }
                    namespaces[i] = v.namespace
                } else {
                    at = objects.add(v.object)
                    namespaces.append(v.namespace)
                    variantOf[at] = i
                }
                writtenName[at] = v.object.name != written ? written : nil
                rootPaths[at] = v.roots
            }
        }
        var variantClusters: [ObjectID: [ClusterID]] = [:]
        if !rootPaths.isEmpty, !clusters.clusters.isEmpty {
            let fileAt = builds.value.fileAt
            let fluxKustomizationFiles = Set(objects.filter(\.isFluxKustomization).map(\.file))
            for (o, roots) in rootPaths {
                // the Flux Kustomizations that build it say which clusters do, where they are among its roots (one
                // directory that several clusters' Kustomizations build is every one's root kustomization)
                let files = roots.compactMap { fileAt[$0] }
                let fluxRoots = files.filter(fluxKustomizationFiles.contains)
                variantClusters[o] = Set((fluxRoots.isEmpty ? files : fluxRoots).flatMap { clusters.of($0) }).sorted()
            }
        }
        let clues = pathClues.value
        // detection reads names, aliases and namespaces, never the tag rules inferred below
        var rootEnvironment: [String: String?] = [:]   // a root's path → its environment, found once per root
        let objectEnvironment = objects.indices.column { i -> String? in
            if let own = detection.detect(clues[objects[i].file], namespace: namespaces[i], namespaceLabels: labels) { return own }
            // a patched object of a shared base: the environment its builds deploy it to, when they agree
            guard let roots = rootPaths[i] else { return nil }
            var found: String??
            for root in roots {
                let e: String?
                if let known = rootEnvironment[root] { e = known } else {
                    e = detection.detect(path: root, namespace: nil, namespaceLabels: labels)
                    rootEnvironment[root] = e
                }
                guard let e else { continue }
                if let f = found, f != e { return nil }
                found = e
            }
            return found ?? nil
        }
        // Infer tag prefixes from the repository's own policies where nothing set them.
        var policies: [(environment: String?, pattern: String?)] = []
        for (i, o) in objects.withIDs {
            if case .imagePolicy(let p)? = o.flux { policies.append((objectEnvironment[i], p.pattern?.value)) }
        }
        var inferring = detection
        inferring.inferPrefixes(policies: policies)
        let env = inferring
        let variables = PostBuildVariables(objects: objects, namespaces: namespaces, environments: objectEnvironment,
                                           configMaps: configMaps, kustomizationsOfFile: substituting, changedConfigMaps: changedConfigMaps, declared: declared,
                                           clustersOf: { [clusters] in clusters.of($0) })
        // a namespace written with `${…}`: as the builds that apply it substitute it, when they agree
        for i in namespaces.indices where namespaces[i]?.containsBytes("${") == true {
            let made = variables.expansions(namespaces[i]!, file: objects[i].file)
            namespaces[i] = made?.count == 1 ? made![0] : nil
            namespaceOverride[i] = nil
        }
        let values = ValuesFiles.images(objects: objects, namespaces: namespaces, environments: objectEnvironment, files: facts,
                                        configMaps: configMaps, builds: builds, reached: { [clusters] in !clusters.of($0).isEmpty })
        let shared = adoptMarkedValues(values.images, into: &images, markers: &markers)
        images += Substitution.resolve(substitutable + values.substitutable, variables: variables)
        markChartTagged(&images, objects: objects)
        markReplacedImages(&images, objects: objects, files: facts, builds: builds, replacements: replacements)
        // each image's environment: its object's, else that of what makes it run (the fields read are settled from here)
        var imageEnvironment = images.mapRows { img -> String? in
            if let o = img.object, let e = objectEnvironment[o] { return e }
            // an image whose manifest has no environment of its own: that of what makes it run, if any
            if let o = img.environmentObject, let e = objectEnvironment[o] { return e }
            if img.object != nil { return nil }
            return env.detect(clues[img.file], namespace: nil, namespaceLabels: labels)
        }
        func markerEnvironments() -> Table<MarkerID, String?> {
            markers.mapRows { m -> String? in
                if let o = m.object { return objectEnvironment[o] }
                // a marked field of a release's values file: the release's, unless several releases read the file
                if let ii = m.image, images[ii].object != nil, !shared.contains(ii), let e = imageEnvironment[ii] { return e }
                return env.detect(clues[m.file], namespace: nil, namespaceLabels: labels)
            }
        }
        // flux bootstrap writes `<path>/flux-system/gotk-sync.yaml`: the GitRepository its Kustomization reads is this repository
        var bootstrapSources: [(namespace: String?, name: String)] = []
        for c in clusters.clusters {
            for r in c.roots where Path.dirname(facts[objects[r].file].path) == Sources.join(c.name, "flux-system") {
                guard let src = objects[r].fluxKustomization?.source, src.isGitRepository else { continue }
                bootstrapSources.append((src.namespace ?? namespaces[r], src.name))
            }
        }
        // a FluxInstance's sync makes its GitRepository, as bootstrap's does
        for f in facts { for s in f.fluxInstanceSyncs where s.isGit { bootstrapSources.append((s.sourceNamespace, s.sourceName)) } }
        let addedLabels = labelsAddedByBuilds(objects: objects, files: facts, builds: builds)
        var namespaceAddedLabels: [String: [[String: String]]] = [:]
        for (i, added) in addedLabels where objects[i].kind == "Namespace" && objects[i].apiVersion == "v1" {
            if let n = objects[i].name { namespaceAddedLabels[n, default: []] += added }
        }
        let fluxIndex = FluxIndexInput(objects: objects, namespaces: namespaces, environments: objectEnvironment, files: facts,
                                       addedLabels: addedLabels, nonResources: nonResources, markers: markers, variables: variables, here: here,
                                       remotes: Set(remoteURLs.compactMap(repositoryPath)),
                                       bootstrapSources: bootstrapSources, graph: graph, clusters: clusters, rootPaths: rootPaths)
        // the Flux index, built on another thread with the markers' environments as the images' are so far, while the
        // retagging below settles the rest; built again should the rest change a marker's
        let earlyMarkerEnvironment = markerEnvironments()
        let earlyFlux = Started { [fluxIndex] in fluxIndex.build(markerEnvironment: earlyMarkerEnvironment) }
        // the directories of kustomization files, also of one that holds something else, a Flux Kustomization: Flux
        // generates no kustomization where a file of that name is, whatever it holds (160683231-myseneca/Group10_Project_CLO835;
        // the build sets hold every such file, `emptyKustomizationAt`)
        var kustomizationDirectories = StringSet(builds.value.kustomizationAt.keys)
        kustomizationDirectories.formUnion(builds.value.emptyKustomizationAt.keys)
        let generated = generatedBuilds(objects: objects, kustomizationDirectories: kustomizationDirectories, pathPatched: pathPatched)
        let duplicateIDs = SideBySide(objects: objects, files: facts, graph: graph, generatedBuilds: generated,
                                      kustomizationDirectories: kustomizationDirectories, identityPatches: identityPatches)
            .duplicateIDs(variantOf: variantOf, resources: resources, kustomizationAt: builds.value.kustomizationAt)
        // the kustomizations whose builds kustomize refuses: for a missing resource, a patch that matches nothing, or a resource
        // taken twice (admngn/gitops-lumieres's overlay whose namespace: makes its Namespace the base's); what builds them
        // deploys nothing
        var refusedBuilds = Set(missing.keys).union(patchFailures.map(\.kustomization))
        for b in duplicateIDs.refused where b.generatedAt == nil {
            if let k = builds.value.kustomizationAt[Path.dirname(facts[b.file].path)] { refusedBuilds.insert(k) }
        }
        markRetagged(&images, objects: objects, files: facts, graph: graph, namespaces: namespaces, builds: builds, stepsOf: stepsOf,
                     refused: refusedBuilds)
        markPatchesOfNothing(&images, objects: objects, files: facts, builds: builds, stepsOf: stepsOf)
        // a written tag that only builds no cluster here reaches deploy (a preview overlay) runs only if something outside applies them
        if !clusters.clusters.isEmpty {
            // (where the image's own file is reached by none either, its premise already says so)
            for i in images.indices where !images[i].writtenTagRootFiles.isEmpty && !clusters.of(images[i].file).isEmpty {
                images[i].writtenTagUnreached = images[i].writtenTagRootFiles.allSatisfy { clusters.of($0).isEmpty }
            }
        }
        let unmatched = unmatchedImageEntries(objects: objects, files: facts, images: images, graph: graph, builds: builds)
        if !unmatched.isEmpty {
            struct Place: Hashable { let file: FileID, offset: Int }
            let dead = Set(unmatched.map { Place(file: objects[$0.object].file, offset: $0.name.span.start.offset) })
            for i in images.indices {
                if let at = images[i].entryNameOffset, dead.contains(Place(file: images[i].file, offset: at)) { images[i].deploysNothing = true }
            }
        }
        // a shared base's container image of no environment of its own: the environments of the builds that deploy it,
        // of those a cluster here reaches where some are (an overlay that nothing applies deploys nothing: AEdral/flux-examples)
        if !graph.isEmpty {
            /// The environments of the roots a cluster here reaches, and of the others (each environment counted once, in
            /// the set of its root: most roots are reached, and the second set stays empty); and the directories of the
            /// roots of no environment, reached and not (pedrobarco/idp's `bootstrap/prod-1`).
            struct Deploying {
                var reached = Set<String>(), unreached = Set<String>()
                var reachedOther = Set<String>(), unreachedOther = Set<String>()
                mutating func add(_ other: Deploying) {
                    reached.formUnion(other.reached)
                    if !other.unreached.isEmpty { unreached.formUnion(other.unreached) }
                    if !other.reachedOther.isEmpty { reachedOther.formUnion(other.reachedOther) }
                    if !other.unreachedOther.isEmpty { unreachedOther.formUnion(other.unreachedOther) }
                }
                private var anyReached: Bool { !reached.isEmpty || !reachedOther.isEmpty }
                var found: Set<String> { anyReached ? reached : unreached }
                var others: Set<String> { anyReached ? reachedOther : unreachedOther }
            }
            let rootEnvironments = IncludeGraph.Memo<ObjectID, Deploying>(cycle: Deploying())   // kustomization → environments of the roots above it
            // a build kustomize refuses deploys nothing, nor does any that takes it (pbdger/flux-multi-stage's production
            // overlay, whose patch matches no resource: `refusedBuilds`)
            func environments(_ k: ObjectID, _ depth: Int) -> Deploying {
                if refusedBuilds.contains(k) { return Deploying() }
                return rootEnvironments.value(k) {
                    let path = facts[objects[k].file].path
                    let parents = graph.parents(of: k, depth: depth)
                    var out = Deploying()
                    if parents.isEmpty {
                        let builders = clusters.kustomizationsOfFile[objects[k].file] ?? []
                        let reached = !clusters.of(objects[k].file).isEmpty
                        func insert(_ e: String, other: Bool) {
                            switch (reached, other) {
                            case (true, false): out.reached.insert(e)
                            case (false, false): out.unreached.insert(e)
                            case (true, true): out.reachedOther.insert(e)
                            case (false, true): out.unreachedOther.insert(e)
                            }
                        }
                        let rootEnvironment = env.detect(path: path, namespace: nil, namespaceLabels: labels)
                        if let e = rootEnvironment { insert(e, other: false) }
                        var named = rootEnvironment != nil
                        var unnamed: [String] = []
                        for b in builders {
                            let p = facts[objects[b].file].path
                            if let e = env.detect(path: p, namespace: nil, namespaceLabels: labels) {
                                insert(e, other: false)
                                named = true
                            } else {
                                unnamed.append(Path.dirname(p))
                            }
                        }
                        // builds of no environment deploy it too: the root's directory where nothing names one; where only
                        // builders do, each builder of none (equinor/radix-flux's c3 and playground beside development)
                        for other in !named ? [Path.dirname(path)] : rootEnvironment == nil ? unnamed : [] { insert(other, other: true) }
                    } else {
                        for p in parents { out.add(environments(p, depth + 1)) }
                    }
                    return out
                }
            }
            func reached(_ path: String) -> Bool { builds.value.fileAt[path].map { !clusters.of($0).isEmpty } ?? false }
            for i in images.indices where images[i].origin == .container && imageEnvironment[i] == nil && !images[i].retagged {
                let found: Set<String>
                if images[i].writtenTagDeployedBy.isEmpty {
                    let includers = graph.includers(of: facts[images[i].file].path)
                    guard !includers.isEmpty else { continue }
                    // (most files have one includer: its sets as they are)
                    let deploying = includers.count == 1 ? environments(includers[0], 0)
                        : includers.reduce(into: Deploying()) { $0.add(environments($1, 0)) }
                    found = deploying.found
                    if !found.isEmpty, !deploying.others.isEmpty { images[i].deployedAlsoBy = deploying.others.sorted() }
                } else {
                    // only the builds that deploy its written tag
                    let paths = images[i].writtenTagRootPaths, reachedPaths = paths.filter(reached)
                    found = Set((reachedPaths.isEmpty ? paths : reachedPaths).compactMap { env.detect(path: $0, namespace: nil, namespaceLabels: labels) })
                }
                images[i].deployedIn = found.sorted()
                // one environment deploys it: it is judged there
                if found.count == 1 { imageEnvironment[i] = found.first }
            }
        }
        let markerEnvironment = markerEnvironments()
        let (builtFlux, resolutions) = markerEnvironment.rows == earlyMarkerEnvironment.rows ? earlyFlux.value
            : fluxIndex.build(markerEnvironment: markerEnvironment)
        var flux = builtFlux
        _ = consume fluxIndex   // (it holds the markers, which are taken below: not copied)
        // a path that holds nothing here is a fact only of a Kustomization whose GitRepository is known to be this repository
        let sources = GitSources(objects, files: facts)
        let hereBranches = sources.branches { repositoryPath($0).map(here.contains) ?? false }
        if let checkout { flux.readOtherBranches(checkout, hereBranches: hereBranches) }
        // (or taken to be, where only another sync of this layout names it: a premise)
        var emptyPathPremises: [ObjectID: String] = [:]
        let emptyPaths = emptyFluxPaths(written: writtenEmptyPaths, objects: objects, files: facts, graph: graph, builds: builds, stepsOf: stepsOf,
                                         skipped: skipped, included: included, config: config).filter { e in
            // a directory of other files only (a `.gitkeep`) builds to nothing: kustomize-controller 1.2.2 (Flux 2.2.3)
            // and later generate a kustomization that builds it; only a path that is not there fails
            if let holdsFiles, let p = normalizePath(e.path), holdsFiles(p) { return false }
            let k = e.kustomization
            guard let src = objects[k].fluxKustomization?.source, src.isGitRepository else { return false }
            if let revision = objects[k].fluxKustomization?.pinnedRevision {
                // the branch it reads, as the clone has it, says whether the directory is there (AlexisMtr/poseidon-gitops)
                if let branch = objects[k].fluxKustomization?.pinnedBranch, let holds = checkout?.manifestsUnder?(branch, e.path) {
                    if holds { return false }
                    emptyPathPremises[k] = "assuming branch \(branch), which it builds, still holds no manifest there, as this clone last fetched it"
                    return true
                }
                emptyPathPremises[k] = "assuming \(revision), which it builds, holds this directory as the checkout does; declare the "
                    + "cluster under clusters: in \(Config.fileName) if it does not"
                return true
            }
            let namespace = src.namespace ?? namespaces[k]
            if bootstrapSources.contains(where: { $0.name == src.name && FluxIndex.sameNamespace($0.namespace, namespace) }) { return true }
            let mine = sources.sources(kind: src.kind, name: src.name, namespace: namespace).filter { repositoryPath($0.url).map(here.contains) ?? false }
            // a GitRepository of this repository on one of several branches reads a revision the files here may not be
            // (skiyl9x/portfolio's rendered-dev, -stage and -prod): its paths are not judged here
            if hereBranches.count > 1, mine.contains(where: { $0.branch != nil }) { return false }
            let urls = mine.map(\.url)
            guard let first = urls.first else { return false }
            if urls.allSatisfy({ repositoryPath($0).map(hereInferred.contains) ?? false }) {
                emptyPathPremises[k] = "assuming GitRepository \(src.name) (\(first)) is this repository, as another Flux Kustomization "
                    + "whose path is above its own file says; declare the cluster under clusters: in \(Config.fileName) if it is not"
            }
            return true
        }
        let refusals = generatedBuildRefusals(objects: objects, files: facts, generatedBuilds: generated,
                                              kustomizationDirectories: kustomizationDirectories, reach: clusters.reach,
                                              rootIgnore: sourceIgnore, readIgnoreFile: readIgnoreFile)
        if !refusals.isEmpty { clusters.assumeFluxOfFailedSyncs(Set(refusals.map(\.path)), objects: objects, files: facts, config: config) }
        // the patches and the build sets are no part of the model: freed on another core while this one goes on (their
        // release at the end had held up the overlay fleet's audit 4 ms)
        releaseElsewhere((consume steps, consume stepsOf, consume builds))
        var watched = Set<String>()
        // (as Flux reads them: an image written with variables, substituted)
        for r in flux.repositories { if let n = r.normalizedImage { watched.insert(n) } }
        let globs = config.promotedImages.map(Glob.init)
        // a field that sets only a tag (a chart's `image: {tag: …}`) and that a marker has Flux write: the image
        // of an ImageRepository, whichever the chart names
        var markersOfImage: [ImageID: [MarkerID]] = [:]
        for k in markers.indices where markers[k].context == .value { if let i = markers[k].image { markersOfImage[i, default: []].append(k) } }
        // a field read as an image only for the full-reference marker on it is one where its value names the image the
        // marker's policy updates; giantswarm's App `version: '0.1.8'` is not, and nothing is known to run it
        for (i, ks) in markersOfImage where images[i].origin == .marker && images[i].name != nil {
            guard ks.contains(where: { resolutions[$0].ref?.part == .reference }) else { continue }
            let wanted = ks.lazy.compactMap { resolutions[$0].policy }.first.flatMap { flux.policies[$0].repository }
                .flatMap { flux.repositories[$0].normalizedImage }
            if wanted != images[i].normalizedName { images[i].namesNoImage = true }
        }
        // a field whose marker names a policy of an ImageRepository whose image has variables not known here holds
        // that repository's image: its marker has Flux write the policy's tags there
        func namesUnknownRepository(_ k: MarkerID) -> Bool {
            guard let p = resolutions[k].policy, let r = flux.policies[p].repository else { return false }
            return !flux.repositories[r].unresolvedVariables.isEmpty
        }
        // an ImageRepository whose image has variables not known here may watch the images its written text may be
        let guessed = flux.repositories.indices.filter { flux.repositories[$0].imagePattern != nil }
        var assumedWatchers: [ImageID: [RepositoryID]] = [:]
        // (the image's fields read in place: a copy of it retains all it holds)
        let promoted = images.indices.column { i -> Bool in
            if images[i].origin == .marker || (images[i].name == nil && markersOfImage[i] != nil) { return true }
            guard let name = images[i].name, let normalized = images[i].normalizedName else { return false }
            if watched.contains(normalized) || (markersOfImage[i] ?? []).contains(where: namesUnknownRepository) { return true }
            if globs.matchImage(name, normalized: normalized) { return true }
            guard !guessed.isEmpty else { return false }
            let watchers = guessed.filter { r in
                let pattern = flux.repositories[r].imagePattern!
                return pattern.matches(name) || pattern.matches(normalized)
            }
            if !watchers.isEmpty { assumedWatchers[i] = watchers }
            return !watchers.isEmpty
        }
        var resolved = Table<MarkerID, ResolvedMarker>()
        resolved.reserveCapacity(markers.count)
        for (k, m) in zip(markers.indices, take(&markers.rows)) { resolved.append(ResolvedMarker(m, resolutions[k])) }
        var resolvedImages = Table<ImageID, ResolvedImage>()
        resolvedImages.reserveCapacity(images.count)
        for (i, img) in zip(images.indices, take(&images.rows)) {
            resolvedImages.append(ResolvedImage(use: img, environment: imageEnvironment[i], promoted: promoted[i],
                                                assumedWatchers: assumedWatchers[i] ?? [], markers: markersOfImage[i] ?? []))
        }
        func assemble(_ evidence: PromotionEvidence?) -> Model {
            Model(files: facts, objects: objects, images: resolvedImages, markers: resolved, config: config, environments: env,
                  objectNamespace: namespaces, objectEnvironment: objectEnvironment, floatingTags: Set((config.floatingTags ?? defaultFloatingTags).map { $0.lowercased() }),
                  shortVersionReleases: config.shortVersionReleases.map(Glob.init),
                  namespaceLabels: labels, namespaceAddedLabels: namespaceAddedLabels, flux: flux, unmatchedImageEntries: unmatched,
                  clusters: clusters, namespaceOverride: namespaceOverride, namespaceNotKnown: namespaceNotKnown,
                  openNamespaces: openNamespaces, writtenName: writtenName, variantOf: variantOf,
                  variantClusters: variantClusters, policyCharts: policyCharts,
                  unlistedResources: unlisted, missingResources: missing, emptyFluxPaths: emptyPaths, emptyPathPremises: emptyPathPremises, patchFailures: patchFailures,
                  generatedBuildRefusals: refusals,
                  identityPatches: identityPatches,
                  kustomizationDirectories: kustomizationDirectories,
                  generatedBuilds: generated, duplicateIDs: duplicateIDs, evidence: evidence, skipped: skipped, graph: graph)
        }
        let model = assemble(nil)
        Timings.mark("model")
        guard let found = try evidence(model) else { return model }
        Timings.mark("history")
        return assemble(found)
    }

    /// `unlistedResources` and `missingResources`, by the build sets' index of paths, which the kustomizations' builds
    /// need anyway: what a kustomization file lists that is neither a file read nor a directory of files, unless it
    /// was skipped or the config ignores it; a directory without a kustomization file; and a directory that holds the
    /// kustomization itself (`../..` from `examples/production`), whose build kustomize refuses ("cycle detected").
    /// And `emptyFluxPaths`: the Flux Kustomizations of this repository whose `path` holds no manifest read here (nothing
    /// skipped or ignored there either): they deploy nothing.
    static func unreadResources(_ resources: [ObjectID: [String]], objects: Objects, builds b: BuildSets, skipped: [SkippedFile],
                                included: [String], config: Config)
        -> (unlisted: [String], missing: [ObjectID: [MissingEntry]], emptyFluxPaths: [ObjectID]) {
        var unlisted: [String] = [], missing: [ObjectID: [MissingEntry]] = [:]
        let ignore = config.ignore.map(Glob.init)
        func notRead(_ p: String) -> Bool { Model.notRead(p, skipped: skipped, ignore: ignore, config: config, included: included) }
        let emptyFluxPaths = objects.indices.filter { k in
            objects[k].fluxKustomization?.path.map { holdsNoManifest($0, builds: b, notRead: notRead) } ?? false
        }
        // a patch file that is not there fails the build as a missing resource does ("evalsymlink failure on …")
        for k in objects.indices where !objects[k].kustomizePatches.isEmpty {
            let path = b.files[objects[k].file].path
            guard objects[k].isKustomization, Extractor.isKustomizationPath(path) else { continue }
            // (kustomize reads a `patchesStrategicMerge` entry that parses as an object as the patch itself)
            for entry in objects[k].kustomizePatches where !entry.containsBytes("\n") && !entry.containsBytes("{") && !entry.containsBytes(": ") {
                guard let patch = resourcePath(entry, in: b.files[objects[k].file].directory), !patch.isEmpty, b.fileAt[patch] == nil,
                      !b.hasFiles(under: patch), !notRead(patch) else { continue }
                if !Sources.isManifestName(patch), !unlisted.contains(patch) { unlisted.append(patch) }
                missing[k, default: []].append(MissingEntry(path: patch, why: "a patch file that is not in the repository", isPatch: true))
            }
        }
        guard !resources.isEmpty else { return (unlisted, missing, emptyFluxPaths) }
        for k in resources.keys.sorted() {
            let dir = b.files[objects[k].file].directory
            for path in resources[k]! where Model.holds(path, dir) && b.kustomizationAt[path] != nil {
                let shown = path.isEmpty ? "." : path
                missing[k, default: []].append(MissingEntry(path: path, why: "the directory \(shown) that holds it (cycle detected: candidate root "
                                                            + "'\(shown)' contains visited root '\(dir.isEmpty ? "." : dir)')", isPatch: false))
            }
            for path in resources[k]! where !path.isEmpty && b.fileAt[path] == nil {
                if !b.hasFiles(under: path) {
                    // a file under a name the listing passes over (`app.json`) is read, and the model made again
                    if !Sources.isManifestName(path), !unlisted.contains(path) { unlisted.append(path) }
                    if !notRead(path) {
                        missing[k, default: []].append(MissingEntry(path: path, why: "which is neither a file nor a directory of manifests "
                                                                    + "in the repository", isPatch: false))
                    }
                } else if b.kustomizationAt[path] == nil,
                          !Extractor.kustomizationNames.contains(where: { b.fileAt[path + "/" + $0] != nil }), !notRead(path) {
                    missing[k, default: []].append(MissingEntry(path: path, why: "a directory without a kustomization file", isPatch: false))
                } else if !notRead(path), let empty = emptyKustomizationFile(at: path, builds: b, objects: objects) {
                    missing[k, default: []].append(MissingEntry(path: path, why: "whose \(Path.basename(b.files[empty].path)) \(b.files[empty].documents == 0 ? "holds nothing" : "sets nothing but apiVersion and kind"), which kustomize refuses ('kustomization.yaml is empty')", isPatch: false))
                }
            }
        }
        return (unlisted, missing, emptyFluxPaths)
    }

    /// The kustomization file of directory `path` that kustomize refuses as empty: one without a document, or whose
    /// kustomization sets nothing but apiVersion and kind (`Extractor.setsNothing`).
    static func emptyKustomizationFile(at path: String, builds b: BuildSets, objects: Objects) -> FileID? {
        if let k = b.kustomizationAt[path] { return b.files[objects[k].file].kustomizationSetsNothing ? objects[k].file : nil }
        guard let f = b.emptyKustomizationAt[path] else { return nil }
        return b.files[f].documents == 0 ? f : nil
    }

    /// Whether Flux Kustomization `path` names a directory that holds no manifest read here, nothing skipped or ignored
    /// there either. A path with `${…}`, or a template's `{CLUSTER_NAME}` or `{{ … }}`, is another path once made: not
    /// judged.
    static func holdsNoManifest(_ path: String, builds b: BuildSets, notRead: (String) -> Bool) -> Bool {
        guard let p = normalizePath(path), !p.isEmpty, !p.containsBytes("{") else { return false }
        return b.kustomizationAt[p] == nil && !b.hasFiles(under: p) && !notRead(p)
    }

    /// Where the repository's GitRepositories copy other repositories' artifacts (`spec.include`), rooted.
    static func includedPaths(_ objects: Objects) -> [String] {
        objects.flatMap { o -> [String] in if case .gitRepository(let g)? = o.flux { g.includePaths.compactMap(normalizePath) } else { [] } }
    }

    /// Whether path `p` (a file or a directory) was left unread: skipped, or ignored by the config; or what another
    /// repository fills: at, under or above a directory a GitRepository's `include` copies another's artifact to
    /// (`included`, rayanebel/fluxv2-test's `infrastructure/stacks`).
    static func notRead(_ p: String, skipped: [SkippedFile], ignore: [Glob], config: Config, included: [String]) -> Bool {
        if skipped.contains(where: { $0.path == p || $0.path.hasPrefix(p + "/") }) { return true }
        if included.contains(where: { $0 == p || p.hasPrefix($0 + "/") || $0.hasPrefix(p + "/") || p.isEmpty }) { return true }
        guard !ignore.isEmpty, let rel = config.relative(p) else { return false }
        return ignore.contains { $0.matches(rel) || $0.matches(rel + "/kustomization.yaml") }
    }

    /// `generatedBuilds`: the first Flux Kustomization (by its file) of each `path` without a kustomization file.
    static func generatedBuilds(objects: Objects, kustomizationDirectories: StringSet, pathPatched: Set<ObjectID> = []) -> [String: FileID] {
        var out: [String: FileID] = [:]
        // (not for one without a name, which no cluster can hold: a Go template's `name: {{ .Name }}`)
        for (i, o) in objects.withIDs where !pathPatched.contains(i) && o.name != nil {
            guard let p = o.fluxKustomization?.path.flatMap(normalizePath), !kustomizationDirectories.contains(p), out[p] == nil else { continue }
            out[p] = o.file
        }
        return out
    }

    /// A kustomize build that accumulates files side by side: a kustomization file's, or the kustomization Flux
    /// generates at a Flux Kustomization's `path` (several Kustomizations of one file are several builds).
    public struct SideBySideBuild: Hashable, Comparable, Sendable {
        /// The kustomization file, or the file of the first Flux Kustomization of the `path`.
        public let file: FileID
        /// The `path` of the generated kustomization; nil for a kustomization file.
        public let generatedAt: String?
        /// The namespace with which the resource meets the others there: as a `namespace:` below the build gave it, else as
        /// written; nil where it has none. A Namespace's: its name there, as written or as a `namespace:` below renamed it.
        public let given: String?
        /// The kustomization's resources after its own `namespace:`, which may give two one identity (kustomize:
        /// "namespace transformation produces ID conflict"), not as it takes them.
        public var afterNamespace = false
        public static func < (a: Self, b: Self) -> Bool {
            (a.file, a.generatedAt ?? "", a.given ?? "", a.afterNamespace ? 1 : 0) < (b.file, b.generatedAt ?? "", b.given ?? "", b.afterNamespace ? 1 : 0)
        }
        /// The build, whatever the builds below gave the resource.
        public var build: SideBySideBuild {
            SideBySideBuild(file: file, generatedAt: generatedAt, given: nil, afterNamespace: afterNamespace)
        }
    }

    /// The kustomize builds that take a file's resources side by side (`SideBySide`), from this model's parts.
    var sideBySide: SideBySide {
        SideBySide(objects: objects, files: files, graph: graph, generatedBuilds: generatedBuilds,
                   kustomizationDirectories: kustomizationDirectories, identityPatches: identityPatches)
    }

    /// `SideBySide.builds(of:kind:object:)`.
    public func sideBySideBuilds(of f: FileID, kind: String? = nil, object: ObjectID? = nil) -> [SideBySideBuild] {
        sideBySide.builds(of: f, kind: kind, object: object)
    }

    /// The directories whose builds take object `i` and pass it on as written (`SideBySide.directoriesPassingOn`).
    public func directoriesPassingOn(_ i: ObjectID) -> Set<String> { sideBySide.directoriesPassingOn(i) }

    /// Whether a kustomize patch of every build that takes object `i` may rename it (`SideBySide.renamedByPatch`).
    public func renamedByPatch(_ i: ObjectID) -> Bool { !identityPatches.isEmpty && sideBySide.renamedByPatch(i) }

    /// The paths the Flux Kustomizations here build, as written (normalised; none of another repository's source).
    package static func writtenFluxPaths(_ objects: Objects) -> StringSet {
        StringSet(objects.compactMap { $0.fluxKustomization?.path.flatMap(normalizePath) })
    }

    /// `a/./b/../c` → `a/c`; nil when `..` leaves the root.
    package static func normalizePath(_ p: String) -> String? {
        var p = p
        let (asWritten, normal) = p.withUTF8(normalized)
        return asWritten ? p : normal.map { String(decoding: $0, as: UTF8.self) }
    }

    /// `normalizePath` by bytes: whether the path is normal as written (no empty, `.` or `..` segment), else its
    /// normal bytes, nil when `..` leaves the root.
    private static func normalized(_ b: UnsafeBufferPointer<UInt8>) -> (asWritten: Bool, normal: [UInt8]?) {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        // fast path: no empty, "." or ".." segment
        var clean = true
        var segStart = true
        var dots = 0
        for c in b {
            if c == slash {
                if segStart || dots == 1 || dots == 2 { clean = false; break }
                segStart = true
                dots = 0
            } else if c == dot && (segStart || dots > 0) {
                dots += 1
                segStart = false
            } else {
                segStart = false
                dots = -1
            }
        }
        if clean, !segStart, dots != 1, dots != 2 { return (true, nil) }
        // where each kept segment starts in `out` (with the `/` before it), so that `..` cuts it off
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var starts: [Int] = []
        var i = 0
        while i <= b.count {
            var j = i
            while j < b.count, b[j] != slash { j += 1 }
            if j == i || (j - i == 1 && b[i] == dot) {
                // an empty or `.` segment
            } else if j - i == 2, b[i] == dot, b[i + 1] == dot {
                guard let start = starts.popLast() else { return (false, nil) }
                out.removeSubrange(start...)
            } else {
                starts.append(out.count)
                if !out.isEmpty { out.append(slash) }
                out.append(contentsOf: b[i..<j])
            }
            i = j + 1
        }
        return (false, out)
    }

    /// A path as Go's securejoin joins it to a root (kustomize-controller's `spec.path`, image-automation-controller's
    /// `update.path`): `.` and `..` resolved, `..` above the root ignored, so `../apps` is `apps`; written relative
    /// (`./apps` and `/apps` are `apps`).
    static func rootedPath(_ p: String) -> String {
        if let n = normalizePath(p) { return n }
        var parts: [Substring] = []
        for c in p.split(separator: "/") {
            if c == "." || c.isEmpty { continue }
            if c == ".." { if !parts.isEmpty { parts.removeLast() } } else { parts.append(c) }
        }
        return parts.joined(separator: "/")
    }

    /// The directories above `path`, outermost first: `a` and `a/b` for `a/b/c.yaml`.
    static func directories(of path: String) -> [String] {
        var out: [String] = []
        var at = path.utf8.startIndex
        while let slash = path.utf8[at...].firstIndex(of: UInt8(ascii: "/")) {
            out.append(String(path[..<slash]))
            at = path.utf8.index(after: slash)
        }
        return out
    }


    /// File path or directory → the kustomizations whose `resources`, `bases` or `components` name it.
    /// Each kustomization's `resources`, `bases` and `components` of this repository, as normalised paths from the root
    /// (remote ones, and paths that leave the repository, left out): what the inclusions and the builds follow.
    static func resolvedResources(_ objects: Objects, files: Files) -> [ObjectID: [String]] {
        // (the paths made on all cores)
        let paths = concurrentMap(objects.count, chunkSize: max(256, objects.count / 16), makeState: {}) { _, at -> [String]? in
            let i = ObjectID(at)
            // (kustomize reads a kustomization only from a file of that name: a Kustomization written in another file, an
            // example such as rossigee/flux-shared-platform's examples/patterns/component-with-automation.yaml, builds nothing;
            // so every includer in the graph is a kustomization file's)
            guard objects[i].isKustomization && !objects[i].kustomizeResources.isEmpty,
                  Extractor.isKustomizationPath(files[objects[i].file].path) else { return nil }
            let dir = files[objects[i].file].directory
            return objects[i].kustomizeResources.compactMap { resourcePath($0, in: dir) }
        }
        var out: [ObjectID: [String]] = [:]
        for (at, p) in paths.enumerated() { if let p { out[ObjectID(at)] = p } }
        return out
    }

    /// The repository path a kustomization in `dir` names with a `resources`, `bases` or `components` entry; nil for a
    /// remote one, or one that leaves the repository.
    public static func resourcePath(_ entry: String, in dir: String) -> String? {
        Extractor.isRemote(entry) ? nil : normalizePath(Sources.join(dir, entry))
    }

    /// Files that a kustomization's `configMapGenerator` copies into a ConfigMap and that no kustomization names as a
    /// resource: data (a values file, an application's own config), whose bytes kustomize copies without reading them.
    public var generatorDataFiles: Set<String> {
        var out = Set<String>()
        for o in objects where !o.configMapGenerators.isEmpty {
            let dir = files[o.file].directory
            for g in o.configMapGenerators {
                for entry in g.files { if let p = Model.resourcePath(entry.path, in: dir), includedBy[p] == nil { out.insert(p) } }
            }
        }
        return out
    }

    /// Whether the directory `outer` is `dir` or holds it (`""` is the root).
    static func holds(_ outer: String, _ dir: String) -> Bool {
        SourceText.sameBytes(outer, dir) || Path.isBelow(dir, outer)
    }

    /// Kinds the API server keeps without a namespace (besides those a CustomResourceDefinition of the repository
    /// declares `scope: Cluster`).
    static let clusterScopedKinds: Set<String> = [
        "Namespace", "Node", "PersistentVolume", "StorageClass", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding",
        "PriorityClass", "PriorityLevelConfiguration", "FlowSchema", "RuntimeClass", "IngressClass", "CSIDriver", "CSINode",
        "VolumeAttachment", "CertificateSigningRequest", "APIService", "ComponentStatus", "PodSecurityPolicy",
        "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
        "VolumeSnapshotClass", "VolumeSnapshotContent", "GatewayClass", "ClusterIssuer", "ClusterSecretStore",
        "ClusterExternalSecret", "ClusterPolicy", "ClusterPolicyReport", "ClusterImagePolicy",
    ]
    static let clusterScopedKindShapes = Set(clusterScopedKinds.map(kindShape))
    /// Whether object `i` is of a kind the API server keeps without a namespace (`clusterScopedKinds`: not those a
    /// CustomResourceDefinition of the repository declares so).
    public func isOfClusterScopedKind(_ i: ObjectID) -> Bool { Model.clusterScopedKinds.contains(objects[i].kind) }
    /// The kinds kustomize's `namespace:` leaves as they are (its built-in schema's cluster-scoped kinds; a custom
    /// resource's kind, a ClusterIssuer, is given the namespace, and a Namespace the name).
    static let kustomizeClusterScoped: Set<String> = [
        "APIService", "CSIDriver", "CSINode", "CertificateSigningRequest", "ClusterRole", "ClusterRoleBinding", "ComponentStatus",
        "CustomResourceDefinition", "IngressClass", "MutatingWebhookConfiguration", "Node", "PersistentVolume",
        "PodSecurityPolicy", "PriorityClass", "RuntimeClass", "StorageClass", "ValidatingWebhookConfiguration", "VolumeAttachment",
    ]
    static func kindShape(_ kind: String) -> Int { Int(kind.utf8.first ?? 0) << 16 | kind.utf8.count }

    /// Each object's namespace as the cluster gets it, and what changed a declared one (for messages). kustomize's
    /// `namespace:` sets the namespace of every namespaced object a kustomization builds, overriding the one written
    /// (the outermost kustomization of each chain of `resources:` wins; chains that disagree leave it open, nil), and so
    /// does an inline NamespaceTransformer after it (with `unsetOnly`, only where none is written); where a cluster
    /// applies some of the chains, the others do not decide; a Flux Kustomization's `targetNamespace` overrides that for
    /// everything its `path` builds, when the Kustomizations that build a file agree. Cluster-scoped kinds have none.
    /// `open`: the namespaces of an object the chains leave open, where each gives one.
    static func resolveNamespaces(_ objects: Objects, files: Files, graph: IncludeGraph,
                                  clusters: Clusters) -> (Table<ObjectID, String?>, [ObjectID: String], open: [ObjectID: [String]]) {
        // `group/kind` that the repository's CRDs declare cluster-scoped
        let clusterScoped = Set(objects.lazy.compactMap { o in o.definition.flatMap { $0.clusterScoped ? $0.group + "/" + $0.kind : nil } })
        let overriding = objects.contains {
            $0.kustomizeNamespace != nil || $0.kustomizeNamespaceTransformer != nil || $0.fluxKustomization?.targetNamespace != nil
        }
        @Sendable func isClusterScoped(_ o: ManifestObject) -> Bool {
            // first letter and length first: most objects' kinds (Deployment, ImagePolicy …) are hashed no further
            (clusterScopedKindShapes.contains(kindShape(o.kind)) && clusterScopedKinds.contains(o.kind))
                || (!clusterScoped.isEmpty && clusterScoped.contains(o.group + "/" + o.kind))
        }
        var out = objects.mapRows { isClusterScoped($0) ? nil : $0.declaredNamespace }
        var overrides: [ObjectID: String] = [:]
        guard overriding else { return (out, overrides, [:]) }
        // Namespaces that the chains above kustomization k impose (the outermost wins, but over one that sets only
        // objects without a namespace), each with the kustomization that sets it ("" = none), whether it sets only those
        // (`unsetOnly`), and whether a cluster here applies the chain's top or a build root on the way (where none is
        // described, all do).
        typealias Way = (namespace: String, by: ObjectID, unsetOnly: Bool, applied: Bool)
        /// What kustomization k itself sets: an inline NamespaceTransformer runs after its `namespace:`.
        func own(_ k: ObjectID, applied: Bool) -> Way {
            let o = objects[k], t = o.kustomizeNamespaceTransformer
            if let t, !t.unsetOnly { return (t.namespace, k, false, applied) }
            if let ns = o.kustomizeNamespace { return (ns, k, false, applied) }
            return (t?.namespace ?? "", k, t != nil, applied)
        }
        // (one way per namespace, mode and whether it is applied: a base that many tops share has one way, not one each)
        @Sendable func add(_ v: Way, to ways: inout [Way]) {
            if !ways.contains(where: { $0.namespace == v.namespace && $0.unsetOnly == v.unsetOnly && $0.applied == v.applied }) { ways.append(v) }
        }
        // the directories a Flux Kustomization's path builds: a cluster that applies one builds from there, whatever
        // includes it (a root kustomization.yaml kept for CI)
        let fluxRoots = writtenFluxPaths(objects)
        let memo = IncludeGraph.Memo<ObjectID, [Way]>(cycle: [])
        func chain(_ k: ObjectID, _ depth: Int) -> [Way] {
            memo.value(k) {
                let parents = graph.parents(of: k, depth: depth)
                let applied = clusters.clusters.isEmpty || !clusters.of(objects[k].file).isEmpty
                var result: [Way] = []
                for p in parents {
                    for outer in chain(p, depth + 1) {
                        let inner = own(k, applied: outer.applied)
                        add(!outer.namespace.isEmpty && !outer.unsetOnly ? outer : inner.namespace.isEmpty ? outer : inner, to: &result)
                    }
                }
                // a top, or only cycles above; or a build root a cluster applies
                if result.isEmpty || (applied && !clusters.clusters.isEmpty && fluxRoots.contains(graph.directory(of: k))) {
                    add(own(k, applied: applied), to: &result)
                }
                return result
            }
        }
        // Flux Kustomization → its targetNamespace, where it has one
        let targets = objects.indices.reduce(into: [ObjectID: String]()) { out, i in
            if let t = objects[i].fluxKustomization?.targetNamespace { out[i] = t }
        }
        // every kustomization's chains, made first (in object order); then each object's namespace, in chunks on all cores
        // (a build no cluster here applies, a base's own kustomization or another environment's overlay, does not
        // decide the namespace of what the applied ones deploy: gjcourt/homelab)
        @Sendable func deciding(_ ways: [Way]) -> [Way] {
            let applied = ways.contains(where: \.applied) ? ways.filter(\.applied) : ways
            var out: [Way] = []
            for w in applied where !out.contains(where: { $0.namespace == w.namespace && $0.unsetOnly == w.unsetOnly }) { out.append(w) }
            return out
        }
        let chains = objects.indices.reduce(into: [ObjectID: [Way]]()) { out, k in
            if objects[k].isKustomization { out[k] = chain(k, 0) }
        }
        let declared = out
        let built = concurrentMap(objects.count, chunkSize: max(256, objects.count / 16), makeState: { [FileID: [Way]]() }) {
            chainsOfFile, index -> (namespace: String?, override: String?, open: [String]?)? in
            let i = ObjectID(index)
            guard !isClusterScoped(objects[i]) else { return nil }
            let f = objects[i].file
            var ways: [Way]
            if objects[i].isKustomization {
                ways = deciding(chains[i] ?? [])
            } else if let known = chainsOfFile[f] {
                ways = known
            } else {
                var all: [Way] = []
                for k in graph.includers(of: files[f].path) {
                    for ns in chains[k] ?? [] { add(ns, to: &all) }
                }
                ways = deciding(all)
                chainsOfFile[f] = ways
            }
            // what kustomize makes of it: one namespace, the one written ("" in `ways`, or one that sets only objects
            // without), or open
            var built: String? = declared[i]
            var by: ObjectID?
            var open: [String]?
            let made = ways.map { w -> (namespace: String?, by: ObjectID?) in
                w.namespace.isEmpty || (w.unsetOnly && declared[i] != nil) ? (declared[i], nil) : (w.namespace, w.by)
            }
            if made.dropFirst().contains(where: { $0.namespace != made[0].namespace }) {
                built = nil
                if !made.contains(where: { $0.namespace == nil }) { open = Set(made.compactMap(\.namespace)).sorted() }
            } else if let setter = made.first(where: { $0.by != nil }) {
                built = setter.namespace
                by = setter.by
            }
            // then the targetNamespace of the Flux Kustomizations that build the file, when they agree (one without
            // a targetNamespace keeps what kustomize made)
            if let ks = clusters.kustomizationsOfFile[f], let first = ks.first {
                let wanted = targets[first] ?? built ?? ""
                if ks.allSatisfy({ (targets[$0] ?? built ?? "") == wanted }) {
                    if !wanted.isEmpty, wanted != built {
                        built = wanted
                        by = ks.first { targets[$0] == wanted }
                        open = nil
                    }
                } else {
                    built = nil
                    open = nil
                }
            }
            guard let by, let ns = built, let written = declared[i], ns != written else { return (built, nil, open) }
            let setter = objects[by]
            return (built, setter.isKustomization
                ? "the kustomization \(files[setter.file].path) sets namespace: \(ns)"
                : "Flux Kustomization \(setter.name ?? "") (\(files[setter.file].path)) sets targetNamespace: \(ns)", nil)
        }
        var open: [ObjectID: [String]] = [:]
        for (i, made) in zip(objects.indices, built) {
            guard let made else { continue }
            out[i] = made.namespace
            if let why = made.override { overrides[i] = why }
            if let namespaces = made.open { open[i] = namespaces }
        }
        return (out, overrides, open)
    }

    /// How kustomize names the image-automation objects (ImagePolicies, ImageRepositories, ImageUpdateAutomations): a
    /// kustomization's `namePrefix` and `nameSuffix` rename every object it builds but Namespaces and
    /// CustomResourceDefinitions, each kustomization of a chain of `resources:` around the name of the one inside it
    /// (`outer-inner-name-inner-outer`). kustomize rewrites a policy's `imageRepositoryRef` only where a kustomization of
    /// the chain names a `configurations:` file whose `nameReference` says so; without one, the reference keeps the
    /// written name. An object that several builds name differently (a base shared by a prefixed overlay and a plain
    /// one) is one object per build (`EffectiveObjects`).
    struct Names {
        /// Object → the one name every build gives it, where that is not the written one.
        var renamed: [ObjectID: String] = [:]
        /// Policy object → its `imageRepositoryRef` as the builds rewrite it.
        var reference: [ObjectID: String] = [:]
    }

    static func resolveNames(_ objects: Objects, files: Files, graph: IncludeGraph) -> Names {
        var names = Names()
        guard objects.contains(where: { $0.kustomizeNamePrefix != nil || $0.kustomizeNameSuffix != nil }) else { return names }
        var fileIndex: [String: FileID] = [:]
        for f in files.indices { fileIndex[files[f].path] = f }
        /// Whether a configuration file of kustomization k has kustomize rewrite `spec/imageRepositoryRef/name`.
        func rewritesReference(_ k: ObjectID) -> Bool {
            let dir = files[objects[k].file].directory
            return objects[k].kustomizeConfigFiles.contains { name in
                guard let path = normalizePath(Sources.join(dir, name)), let f = fileIndex[path] else { return false }
                let y = YAMLFile(parsing: files[f].bytes)
                guard let root = y.documents.first?.root, let refs = y.get(root, "nameReference") else { return false }
                return y.childNodes(refs).contains { ref in
                    y.string(ref, "kind") == "ImageRepository" && y.get(ref, "fieldSpecs").map { specs in
                        y.childNodes(specs).contains { spec in
                            (y.string(spec, "kind").map { $0 == "ImagePolicy" } ?? true) && y.string(spec, "path") == "spec/imageRepositoryRef/name"
                        }
                    } == true
                }
            }
        }
        struct Affixes: Equatable { var prefix: String, suffix: String }
        /// What a way adds to a name, whether it rewrites references, and the affixes after each of its kustomizations,
        /// inside out (kustomize matches a reference against every name an object had on the way).
        struct Way: Equatable {
            var prefix: String, suffix: String, rewrites: Bool, steps: [Affixes]
        }
        /// The ways from kustomization k outwards: the prefix and suffix each adds, and whether references are rewritten.
        let memo = IncludeGraph.Memo<ObjectID, [Way]>(cycle: [])
        func chain(_ k: ObjectID, _ depth: Int) -> [Way] {
            memo.value(k) {
                let prefix = objects[k].kustomizeNamePrefix ?? "", suffix = objects[k].kustomizeNameSuffix ?? ""
                let own = Way(prefix: prefix, suffix: suffix, rewrites: !objects[k].kustomizeConfigFiles.isEmpty && rewritesReference(k),
                              steps: [Affixes(prefix: prefix, suffix: suffix)])
                var result: [Way] = []
                for p in graph.parents(of: k, depth: depth) {
                    for outer in chain(p, depth + 1) {
                        let v = Way(prefix: outer.prefix + own.prefix, suffix: own.suffix + outer.suffix, rewrites: own.rewrites || outer.rewrites,
                                    steps: own.steps + outer.steps.map { Affixes(prefix: $0.prefix + own.prefix, suffix: own.suffix + $0.suffix) })
                        if !result.contains(v) { result.append(v) }
                    }
                }
                // a top, or only cycles above
                return result.isEmpty ? [own] : result
            }
        }
        var rewritten: [(policy: ObjectID, reference: String, way: Way)] = []
        for (i, o) in objects.withIDs where o.group == "image.toolkit.fluxcd.io" {
            guard let name = o.name else { continue }
            var ways: [Way] = []
            for k in graph.includers(of: files[o.file].path) {
                for w in chain(k, 0) where !ways.contains(w) { ways.append(w) }
            }
            let made = ways.reduce(into: [String]()) { all, w in
                let n = w.prefix + name + w.suffix
                if !all.contains(n) { all.append(n) }
            }
            if made.count == 1, made[0] != name {
                names.renamed[i] = made[0]
                if ways.allSatisfy(\.rewrites), case .imagePolicy(let spec)? = o.flux, let ref = spec.repositoryName {
                    rewritten.append((i, ref.value, ways[0]))
                }
            }
        }
        // kustomize rewrites a reference that names an ImageRepository of the build by any name it had on the way
        let renamed = names.renamed
        for (i, ref, way) in rewritten {
            let target = objects.indices.first { r in
                guard objects[r].kind == "ImageRepository", let written = objects[r].name, let final = renamed[r],
                      final == way.prefix + written + way.suffix else { return false }
                return ref == written || way.steps.contains { $0.prefix + written + $0.suffix == ref }
            }
            if let target { names.reference[i] = renamed[target] }
        }
        return names
    }

    /// The path of file `file`.
    public func path(_ file: FileID) -> String { files[file].path }
    /// The directory of `file` (`Path.dirname` of its path).
    public func directory(_ file: FileID) -> String { files[file].directory }

    /// The tops of the builds that take file `f`: followed up `includedBy` to the kustomizations nothing includes, and
    /// from one that is a Flux Kustomization's `path` on to whatever applies that Flux Kustomization's own file, up to
    /// a kustomization nothing applies (`k` and its index) or a Flux Kustomization no kustomization here applies: those
    /// are taken to be applied together, to the cluster of their environment (`flux` and the environment), unless it
    /// builds the directory of its own file, a cluster's root (`root` and its path). Empty for a
    /// file no kustomization takes. `fluxAt`: the Flux Kustomizations by their `path`; `memo` keeps each path's answer
    /// (made with `cycle: []`: a cycle adds nothing).
    public func buildTops(ofFile f: FileID, fluxAt: [String: [ObjectID]], memo: IncludeGraph.Memo<String, Set<String>>) -> Set<String> {
        let kustomizationTops = IncludeGraph.Memo<String, [ObjectID]>(cycle: [])
        func tops(_ key: String) -> Set<String> {
            memo.value(key) {
                var out = Set<String>()
                for k in graph.tops(of: key, memo: kustomizationTops) {
                    let dir = graph.directory(of: k)
                    if let builders = fluxAt[dir] {
                        for b in builders {
                            let own = path(objects[b].file), above = tops(own)
                            if !above.isEmpty { out.formUnion(above) }
                            // one that builds the directory of its own file is a cluster's root, as bootstrap's sync is:
                            // two such are two clusters (Ivanhahanov/ctf-school-ctfd's clusters/kind and clusters/cloud)
                            else if dir.isEmpty || own.hasPrefix(dir + "/") { out.insert("root " + dir) }
                            else { out.insert("flux " + (objectEnvironment[b] ?? "")) }
                        }
                    } else {
                        out.insert("k \(k)")
                    }
                }
                return out
            }
        }
        return tops(path(f))
    }

    /// An object's `namespace/name` as the cluster gets it (its name alone where its namespace is not known).
    public func qualifiedName(_ k: ObjectID) -> String {
        (objectNamespace[k].map { $0 + "/" } ?? "") + (objects[k].name ?? "")
    }

    public func objectRef(_ i: ObjectID?) -> ObjectRef? {
        guard let i else { return nil }
        let o = objects[i]
        return ObjectRef(apiVersion: o.apiVersion, kind: o.kind, namespace: objectNamespace[i], name: o.name)
    }
}

/// What `FluxIndex.build` reads of a model under construction, handed to the thread that builds it.
struct FluxIndexInput: Sendable {
    let objects: Objects
    let namespaces: Table<ObjectID, String?>
    let environments: Table<ObjectID, String?>
    let files: Files
    let addedLabels: [ObjectID: [[String: String]]]
    let nonResources: Set<ObjectID>
    let markers: Table<MarkerID, MarkerComment>
    let variables: PostBuildVariables
    let here: Set<String>
    /// The clone's remotes, as repository paths.
    let remotes: Set<String>
    let bootstrapSources: [(namespace: String?, name: String)]
    let graph: IncludeGraph
    let clusters: Clusters
    let rootPaths: [ObjectID: [String]]

    func build(markerEnvironment: Table<MarkerID, String?>) -> (FluxIndex, Table<MarkerID, FluxIndex.MarkerInfo>) {
        let clusters = clusters
        return FluxIndex.build(objects: objects, namespaces: namespaces, environments: environments, files: files, addedLabels: addedLabels,
                               nonResources: nonResources,
                               markers: markers, markerEnvironment: markerEnvironment, expand: variables.expansionsByBuild, here: here,
                               remotes: remotes, bootstrapSources: bootstrapSources,
                               deployedTogether: Model.deployedTogether(objects: objects, files: files, graph: graph, clusters: clusters,
                                                                        rootPaths: rootPaths),
                               notDeployed: { if case .notDeployed(let why) = clusters.reach[$0] { why } else { nil } })
    }
}
