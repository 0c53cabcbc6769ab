import TagwardenBasics
import TagwardenModel
extension Rule {
    /// A kustomization kustomize refuses: every build of its directory fails, so what builds it deploys nothing.
    static let kustomizationBuildFails = Rule("kustomization-build-fails") { c in
        let m = c.model
        var out: [Finding] = []
        /// What fails with kustomization file f: the Flux Kustomizations that build it, or its directory's builds.
        func consequence(_ f: FileID) -> String {
            consequence(builders: m.clusters.kustomizationsOfFile[f] ?? [], of: m.directory(f))
        }
        func consequence(builders ks: [ObjectID], of dir: String) -> String {
            let builders = ks.map { k in "Flux Kustomization \(m.qualifiedName(k)) (\(m.path(m.objects[k].file)))" }
            return builders.isEmpty ? "so nothing that builds \(dir.isEmpty ? "." : dir) deploys anything"
                : "so \(builders.prefix(3).joined(separator: ", "))\(builders.count > 3 ? " and \(builders.count - 3) more" : "") "
                    + (builders.count == 1 ? "deploys" : "deploy") + " nothing"
        }
        /// Path → the Flux Kustomizations whose `path` it is (gathered once, for the few files a finding needs it for).
        var byPath: [String: [ObjectID]]?
        func fluxKustomizations(at path: String) -> [ObjectID] {
            if byPath == nil {
                byPath = Dictionary(m.objects.indices.compactMap { k in
                    m.objects[k].fluxKustomization?.path.flatMap(Model.normalizePath).map { ($0, [k]) }
                }, uniquingKeysWith: +)
            }
            return byPath![path] ?? []
        }
        /// What fails with the kustomization Flux generates at `path`: the Flux Kustomizations whose path it is.
        func consequence(generatedAt path: String) -> String { consequence(builders: fluxKustomizations(at: path), of: path) }
        // (a directory a plugin builds may be given the file before kustomize reads it)
        let pluginBuilt = m.missingResources.isEmpty ? [:] : m.pluginBuiltDirectories()
        for (k, missing) in m.missingResources.sorted(by: { $0.key < $1.key }) {
            let file = m.objects[k].file, dir = m.directory(file)
            for missing in missing {
                // each entry of its kind, where it is written, that names the path
                let entries = missing.isPatch ? m.objects[k].kustomizePatchEntries : m.files[file].resourceEntries
                for entry in entries where Model.resourcePath(entry.value, in: dir) == missing.path {
                    var f = c.finding("kustomize cannot build this kustomization: it names '\(entry.value)', \(missing.why), \(consequence(file))",
                                      file: file, span: entry.span, object: nil, environment: nil)
                    if let plugin = pluginBuilt[dir] { f.assume("assuming plain kustomize builds it: \(plugin)") }
                    out.append(f)
                }
            }
        }
        for p in m.patchFailures {
            let file = m.objects[p.kustomization].file
            out.append(c.finding("kustomize cannot build \(m.path(file)): \(p.problem), \(consequence(file))",
                                 file: p.file, span: p.span, object: nil, environment: nil))
        }
        out += duplicateIDs(c) { by in by.generatedAt.map(consequence(generatedAt:)) ?? consequence(by.file) }
        // one finding per generated build, at the first file Flux's walk meets (fixing it shows the next)
        for refusals in Dictionary(grouping: m.generatedBuildRefusals, by: \.path).values.sorted(by: { $0[0].path < $1[0].path }) {
            let r = refusals[0]
            guard case .judged(let premise) = buildReach(m, file: r.file, builder: r.builder) else { continue }
            let others = refusals.dropFirst().map { m.path($0.file) }
            let more = others.isEmpty ? "" : "; \(others.count) more file\(others.count == 1 ? "" : "s") under it fail\(others.count == 1 ? "s" : "") "
                + "it too (\(others.prefix(3).joined(separator: ", "))\(others.count > 3 ? ", …" : ""))"
            let unread = m.unreadFiles(takenByGeneratedBuildAt: r.path)
            let unreadNote = unread == 0 ? "" : "; Flux reads the \(unread) file\(unread == 1 ? " under it that is" : "s under it that are") not read "
                + "here as well (file-skipped says which), which may fail it too"
            var f = c.finding("kustomize-controller cannot generate the kustomization at ./\(r.path) for the Flux Kustomization in "
                                + "\(m.path(r.builder)): it decodes every YAML file under the path as Kubernetes objects, and this file is not "
                                + "one (\(r.why)): 'failed to decode Kubernetes YAML from \(m.path(r.file)): \(r.kustomizeSays)', "
                                + "\(consequence(generatedAt: r.path))\(more)\(unreadNote); give ./\(r.path) a kustomization.yaml that lists its manifests, "
                                + "or move the files out of it",
                              file: r.file, span: r.span, object: nil, environment: nil)
            if let premise { f.assume(premise) }
            out.append(f)
        }
        for e in m.emptyFluxPaths {
            let k = e.kustomization
            let patch = e.patched ? " as this patch sets its path" : ""
            // a Kustomization that only builds kustomize refuses take is applied by none of them (DecentM/fleet-infra's
            // second `apps`, beside the first in one generated build): its path fails once something applies it
            let refused = m.takenOnlyByRefusedBuilds(k)
            let consequence = refused
                ? "every build that takes this Kustomization is one kustomize refuses (kustomization-build-fails says why), so nothing "
                    + "applies it now; once something does, kustomize-controller fails it with 'kustomization path not found'"
                : "kustomize-controller fails it with 'kustomization path not found', so it deploys nothing"
            var f = c.finding("Flux Kustomization \(m.qualifiedName(k)) builds ./\(e.path)\(patch), which is not in the repository: \(consequence)",
                              file: e.file, span: e.span, object: k, environment: nil)
            if refused { f.ruleSeverity = .warning }
            if let premise = m.emptyPathPremises[k] { f.assume(premise) }
            out.append(f)
        }
        // kustomize reads `kustomization.yaml` as its directory's kustomization only where a build takes the directory;
        // a kustomization that lists the file itself reads it as a resource (a Flux Kustomization kept under that name)
        for f in m.files.indices {
            guard let field = m.files[f].kustomizationUnknownFields.first else { continue }
            let dir = m.directory(f), atPath = fluxKustomizations(at: dir)
            if m.graph.isIncluded(m.path(f)) && !m.graph.isIncluded(dir) && atPath.isEmpty { continue }
            // a Flux Kustomization's spec written into a kustomize file, or another object kept under the name (a
            // CustomResourceDefinition, MirrMurr/psac-project)
            let first = m.objects.first { $0.file == f }
            let hint = field.value != "spec" ? "" : first.map { o in
                "; " + (o.kind == "Kustomization" ? "a Flux Kustomization (kustomize.toolkit.fluxcd.io)" : "a \(o.kind) (\(o.apiVersion))")
                    + " belongs in a file of its own, which this kustomization lists in resources"
            } ?? ""
            // only the Flux Kustomizations whose path it is read it: leniently
            let refusal = first.flatMap(kustomizeRefusal)
            if !atPath.isEmpty, !m.graph.isIncluded(dir) {
                out.append(droppedFieldFinding(c, file: f, field: field, dir: dir, builders: atPath, refusal: refusal, hint: hint,
                                               consequence: consequence(f)))
                continue
            }
            // a kustomization that includes the directory reads it strictly: its builds fail (and those whose path it is,
            // where kustomize's own check refuses its kind or apiVersion)
            let strict = (m.clusters.kustomizationsOfFile[f] ?? []).filter { refusal != nil || !atPath.contains($0) }
            let including = m.graph.includers(of: dir).first.map { m.graph.directory(of: $0) } ?? dir
            var finding = c.finding("kustomize refuses this kustomization (invalid Kustomization: json: unknown field \"\(field.value)\"), "
                                    + "\(consequence(builders: strict, of: strict.isEmpty && !atPath.isEmpty ? including : dir))\(hint)",
                                    file: f, span: field.span, object: nil, environment: nil)
            // an applied file of that name in a directory no build of the clusters here takes: its objects are applied as
            // they are (ajdann/homelab's Flux Kustomization, which Ansible applies file by file); where the file is not
            // applied, its reach's premise says as much
            if case .applied = m.clusters.reach[f], atPath.isEmpty, !m.graph.isIncluded(dir), (m.clusters.kustomizationsOfFile[f] ?? []).isEmpty {
                finding.assume("assuming something builds \(dir.isEmpty ? "." : dir) with kustomize, as kubectl apply -k does: no build here takes "
                               + "the directory")
            }
            out.append(finding)
        }
        return out
    }

    /// What kustomize's own check of a kustomization's kind and apiVersion says of a kustomization file whose first
    /// document is `first`, as it decodes it, or nil where it passes (or the file has neither: kustomize's defaults).
    static func kustomizeRefusal(_ first: ManifestObject) -> String? {
        let kind = first.kind, takes = kind == "Kustomization" || kind == "Component"
        let wanted = kind == "Component" ? "kustomize.config.k8s.io/v1alpha1" : "kustomize.config.k8s.io/v1beta1"
        let version = first.apiVersion == wanted ? nil : "apiVersion for \(kind) should be \(wanted)"
        return takes ? version : "kind should be Kustomization or Component" + (version.map { "; " + $0 } ?? "")
    }

    /// A kustomization with an unknown field that only Flux Kustomizations build, at their path: kustomize-controller
    /// does not hand kustomize the file as written. fluxcd/pkg's generator decodes it with sigs.k8s.io/yaml, which drops
    /// the fields it does not know, and writes it back; kustomize then checks its kind and apiVersion (`refusal`). The
    /// field does nothing under Flux (a warning: a misspelt `patch:` is silently not applied); where nothing else gives
    /// the build resources (a misspelt `resource:`), it builds nothing (an error).
    static func droppedFieldFinding(_ c: RuleContext, file f: FileID, field: Located, dir: String, builders: [ObjectID], refusal: String?,
                                    hint: String, consequence: String) -> Finding {
        let m = c.model
        let named = builders.prefix(2).map { "Flux Kustomization \(m.qualifiedName($0)) (\(m.path(m.objects[$0].file)))" }
            .joined(separator: ", ") + (builders.count > 2 ? " and \(builders.count - 2) more" : "")
        let dropped = "kustomize-controller drops the field \"\(field.value)\", which kustomize does not know"
        if let refusal {
            let kept = refusal.contains("; ") ? "kind and apiVersion" : refusal.hasPrefix("kind") ? "kind" : "apiVersion"
            return c.finding("kustomize refuses this kustomization (\(refusal)): \(dropped), but not the file's \(kept), \(consequence)\(hint)",
                             file: f, span: field.span, object: nil, environment: nil)
        }
        let kubectl = " (kustomize itself refuses the file: 'invalid Kustomization: json: unknown field \"\(field.value)\"', as "
            + "`kubectl kustomize \(dir.isEmpty ? "." : dir)` says)"
        guard m.files[f].kustomizationMakesResources else {
            return c.finding("\(dropped): it builds the kustomization at the path of \(named) without it, and nothing else gives that "
                             + "build resources, so it applies nothing (with prune, it deletes what it applied)\(kubectl)\(hint)",
                             file: f, span: field.span, object: nil, environment: nil)
        }
        var f = c.finding("\(dropped): it builds the kustomization at the path of \(named) without it, so the field does nothing under "
                          + "Flux\(kubectl)\(hint)", file: f, span: field.span, object: nil, environment: nil)
        f.ruleSeverity = .warning
        return f
    }

    /// Whether a build that fails, found in `file`, is judged, and on what premise: where its kustomization (or the
    /// Flux Kustomization that generates it), `builder`, stands, which need not be where the file does (a cluster's build
    /// takes the file, not the kustomization that fails); where the file itself is not applied, its own premise says so.
    enum BuildReach { case judged(premise: String?), notDeployed }
    static func buildReach(_ m: Model, file: FileID, builder: FileID) -> BuildReach {
        guard m.clusters.reach[file] == .applied else { return .judged(premise: nil) }
        switch m.clusters.reach[builder] {
        case .applied: return .judged(premise: nil)
        case .unreached: return .judged(premise: "no cluster in this repository applies \(m.path(builder))")
        case .assumed(let p): return .judged(premise: p)
        case .notDeployed: return .notDeployed
        }
    }

    /// Two resources of one kind, namespace and name (as written) that one kustomize build accumulates side by side
    /// (`Model.sideBySideBuilds(of:)`): kustomize refuses the build ("may not add resource with an already registered
    /// id"), whatever the values.
    static func duplicateIDs(_ c: RuleContext, consequence: (Model.SideBySideBuild) -> String) -> [Finding] {
        let m = c.model
        var out: [Finding] = []
        for (pair, taken) in m.duplicateIDs.pairs {
            let (i, j, given) = taken.min { m.objects[$0.object].kindSpan.start.offset < m.objects[$1.object].kindSpan.start.offset }!
            let o = m.objects[i], other = m.objects[j], by = pair.build
            let built = by.generatedAt.map { "the kustomization Flux generates at ./\($0) for the Flux Kustomization in \(m.path(by.file))" }
                ?? "the kustomization \(m.path(by.file))"
            let more = taken.count > 1 ? ", and \(taken.count - 1) more of this file's resources that file holds too" : ""
            guard case .judged(let premise) = buildReach(m, file: o.file, builder: by.file) else { continue }
            // as the builds below give it to this one: a Namespace named, anything else put in a namespace
            let identity = o.kind == "Namespace" ? given ?? o.name ?? ""
                : (given ?? o.declaredNamespace).map { $0 + "/" + (o.name ?? "") } ?? o.name ?? ""
            let through = m.duplicateIDs.throughTwo[pair].map { a, b in
                "\(built) takes \(o.kind) \(identity) twice, through ./\(a) and through ./\(b), which both lead to this file"
                    + (taken.count > 1 ? ", and \(taken.count - 1) more of its resources" : "") + " (may not add resource with an already registered id)"
            }
            let twice = through ?? (by.afterNamespace
                ? "\(built)'s namespace: makes \(o.kind) \(identity) of two resources, here and in \(m.path(other.file)):\(other.kindSpan.start.line)"
                    + "\(more) (namespace transformation produces ID conflict)"
                : "\(built) takes \(o.kind) \(identity) twice, here and in \(m.path(other.file)):\(other.kindSpan.start.line)\(more) (may not "
                    + "add resource with an already registered id)")
            var f = c.finding("kustomize refuses the build: \(twice), \(consequence(by))",
                              file: o.file, span: o.kindSpan, object: i, environment: nil)
            if let premise { f.assume(premise) }
            out.append(f)
        }
        return out
    }
}
