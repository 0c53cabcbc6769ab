import TagwardenBasics
import TagwardenModel
import TagwardenYAML
extension Rule {
    /// A kustomization kustomize refuses: every build of its directory fails, so what builds it deploys nothing.
    static let kustomizationBuildFails = Rule("kustomization-build-fails") { c in
        let m = c.model
        var out: [Finding] = []
        /// What fails with kustomization file f: the Flux Kustomizations that build it, or its directory's builds.
        func consequence(_ f: Int) -> String {
            let builders = (m.clusters.kustomizationsOfFile[f] ?? []).map { k in
                "Flux Kustomization \(m.objectNamespace[k].map { $0 + "/" } ?? "")\(m.objects[k].name ?? "") (\(m.path(m.objects[k].file)))"
            }
            return builders.isEmpty ? "so nothing that builds \(Path.dirname(m.path(f)).isEmpty ? "." : Path.dirname(m.path(f))) deploys anything"
                : "so \(builders.prefix(3).joined(separator: ", "))\(builders.count > 3 ? " and \(builders.count - 3) more" : "") "
                    + (builders.count == 1 ? "deploys" : "deploy") + " nothing"
        }
        for (k, missing) in m.missingResources.sorted(by: { $0.key < $1.key }) {
            let o = m.objects[k]
            let y = YAMLFile(parsing: m.files[o.file].bytes)
            guard o.document < y.documents.count else { continue }
            let root = y.documents[o.document].root
            for (entry, why) in missing {
                // the entry where it is written
                let node = ["resources", "bases", "components"].lazy.compactMap { y.get(root, $0) }
                    .flatMap { y.childNodes($0) }.first { y.nodes[$0].kind == .scalar && y.value($0) == entry }
                guard let node else { continue }
                out.append(c.finding("kustomize cannot build this kustomization: it names '\(entry)', \(why), \(consequence(o.file))",
                                     file: o.file, span: y.nodes[node].span, object: nil, environment: nil))
            }
        }
        out += duplicateIDs(c, consequence: consequence)
        for f in m.files.indices {
            guard let field = m.files[f].kustomizationUnknownFields.first else { continue }
            let what = consequence(f)
            // a Flux Kustomization's spec written into a kustomize file
            let hint = field.value == "spec" ? "; a Flux Kustomization (kustomize.toolkit.fluxcd.io) belongs in a file of its own, "
                + "which this kustomization lists in resources" : ""
            out.append(c.finding("kustomize refuses this kustomization (invalid Kustomization: json: unknown field \"\(field.value)\"), "
                                    + "\(what)\(hint)", file: f, span: field.span, object: nil, environment: nil))
        }
        return out
    }

    /// Two resources of one kind, namespace and name (as written) that one kustomize build accumulates side by side:
    /// the files one kustomization lists, or those the kustomization Flux generates at a Flux Kustomization's `path`
    /// takes directly (no kustomization file on the way). kustomize refuses the build ("may not add resource with an
    /// already registered id"), whatever the values.
    static func duplicateIDs(_ c: RuleContext, consequence: (Int) -> String) -> [Finding] {
        let m = c.model
        let builds = sideBySide(m)
        struct ID: Hashable { let group: String, kind: String, namespace: String?, name: String }
        var out: [Finding] = []
        var reported = Set<Int>()
        var objectsOf: [Int: [Int]] = [:]
        // (as written: not the variants other builds make of an object)
        for (i, o) in m.objects.enumerated() where m.variantOf[i] == nil { objectsOf[o.file, default: []].append(i) }
        for build in builds {
            var seen: [ID: Int] = [:]
            for f in build.files {
                for i in objectsOf[f] ?? [] {
                    let o = m.objects[i]
                    guard !o.isKustomization, o.kind != "List", let name = o.name, !name.containsBytes("${"),
                          !(o.declaredNamespace?.containsBytes("${") ?? false) else { continue }
                    let id = ID(group: o.group, kind: o.kind, namespace: o.declaredNamespace, name: name)
                    guard let first = seen[id] else { seen[id] = i; continue }
                    guard reported.insert(i).inserted else { continue }
                    let other = m.objects[first]
                    let built = Extractor.isKustomizationName(Path.basename(m.path(build.by))) ? "the kustomization \(m.path(build.by))"
                        : "the kustomization Flux generates for the Flux Kustomization in \(m.path(build.by))"
                    out.append(c.finding("kustomize refuses the build: \(built) takes \(o.kind) \(o.declaredNamespace.map { $0 + "/" } ?? "")\(name) "
                                         + "twice, here and in \(m.path(other.file)):\(other.kindSpan.start.line) (may not add resource with an "
                                         + "already registered id), \(consequence(o.file))",
                                         file: o.file, span: o.kindSpan, object: i, environment: nil))
                }
            }
        }
        return out
    }

    /// The kustomize builds that accumulate files side by side, each with the file that makes it: a kustomization's
    /// listed files, and what the kustomization Flux generates at a Flux Kustomization's `path` takes directly.
    static func sideBySide(_ m: Model) -> [(files: [Int], by: Int)] {
        var kustomizationDirs = Set<String>()
        for f in m.files where Extractor.isKustomizationName(Path.basename(f.path)) { kustomizationDirs.insert(Path.dirname(f.path)) }
        // the builds, each with the files it takes side by side, and the file that says so
        var builds: [(files: [Int], by: Int)] = []
        var fileAt: [String: Int] = [:]
        for (i, f) in m.files.enumerated() { fileAt[f.path] = i }
        for o in m.objects where o.isKustomization && Extractor.isKustomizationName(Path.basename(m.path(o.file))) {
            let dir = Path.dirname(m.path(o.file))
            let listed = o.kustomizeResources.compactMap { Model.normalizePath(Sources.join(dir, $0)).flatMap { fileAt[$0] } }
            if !listed.isEmpty { builds.append((listed, o.file)) }
        }
        var generatedAt: [String: Int] = [:]   // a Flux Kustomization's path without a kustomization file → its file
        for o in m.objects {
            guard let p = o.fluxKustomization?.path.flatMap(Model.normalizePath), !kustomizationDirs.contains(p) else { continue }
            generatedAt[p] = generatedAt[p] ?? o.file
        }
        if !generatedAt.isEmpty {
            var taken: [String: [Int]] = [:]
            for (i, f) in m.files.enumerated() where Sources.isManifestName(f.path) && !Extractor.isKustomizationName(Path.basename(f.path)) {
                var dir = Path.dirname(f.path)
                while !kustomizationDirs.contains(dir) {
                    if generatedAt[dir] != nil { taken[dir, default: []].append(i) }
                    if dir.isEmpty { break }
                    dir = Path.dirname(dir)
                }
            }
            for dir in taken.keys.sorted() { builds.append((taken[dir]!, generatedAt[dir]!)) }
        }
        return builds
    }
}
