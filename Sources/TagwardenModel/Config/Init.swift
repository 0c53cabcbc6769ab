import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy

/// `tagwarden init` and `tagwarden env`: the environment model written out.
public enum EnvironmentReport {
    public struct Found: Sendable {
        public var name: String
        public var paths: [String]
        public var namespaces: [String]
        public var prefixes: [String]
        /// The tags of the promoted images seen there.
        public var tags: [String] = []
        /// The promoted images seen there, and how many of them are pinned by digest.
        public var promoted = 0
        public var pinned = 0
    }

    /// Namespaces no environment owns: Kubernetes' and Flux's own.
    static let sharedNamespaces: Set<String> = ["default", "kube-system", "kube-public", "kube-node-lease", "flux-system"]

    /// What the repository shows about each environment: directories named after it, namespaces, tag prefixes.
    public static func found(_ m: Model) -> [Found] {
        // a namespace belongs to an environment only when every object in it does
        var envsOfNamespace: [String: Set<String>] = [:]
        for (i, o) in m.objects.withIDs where o.kind != "Namespace" {
            if let ns = m.objectNamespace[i] { envsOfNamespace[ns, default: []].insert(m.objectEnvironment[i] ?? "") }
        }
        return m.environments.environments.map { env in
            var paths = Set<String>()
            var namespaces = Set<String>()
            var prefixes = Set<String>()
            var tags = Set<String>()
            for (i, o) in m.objects.withIDs where m.objectEnvironment[i] == env.name {
                let parts = m.path(o.file).split(separator: "/").dropLast()
                if let k = parts.firstIndex(where: { env.matchesAlias(String($0)) }) {
                    paths.insert(parts[...k].joined(separator: "/") + "/**")
                }
                if let ns = m.objectNamespace[i], o.kind != "Namespace", envsOfNamespace[ns] == [env.name], !sharedNamespaces.contains(ns) {
                    namespaces.insert(ns)
                }
            }
            var promoted = 0, pinned = 0
            for (i, img) in m.images.withIDs where m.images[i].environment == env.name && m.images[i].promoted {
                // a prefix is a word before a dash (`staging-`), not a version's head (`0.1.2-1-g7476459`)
                if let t = img.tag?.value, let dash = t.firstIndex(of: "-"), t.first?.isLetter == true { prefixes.insert(String(t[...dash])) }
                if let t = img.tag?.value { tags.insert(t) }
                promoted += 1
                if img.digest != nil { pinned += 1 }
            }
            return Found(name: env.name, paths: paths.sorted(), namespaces: namespaces.sorted(), prefixes: prefixes.sorted(), tags: tags.sorted(),
                         promoted: promoted, pinned: pinned)
        }
    }

    /// `s` as a regular expression that matches it literally (Go's regexp.QuoteMeta).
    static func quoteMeta(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\.+*?()|[]{}^$".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }

    static func flow(_ xs: [String]) -> String {
        "[" + xs.map { yamlQuote($0) }.joined(separator: ", ") + "]"
    }

    static func yamlQuote(_ s: String) -> String {
        let plainSafe = s.unicodeScalars.allSatisfy { ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
            || ($0.value >= 0x61 && $0.value <= 0x7A) || "-_./".unicodeScalars.contains($0) }
        if plainSafe, !s.isEmpty, ScalarType.resolvePlain(s) == .string { return s }
        return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A setting `init` weighs for one environment: one the repository's tags suggest (the prefix they all have, the
    /// strict pattern spelt for it), or one of the strict profile's; with the findings it would add to the audit of the
    /// repository as it is (nil until counted).
    public struct Candidate: Sendable, Equatable {
        public let environment: String
        public let key: String
        /// As written in YAML.
        public let value: String
        /// The strict profile's (else the repository's tags suggest it).
        public let strict: Bool
        /// Whether the environment's promoted images show it: every tag has the prefix or matches the pattern, every
        /// image is pinned (at least one image). A rule that judged nothing is no evidence; review never shows.
        public let shown: Bool
        public var findings: Int? = nil

        /// What the repository does today: it adds no finding, and the images show it.
        public var keptToday: Bool { findings == 0 && shown }
    }

    /// The settings to weigh: for each environment, the prefix all its promoted tags have (where another environment's
    /// tags have another: a prefix they share, `master-`, names the branch builds come from) and the strict pattern spelt
    /// for it when every tag matches; then the strict profile's settings, but its prefix and pattern where the tags
    /// suggest their own.
    public static func candidates(_ m: Model) -> [Candidate] {
        let found = found(m)
        var single: [String: String] = [:]
        for f in found { if f.prefixes.count == 1 { single[f.name] = f.prefixes[0] } }
        let seen = Set(single.values).count >= 2 && Set(single.values).count == single.count ? single : [:]
        let strict = EnvironmentModel.base(config: nil, profile: "strict")
        var out: [Candidate] = []
        for f in found {
            let tagged = !f.tags.isEmpty
            func prefix(_ p: String, strict: Bool) -> Candidate {
                Candidate(environment: f.name, key: "tagPrefix", value: yamlQuote(p), strict: strict, shown: tagged && f.tags.allSatisfy { $0.hasPrefix(p) })
            }
            func pattern(_ p: String, strict: Bool) -> Candidate {
                let re = try? GoRegex(p)
                return Candidate(environment: f.name, key: "tagPattern", value: yamlQuote(p), strict: strict,
                                 shown: tagged && re.map { re in f.tags.allSatisfy { re.matches($0) } } == true)
            }
            if let seenPrefix = seen[f.name] {
                out.append(prefix(seenPrefix, strict: false))
                if let env = strict.named(f.name), let strictPattern = env.tagPattern, let strictPrefix = env.tagPrefix,
                   strictPattern.hasPrefix("^" + strictPrefix) {
                    let derived = pattern("^" + quoteMeta(seenPrefix) + strictPattern.dropFirst(1 + strictPrefix.count), strict: false)
                    if derived.shown { out.append(derived) }
                }
            }
            guard let e = strict.named(f.name) else { continue }
            if seen[f.name] == nil {
                if let p = e.tagPrefix { out.append(prefix(p, strict: true)) }
                if let p = e.tagPattern { out.append(pattern(p, strict: true)) }
            }
            if e.requireDigest {
                out.append(Candidate(environment: f.name, key: "requireDigest", value: "true", strict: true, shown: f.promoted > 0 && f.pinned == f.promoted))
            }
            if e.requireReview { out.append(Candidate(environment: f.name, key: "requireReview", value: "true", strict: true, shown: false)) }
        }
        return out
    }

    /// The `.tagwarden.yaml` that `init` writes: what the repository does today — its environments, with the
    /// candidates in `kept` — and, commented, the strict settings in `offered`, each with the findings it would add.
    public static func initialConfig(_ m: Model, kept: [Candidate] = [], offered: [Candidate] = []) -> String {
        var out = """
        # Tagwarden configuration, written by `tagwarden init` from what this repository does today: the audit right
        # after it reports what is wrong whatever the conventions. Review it, edit it, commit it.
        environments:

        """
        let strict = EnvironmentModel.base(config: nil, profile: "strict")
        for f in found(m) {
            let env = strict.named(f.name)
            out += "  - name: \(f.name)\n"
            out += "    aliases: \(flow(env?.aliases ?? []))\n"
            if !f.paths.isEmpty { out += "    paths: \(flow(f.paths))\n" }
            if !f.namespaces.isEmpty { out += "    namespaces: \(flow(f.namespaces))\n" }
            let mine = kept.filter { $0.environment == f.name }
            if !f.prefixes.isEmpty && !mine.contains(where: { $0.key == "tagPrefix" }) {
                out += "    # tag prefixes seen: \(f.prefixes.joined(separator: ", "))\n"
            }
            for k in mine {
                let why = k.strict ? "the strict profile's, which this repository keeps today" : "what every \(f.name) tag seen has"
                out += "    \(k.key): \(k.value)  # \(why)\n"
            }
        }
        if !offered.isEmpty {
            out += """
            # The strict profile's other settings: this repository does not do them today, or nothing here shows that it does.
            # Each says how many findings it would add now. Copy one into its environment above, or set `profile: strict`.

            """
            for o in offered {
                let n = o.findings.map { "\($0) finding\($0 == 1 ? "" : "s")" } ?? "not counted"
                out += "#   \(o.environment): \(o.key): \(o.value)  # \(n)\n"
            }
        }
        out += """
        # Flux's own controllers (flux bootstrap's gotk-components.yaml) need no digests: flux pins them by release.
        # promotedImages: ["ghcr.io/acme/*"]   # images you build and promote, besides those an ImageRepository watches
        # ignore: ["charts/**"]
        # rules:
        #   image-floating-tag: {severity: error}

        """
        out += clustersSection(m)
        return out
    }

    /// `init`'s `clusters:`: the clusters found, each with the Flux read from the repository, then, commented, the
    /// directories whose objects no cluster here reaches, for the user to say what applies them.
    static func clustersSection(_ m: Model) -> String {
        let unreached = m.unreachedDirectories
        guard !m.clusters.clusters.isEmpty || !unreached.isEmpty else { return "" }
        var out = """

        # The clusters: each applies what its Flux Kustomizations build, plus the files its paths match (globs, relative to
        # this file). An entry overrides what Tagwarden detects; fluxVersion and substitute settle what it would assume.

        """
        if m.clusters.clusters.isEmpty { out += "# clusters:\n" } else { out += "clusters:\n" }
        for c in m.clusters.clusters {
            out += "  - name: \(yamlQuote(c.displayName))\n"
            if let v = c.flux, let origin = c.fluxOrigin { out += "    fluxVersion: \(yamlQuote(v.description))  # \(origin)\n" }
            else { out += "    # fluxVersion: \"2.7\"  # not written in the repository: current Flux is assumed until set\n" }
        }
        if !unreached.isEmpty {
            out += "# Directories with objects that no cluster here applies (judged, findings at most warnings). If\n"
                + "# something applies them (kubectl apply -k, a cluster bootstrapped elsewhere), declare it:\n"
                + "#   - name: applied-by-hand\n"
                + "#     paths:\n"
            for (dir, n) in unreached.prefix(50) { out += "#       - \(yamlQuote(dir.isEmpty ? "." : dir))  # \(n) file\(n == 1 ? "" : "s")\n" }
            if unreached.count > 50 { out += "#       # and \(unreached.count - 50) more directories (tagwarden env lists them)\n" }
        }
        return out
    }

    /// `tagwarden env`: the environment model, then the clusters and their Flux (and, with `applied`, every file).
    public static func text(_ model: Model, applied: Bool) -> String {
        var out = text(model.environments) + "\nClusters and Flux\n"
        for l in model.clusterLines { out += "  \(l)\n" }
        if applied {
            out += "\nFiles\n"
            for l in model.appliedLines { out += "  \(l)\n" }
        }
        return out
    }

    /// The images of cluster `c`'s files, as the model reads them: each container (or release values) image, with its
    /// object, container, text (substituted), place, and whether the tag written there runs in some build
    /// (`writtenTagRuns`: false where every build replaces it by an `images:` entry or a patch); and the kustomize
    /// `images:` entries (`origin: kustomize`, the kustomization as the object). The object's name is the one written;
    /// an image a JSON patch file writes has no object (`kind` null).
    static func images(_ model: Model, of c: Clusters.Cluster) -> [JSON] {
        let files = Set(c.files)
        return model.images.indices.compactMap { i -> JSON? in
            let img = model.images[i]
            guard files.contains(img.file), img.origin != .marker else { return nil }
            let object = img.object.map { model.objects[$0] }
            return .object([
                ("kind", object.map { .string($0.kind) } ?? .null), ("namespace", img.object.flatMap { model.objectNamespace[$0] }.map(JSON.string) ?? .null),
                ("name", object?.name.map(JSON.string) ?? .null), ("container", img.container.map(JSON.string) ?? .null),
                ("image", .string(img.text)), ("origin", .string(img.origin.rawValue)),
                ("writtenTagRuns", .bool(!img.retagged)),
                ("builtBy", .array((model.clusters.kustomizationsOfFile[img.file] ?? []).map { .string(model.qualifiedName($0)) })),
                ("file", .string(model.path(img.file))), ("line", .int(img.span.start.line)),
            ])
        }
    }

    /// What cluster `c` builds: each Flux Kustomization it applies (its file and `path`, as written), and for a root
    /// whose path does not build its own file, the directory it is in (taken to be applied with it).
    static func builds(_ model: Model, of c: Clusters.Cluster) -> [JSON] {
        c.kustomizations.map { k in
            let object = model.objects[k], spec = object.fluxKustomization
            let buildsItself = model.clusters.kustomizationsOfFile[object.file]?.contains(k) ?? false
            return .object([
                ("namespace", model.objectNamespace[k].map(JSON.string) ?? .null), ("name", object.name.map(JSON.string) ?? .null),
                ("file", .string(model.path(object.file))), ("path", spec?.path.map(JSON.string) ?? .null),
                ("root", .bool(c.roots.contains(k))),
                ("appliedWithDirectory", c.roots.contains(k) && !buildsItself ? .string(model.directory(object.file)) : .null),
            ])
        }
    }

    public static func json(_ model: Model, applied: Bool) -> JSON {
        guard case .object(var kv) = json(model.environments) else { return json(model.environments) }
        func name(_ k: ObjectID) -> JSON { .string(model.qualifiedName(k)) }
        kv.append(("flux", .string(model.fluxHeader)))
        kv.append(("clusters", .array(model.clusters.clusters.map { c in
            .object([
                ("name", .string(c.displayName)),
                ("fluxVersion", (model.config.fluxVersion ?? c.flux).map { .string($0.description) } ?? .null),
                ("fluxOrigin", model.config.fluxVersion != nil ? .string("fluxVersion in \(model.config.path ?? Config.fileName)")
                    : c.fluxOrigin.map(JSON.string) ?? .null),
                ("declaredAt", c.declaredAt.map(JSON.string) ?? .null),
                ("inferred", c.inferred.map(JSON.string) ?? .null),
                ("syncedBy", c.syncedBy.map(JSON.string) ?? .null),
                ("roots", .array(c.roots.map(name))),
                ("kustomizations", .array(c.kustomizations.map(name))),
                ("files", .array(applied ? c.files.map { .string(model.path($0)) } : [])),
                ("fileCount", .int(c.files.count)),
                ("builds", .array(builds(model, of: c))),
                ("images", .array(images(model, of: c))),
                ("substitute", .object(c.substitute.keys.sorted().map { ($0, .string(c.substitute[$0]!)) })),
            ])
        })))
        var unknown: [JSON] = []
        for r in model.flux.repositories where !r.unresolvedVariables.isEmpty {
            unknown.append(.object([("object", name(r.object)), ("file", .string(model.path(model.objects[r.object].file))),
                                    ("text", .string(r.spec.image?.value ?? "")), ("variables", .array(r.unresolvedVariables.map(JSON.string)))]))
        }
        kv.append(("unresolvedVariables", .array(unknown)))
        if applied {
            var unreached: [JSON] = [], notDeployed: [JSON] = []
            for f in model.files.indices {
                switch model.clusters.reach[f] {
                case .applied: break
                case .unreached: unreached.append(.string(model.path(f)))
                case .notDeployed(let why): notDeployed.append(.object([("file", .string(model.path(f))), ("why", .string(why))]))
                case .assumed: break   // in its inferred cluster's files
                }
            }
            kv.append(("unreached", .array(unreached)))
            kv.append(("notDeployed", .array(notDeployed)))
        }
        return .object(kv)
    }

    public static func text(_ m: EnvironmentModel) -> String {
        var out = "Environment model: \(m.source)\n"
        for e in m.environments {
            func origin(_ key: String) -> String { e.origin[key].map { "  (\($0))" } ?? "" }
            out += "\n\(e.name)\n"
            out += "  aliases:        \(e.aliases.joined(separator: ", "))\(origin("aliases"))\n"
            out += "  tag prefix:     \(e.tagPrefix ?? "none")\(origin("tagPrefix"))\n"
            out += "  tag pattern:    \(e.tagPattern ?? "none")\(origin("tagPattern"))\n"
            out += "  require digest: \(e.requireDigest ? "yes" : "no")\(origin("requireDigest"))\n"
            out += "  require review: \(e.requireReview ? "yes" : "no")\(origin("requireReview"))\n"
            if !e.paths.isEmpty { out += "  paths:          \(e.paths.map(\.pattern).joined(separator: ", "))\(origin("paths"))\n" }
            if !e.namespaces.isEmpty { out += "  namespaces:     \(e.namespaces.joined(separator: ", "))\(origin("namespaces"))\n" }
        }
        out += """

        A manifest's environment: the config's paths and namespaces; else the `environment` label of its
        Namespace object; else a directory named after an alias; else its namespace's name.

        """
        return out
    }

    public static func json(_ m: EnvironmentModel) -> JSON {
        .object([
            ("source", .string(m.source)),
            ("environments", .array(m.environments.map { e in
                .object([
                    ("name", .string(e.name)),
                    ("aliases", .array(e.aliases.map(JSON.string))),
                    ("tagPrefix", e.tagPrefix.map(JSON.string) ?? .null),
                    ("tagPattern", e.tagPattern.map(JSON.string) ?? .null),
                    ("requireDigest", .bool(e.requireDigest)),
                    ("requireReview", .bool(e.requireReview)),
                    ("paths", .array(e.paths.map { .string($0.pattern) })),
                    ("namespaces", .array(e.namespaces.map(JSON.string))),
                    ("origin", .object(e.origin.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ])
            })),
        ])
    }
}
