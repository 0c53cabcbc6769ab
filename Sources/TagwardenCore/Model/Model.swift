import Dispatch

/// Everything the rules read, built once per run from all files. Rules never parse YAML.
public struct Model: Sendable {
    public let files: [FileFacts]
    public let objects: [ManifestObject]
    public let images: [ImageUse]
    public let markers: [MarkerComment]
    public let config: Config
    public let environments: EnvironmentModel
    /// Effective namespace per object: declared, inherited from kustomize, or a Flux Kustomization's target.
    public let objectNamespace: [String?]
    public let objectEnvironment: [String?]
    public let imageEnvironment: [String?]
    public let imagePromoted: [Bool]
    public let floatingTags: Set<String>
    /// Labels of the Namespace objects in the repository, by name.
    public let namespaceLabels: [String: [String: String]]

    public static let defaultFloatingTags = ["main", "master", "develop", "development", "dev", "stable", "edge", "nightly",
                                             "canary", "release", "head", "snapshot", "prod", "production", "staging", "stage",
                                             "test", "testing", "unstable", "next", "trunk", "current", "lts", "beta", "alpha", "preview"]

    /// Parses and extracts every file (in parallel), then resolves namespaces and environments.
    public static func build(_ sources: [SourceFile], config: Config, profile: String?) -> Model {
        let facts = extractAll(sources)
        return build(facts: facts, config: config, profile: profile)
    }

    static func extractAll(_ sources: [SourceFile]) -> [FileFacts] {
        final class Slots: @unchecked Sendable {
            var items: [FileFacts?]
            init(_ n: Int) { items = Array(repeating: nil, count: n) }
        }
        let slots = Slots(sources.count)
        let workers = max(1, min(sources.count, 8))
        let chunk = max(1, (sources.count + workers * 8 - 1) / (workers * 8))
        let chunks = (sources.count + chunk - 1) / chunk
        slots.items.withUnsafeMutableBufferPointer { buf in
            nonisolated(unsafe) let out = buf
            DispatchQueue.concurrentPerform(iterations: chunks) { c in
                let lo = c * chunk, hi = min(lo + chunk, sources.count)
                for i in lo..<hi {
                    out[i] = Extractor.extract(path: sources[i].path, bytes: sources[i].bytes, index: i)
                }
            }
        }
        return slots.items.map { $0! }
    }

    public static func build(facts: [FileFacts], config: Config, profile: String?) -> Model {
        var objects: [ManifestObject] = []
        var images: [ImageUse] = []
        var markers: [MarkerComment] = []
        for f in facts {
            let base = objects.count
            objects.append(contentsOf: f.objects)
            for var img in f.images {
                img.object = img.object.map { $0 + base }
                images.append(img)
            }
            for var m in f.markers {
                m.object = m.object.map { $0 + base }
                markers.append(m)
            }
        }
        var labels: [String: [String: String]] = [:]
        for o in objects where o.kind == "Namespace" && o.apiVersion == "v1" {
            if let n = o.name { labels[n, default: [:]].merge(o.labels) { a, _ in a } }
        }
        let namespaces = resolveNamespaces(objects, files: facts)
        var env = EnvironmentModel.base(config: config, profile: profile)
        func objectEnv(_ i: Int) -> String? {
            env.detect(path: facts[objects[i].file].path, namespace: namespaces[i], namespaceLabels: labels)
        }
        // Infer tag prefixes from the repository's own policies where nothing set them.
        var policies: [(environment: String?, pattern: String?)] = []
        for (i, o) in objects.enumerated() {
            if case .imagePolicy(let p)? = o.flux { policies.append((objectEnv(i), p.pattern?.value)) }
        }
        env.inferPrefixes(policies: policies)
        let objectEnvironment = objects.indices.map { objectEnv($0) }
        let imageEnvironment = images.map { img -> String? in
            if let o = img.object { return objectEnvironment[o] }
            return env.detect(path: facts[img.file].path, namespace: nil, namespaceLabels: labels)
        }
        var watched = Set<String>()
        for o in objects {
            if case .imageRepository(let r)? = o.flux, let image = r.image?.value, let n = ImageReference.normalizeName(image) {
                watched.insert(n)
            }
        }
        let globs = config.promotedImages.map(Glob.init)
        let promoted = images.map { img -> Bool in
            if img.origin == .marker { return true }
            guard let name = img.name, case .success(let ref) = ImageReference.parse(name) else { return false }
            let normalized = ref.normalizedName
            if watched.contains(normalized) { return true }
            return globs.contains { $0.matches(ref.name) || $0.matches(normalized) }
        }
        return Model(files: facts, objects: objects, images: images, markers: markers, config: config, environments: env,
                     objectNamespace: namespaces, objectEnvironment: objectEnvironment, imageEnvironment: imageEnvironment,
                     imagePromoted: promoted, floatingTags: Set((config.floatingTags ?? defaultFloatingTags).map { $0.lowercased() }),
                     namespaceLabels: labels)
    }

    static func normalizePath(_ p: String) -> String? {
        var parts: [Substring] = []
        for c in p.split(separator: "/") {
            if c == "." || c.isEmpty { continue }
            if c == ".." {
                if parts.isEmpty { return nil }
                parts.removeLast()
            } else { parts.append(c) }
        }
        return parts.joined(separator: "/")
    }

    static func dirname(_ p: String) -> String {
        guard let slash = p.lastIndex(of: "/") else { return "" }
        return String(p[..<slash])
    }

    /// An object's namespace: `metadata.namespace`; else the outermost `namespace:` of the kustomizations
    /// that include its file (followed up through `resources:`), when they agree; else the
    /// `targetNamespace` of the Flux Kustomization whose `path` holds the file.
    static func resolveNamespaces(_ objects: [ManifestObject], files: [FileFacts]) -> [String?] {
        var kustomizationByDir: [String: Int] = [:]
        var includedBy: [String: [Int]] = [:]   // file path or directory → kustomizations listing it
        var fluxTargets: [(String, String)] = []
        for (i, o) in objects.enumerated() {
            let path = files[o.file].path
            if o.isKustomization {
                let dir = dirname(path)
                kustomizationByDir[dir] = i
                for r in o.kustomizeResources where !r.contains("://") {
                    if let p = normalizePath(dir.isEmpty ? r : dir + "/" + r) { includedBy[p, default: []].append(i) }
                }
            }
            if case .kustomization(let k)? = o.flux, let t = k.targetNamespace, let p = k.path.flatMap(normalizePath) {
                fluxTargets.append((p, t))
            }
        }
        var memo: [Int: Set<String?>] = [:]
        // Namespaces that the chains above kustomization k impose (the outermost wins), nil = none.
        func chain(_ k: Int, _ depth: Int) -> Set<String?> {
            if let m = memo[k] { return m }
            if depth > 64 { return [nil] }
            memo[k] = [nil]
            let dir = dirname(files[objects[k].file].path)
            let parents = includedBy[dir] ?? []
            var out = Set<String?>()
            if parents.isEmpty {
                out.insert(objects[k].kustomizeNamespace)
            } else {
                for p in parents {
                    for ns in chain(p, depth + 1) { out.insert(ns ?? objects[k].kustomizeNamespace) }
                }
            }
            memo[k] = out
            return out
        }
        return objects.enumerated().map { (i, o) -> String? in
            if let ns = o.declaredNamespace { return ns }
            let path = files[o.file].path
            var candidates = Set<String?>()
            if o.isKustomization {
                candidates = chain(i, 0)
            } else {
                for k in includedBy[path] ?? [] { candidates.formUnion(chain(k, 0)) }
            }
            if candidates.count == 1, let only = candidates.first, let ns = only { return ns }
            if candidates.count > 1 { return nil }
            for (p, t) in fluxTargets where p.isEmpty || path.hasPrefix(p + "/") { return t }
            return nil
        }
    }

    // MARK: helpers for rules

    public func path(_ file: Int) -> String { files[file].path }

    public func objectRef(_ i: Int?) -> ObjectRef? {
        guard let i else { return nil }
        let o = objects[i]
        return ObjectRef(apiVersion: o.apiVersion, kind: o.kind, namespace: objectNamespace[i], name: o.name)
    }

    public func finding(_ rule: String, _ message: String, file: Int, span: SourceSpan, object: Int?, environment: String?) -> Finding {
        Finding(rule: rule, severity: .error, message: message, file: files[file].path, span: span,
                environment: environment, object: objectRef(object))
    }

    public func finding(_ rule: String, _ message: String, image i: Int, span: SourceSpan? = nil) -> Finding {
        let img = images[i]
        return finding(rule, message, file: img.file, span: span ?? img.span, object: img.object, environment: imageEnvironment[i])
    }
}
