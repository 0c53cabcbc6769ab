// libFuzzer's entry for scripts/fuzz: one reader of untrusted text per run, as FUZZ_TARGET names it, with the properties
// it must keep. A trap, a sanitizer report or a broken property (`require`) is a crash libFuzzer keeps.
//
// Built only by scripts/fuzz (TAGWARDEN_FUZZ=1 adds this target to the package): `swift build` never sees it.
#if canImport(Glibc)
import Glibc
#endif
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenHTTP
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenUpdate
@testable import TagwardenGit

/// A broken property: printed, then a trap for libFuzzer to keep the input.
func require(_ holds: @autoclosure () -> Bool, _ what: @autoclosure () -> String) {
    if !holds() {
        say("fuzz: property broken: \(what())")
        abort()
    }
}

/// A line on standard error.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The input cut at its first NUL byte: two texts for targets that read two things (a pattern and a subject).
func halves(_ bytes: [UInt8]) -> ([UInt8], [UInt8]) {
    guard let nul = bytes.firstIndex(of: 0) else { return (bytes, []) }
    return (Array(bytes[..<nul]), Array(bytes[(nul + 1)...]))
}

let targets: [String: @Sendable ([UInt8]) -> Void] = [
    "yaml": fuzzYAML, "edit": fuzzEdit, "image-reference": fuzzImageReference, "marker": fuzzMarker, "regex": fuzzRegex,
    "semver": fuzzSemver, "template": fuzzTemplate, "config": fuzzConfig, "kustomize": fuzzKustomize, "tags-file": fuzzTagsFile,
    "challenge": fuzzChallenge, "link": fuzzLink, "retry-after": fuzzRetryAfter, "tag-list": fuzzTagList, "manifest": fuzzManifest,
    "docker-config": fuzzDockerConfig, "git-index": fuzzGitIndex,
]

let chosen: @Sendable ([UInt8]) -> Void = {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let run = targets[name] else {
        say("FUZZ_TARGET must be one of: \(targets.keys.sorted().joined(separator: ", "))")
        exit(2)
    }
    return run
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    chosen(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

// MARK: YAML and edits

/// A file parsed into again and again, as an extraction worker's scratch is: its libyaml parser is reset between
/// inputs, not made afresh (libFuzzer runs one input at a time).
nonisolated(unsafe) var reusedYAML = YAMLFile()

/// Every node and document lies inside the file, in order, with lines and columns that count from 1; every value,
/// tag and comment reads without a trap, and a compacted copy reads the same; a parse into a value that parsed the
/// inputs before builds the same tree and error.
func fuzzYAML(_ bytes: [UInt8]) {
    let y = YAMLFile(parsing: bytes)
    reusedYAML.reparse(bytes)
    require(reusedYAML.nodes.count == y.nodes.count && reusedYAML.documents.count == y.documents.count
            && reusedYAML.error?.message == y.error?.message && reusedYAML.error?.position.offset == y.error?.position.offset
            && y.nodes.indices.allSatisfy { reusedYAML.nodes[$0].span == y.nodes[$0].span && reusedYAML.value($0) == y.value($0)
                && reusedYAML.tag($0) == y.tag($0) },
            "a parse with the reused parser differs from a fresh one")
    func inside(_ s: SourceSpan) -> Bool {
        0 <= s.start.offset && s.start.offset <= s.end.offset && s.end.offset <= bytes.count && s.start.line >= 1 && s.start.column >= 1
            && s.end.line >= s.start.line
    }
    for d in y.documents { require(inside(d.span) && d.root < y.nodes.count, "document \(d.span) of \(bytes.count) bytes") }
    let compact = y.compacted()
    for n in y.nodes.indices {
        require(inside(y.nodes[n].span), "node \(n) spans \(y.nodes[n].span) in \(bytes.count) bytes")
        require(y.value(n) == compact.value(n) && y.tag(n) == compact.tag(n), "node \(n) reads differently compacted")
        _ = y.comment(n)
        _ = y.resolved(n)
        if y.nodes[n].kind == .mapping { _ = y.pairs(n) }
        for c in y.childNodes(n) { require(c > n && c < y.nodes.count && y.nodes[c].parent == n, "child \(c) of node \(n)") }
    }
    if let e = y.error { require(e.position.offset <= bytes.count && e.position.line >= 1, "error at \(e.position)") }
}

/// Plain scalars replaced by one word through `Edit`: the result parses to the same tree, where only the edited
/// scalars' values changed.
func fuzzEdit(_ bytes: [UInt8]) {
    let y = YAMLFile(parsing: bytes)
    guard y.error == nil, y.goRefusals.isEmpty else { return }
    let word = "edited"
    // every third plain scalar that is neither empty nor a key: enough to cover neighbours and lone edits
    let plain = y.nodes.indices.filter { y.nodes[$0].kind == .scalar && y.nodes[$0].style == .plain && !y.nodes[$0].isKey
        && y.nodes[$0].span.start.offset < y.nodes[$0].span.end.offset }
    let edited = Set(plain.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
    guard !edited.isEmpty else { return }
    // with a blank where the value follows a property directly (`&a:b`), as the update's setters write it
    let edits = edited.map { Edit(span: y.nodes[$0].span, replacement: Setters.separated(word, at: y.nodes[$0].span, in: bytes)) }
    let result: [UInt8]
    do { result = try Edit.apply(edits, to: bytes) } catch { require(false, "edits of distinct scalars refused: \(error)"); return }
    let after = YAMLFile(parsing: result)
    require(after.error == nil, "the edited file does not parse: \(after.error!.message)")
    require(after.nodes.count == y.nodes.count && after.documents.count == y.documents.count, "the edited file has another tree")
    for n in y.nodes.indices {
        require(after.nodes[n].kind == y.nodes[n].kind && after.nodes[n].childCount == y.nodes[n].childCount, "node \(n) changed kind")
        guard y.nodes[n].kind == .scalar else { continue }
        require(after.value(n) == (edited.contains(n) ? word : y.value(n)), "node \(n): '\(y.value(n))' became '\(after.value(n))'")
    }
}

// MARK: references, markers, regular expressions, semver

/// A reference that parses renders to text that parses to the same reference.
func fuzzImageReference(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard case .success(let r) = ImageReference.parse(text) else { return }
    require(ImageReference.parse(r.description) == .success(r), "'\(text)' → '\(r.description)' reads differently")
    require(r.description == text, "'\(text)' renders as '\(r.description)'")
    _ = r.normalizedName
}

/// A marker is a policy or a problem, never both; a policy names a namespace and a name.
func fuzzMarker(_ bytes: [UInt8]) {
    let (policy, problem) = Marker.parse(String(decoding: bytes, as: UTF8.self))
    require(policy == nil || problem == nil, "a marker both read and refused")
    if let policy { require(!policy.namespace.isEmpty && !policy.name.isEmpty, "marker policy '\(policy.value)'") }
}

/// A pattern, NUL, a subject: a pattern that compiles matches the subject in its bounds, with groups inside the match,
/// and the backtracker, where it is used (short ASCII subjects), agrees with the Pike VM.
func fuzzRegex(_ bytes: [UInt8]) {
    let (pattern, subject) = halves(bytes)
    guard let re = try? GoRegex(String(decoding: pattern, as: UTF8.self)) else { return }
    _ = re.group(1)
    subject.withUnsafeBufferPointer { b in
        let match = re.firstMatch(bytes: b)
        if let match, let whole = match.first ?? nil {
            require(whole.lowerBound >= 0 && whole.upperBound <= b.count, "match \(whole) of \(b.count) bytes")
            for g in match.dropFirst() { if let g { require(g.lowerBound >= 0 && g.upperBound <= b.count, "group \(g)") } }
        }
        var steps = 0
        if Backtracker.fits(re.program, length: b.count), b.allSatisfy({ $0 < 0x80 }) {   // the backtracker reads ASCII only
            let pike = PikeVM(prog: re.program).pikeOnly(b), back = Backtracker(prog: re.program).run(b, steps: &steps)
            require(pike == back, "engines disagree: Pike VM \(String(describing: pike)), backtracker \(String(describing: back))")
        }
    }
}

/// A version, NUL, a constraint: a version that parses equals itself and orders consistently against the other half;
/// a constraint that parses is checked without a trap.
func fuzzSemver(_ bytes: [UInt8]) {
    let (first, second) = halves(bytes)
    let a = String(decoding: first, as: UTF8.self), b = String(decoding: second, as: UTF8.self)
    let v = SemVersion.parse(a), w = SemVersion.parse(b)
    if let v { require(v.compare(v) == 0, "'\(a)' is not equal to itself") }
    if let v, let w { require(v.compare(w) == -w.compare(v), "'\(a)' and '\(b)' order both ways") }
    _ = SemVersion.parseStrict(a)
    _ = SemVersion.parseTag(a, flux: .current)
    if let c = try? SemverConstraint(b), let v { _ = c.check(v) }
}

// MARK: templates, config, tags file, a repository

/// A commit message template parsed and run on Flux's data: an error or a message inside the output bound.
func fuzzTemplate(_ bytes: [UInt8]) {
    let change = SetterChange(file: "apps/web.yaml", line: 9, column: 16,
                              object: ObjectIdentity(apiVersion: "apps/v1", kind: "Deployment", namespace: "apps", name: "web"),
                              setter: "flux-system:web", oldValue: "ghcr.io/acme/web:1.0.0", newValue: "ghcr.io/acme/web:1.0.1")
    let data = CommitMessage.data(namespace: "flux-system", name: "apps", roots: ["apps"], changes: [change], values: ["web": "1.0.1"])
    guard let message = try? CommitMessage.render(String(decoding: bytes, as: UTF8.self), data: data) else { return }
    require(message.utf8.count <= 1 << 20, "a message of \(message.utf8.count) bytes")
}

/// The config reader: a config or an error that names the file.
func fuzzConfig(_ bytes: [UInt8]) {
    do { _ = try Config.parse(bytes, path: ".tagwarden.yaml", knownRules: Catalogue.ids) } catch {
        require("\(error)".contains(".tagwarden.yaml"), "an error that names no file: \(error)")
    }
}

/// The tags file reader: tags or an error that names the file.
func fuzzTagsFile(_ bytes: [UInt8]) {
    do { _ = try TagFile.parse(bytes, path: "tags.yaml") } catch { require("\(error)".contains("tags.yaml"), "an error that names no file: \(error)") }
}

/// A kustomization, NUL, a patch, NUL, a deployment: the whole audit of that repository (kustomize's patch reader,
/// the Model, every rule), each finding inside its file (as UTF-8).
func fuzzKustomize(_ bytes: [UInt8]) {
    let (kustomization, rest) = halves(bytes)
    let (patch, deployment) = halves(rest)
    let files = ["kustomization.yaml": kustomization, "patch.yaml": patch, "deploy.yaml": deployment]
    var snapshot = SourceSnapshot(kind: .worktree, root: "/fuzz", rev: nil,
                                  files: files.keys.sorted().map { SourceFile(path: $0, bytes: files[$0]!) }, skipped: [])
    snapshot.reader = TreeReader { path in files[path].map { .success($0) } }
    var config = Config()
    config.clusters = [ClusterConfig(name: "fuzz", paths: ["**"], origin: ".tagwarden.yaml:1")]
    guard let report = try? Linter.audit(AuditRequest(snapshot: snapshot, config: config), evidence: { model in
        try History.stagingEvidence(repo: nil, tip: nil, model: model)
    }) else { return }
    for f in report.findings {
        // a file in UTF-16 or UTF-32 is read, and its findings placed, as its UTF-8 text
        guard let written = files[f.file] else { continue }
        let file = (try? SourceText.utf8(fromBOMEncoded: written)?.get()) ?? written
        require(f.span.start.offset <= f.span.end.offset && f.span.end.offset <= file.count && f.span.start.line >= 1,
                "\(f.rule) at \(f.file) \(f.span) of \(file.count) bytes")
    }
}

// MARK: registry answers

func fuzzChallenge(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let (scheme, parameters) = RegistryAnswers.challenge(text)
    require(!scheme.contains(" ") && parameters.count <= text.utf8.count, "challenge '\(scheme)' with \(parameters.count) parameters")
}

/// A next page is an absolute http(s) address on the origin's scheme, host and port, or none.
func fuzzLink(_ bytes: [UInt8]) {
    if let next = RegistryAnswers.nextLink(String(decoding: bytes, as: UTF8.self), origin: "https://registry.example:443") {
        require(next.hasPrefix("http://") || next.hasPrefix("https://"), "next page '\(next)'")
    }
}

func fuzzRetryAfter(_ bytes: [UInt8]) {
    if let seconds = RegistryAnswers.retryAfter(String(decoding: bytes, as: UTF8.self)) {
        require(seconds.isFinite && seconds >= 0, "Retry-After of \(seconds) s")
    }
}

func fuzzTagList(_ bytes: [UInt8]) {
    if let tags = try? RegistryAnswers.tagList(bytes) { require(tags.count <= bytes.count, "\(tags.count) tags in \(bytes.count) bytes") }
}

func fuzzManifest(_ bytes: [UInt8]) {
    if let digests = RegistryAnswers.manifestDigests(bytes) { require(digests.count <= bytes.count, "\(digests.count) digests") }
}

/// docker's config.json: credentials or an error, never a trap (a helper is never run here).
func fuzzDockerConfig(_ bytes: [UInt8]) {
    _ = try? DockerCredentials.parse(bytes, file: "config.json")
}

// MARK: the git index

/// A git index read directly: as many paths as its header counts, none empty or holding a NUL; or nil, for libgit2.
func fuzzGitIndex(_ bytes: [UInt8]) {
    guard let paths = IndexFile.paths(bytes) else { return }
    let counted = Int(bytes[8]) << 24 | Int(bytes[9]) << 16 | Int(bytes[10]) << 8 | Int(bytes[11])
    require(paths.count == counted, "\(paths.count) paths where the header counts \(counted)")
    for p in paths { require(!p.isEmpty && !p.utf8.contains(0), "path '\(p)'") }
}
