import TagwardenBasics
import TagwardenYAML

extension Model {
    /// The Model of a snapshot, as every command reads it: the config's `ignore` and a chart's templates left out, files
    /// in other encodings converted, ytt templates and binary files skipped (said in `skipped`), the input budget
    /// (`maxInputSize`) kept; then, when the builds name files the listing passed over (`app.json`), those read too
    /// and the model made again. `evidence`: what staging ran, for the model the run keeps. `sharing`: the facts of
    /// another audit's files, to take or to offer (a check's two trees).
    public static func load(_ snapshot: SourceSnapshot, config: Config, profile: String?, sharing: SharedExtraction.Role? = nil,
                            evidence: (Model) throws -> PromotionEvidence? = { _ in nil }) rethrows -> Model {
        let ignore = config.ignore.map(Glob.init)
        func ignored(_ path: String) -> Bool { config.relative(path).map { rel in ignore.contains { $0.matches(rel) } } ?? false }
        var skipped = snapshot.skipped
        var files: [SourceFile] = []
        files.reserveCapacity(snapshot.files.count)
        // a Helm chart's templates are Go templates that render to YAML, not YAML: one note per chart
        let charts = Model.chartDirectories(snapshot.files.map(\.path))
        var templates = [Int](repeating: 0, count: charts.count)
        var policyCharts = Set<Int>()   // charts whose templates make ImagePolicies
        // what the run parses in all: each byte of YAML costs some fifteen in the model
        let inputBudget = config.maxInputSize ?? Config.defaultMaxInputSize
        var input = 0
        /// Takes a file into the model's input: ignored, chart templates, other encodings and binary content first.
        func admit(_ f: SourceFile) {
            if ignored(f.path) { return }
            if !charts.isEmpty, let c = charts.firstIndex(where: { f.path.hasPrefix($0 + "templates/") }) {
                templates[c] += 1
                if SourceText.contains("ImagePolicy", in: f.bytes[...]) { policyCharts.insert(c) }
                return
            }
            var f = f
            switch SourceText.utf8(fromBOMEncoded: f.bytes) {
            case .success(let utf8)?:
                f.bytes = utf8
                // kustomize (and Flux's automation, through kyaml) splits documents at `---` lines before it decodes the
                // file, so it finds none, and decodes one: the first
                if let cut = SourceText.firstDocumentEnd(utf8) {
                    f.bytes = Array(utf8[..<cut])
                    skipped.append(SkippedFile(path: f.path, reason: "its documents after the first (from line \(SourceText.position(utf8, offset: cut).line)) are not read: "
                        + "kustomize splits a file's documents before it decodes a UTF-16 or UTF-32 file, so it reads only the first, and so does Flux; "
                        + "save the file as UTF-8", severity: .warning))
                }
            case .failure(let e)?:
                // kustomize would refuse it too, but a file that cannot be read is never passed over in silence
                skipped.append(SkippedFile(path: f.path, reason: "cannot be read: it starts with a \(e.encoding) byte order mark but is not "
                                           + "valid \(e.encoding) at byte \(e.offset)", severity: .error))
                return
            case nil:
                break
            }
            // a Carvel ytt template (`#@ def`, `#@ load`, `#@data/values` …) is rendered to YAML by ytt; as YAML it is
            // fragments that nothing applies. Flux reads it only for its markers, so one with a marker is read.
            if isYttTemplate(f.bytes), !SourceText.contains("$imagepolicy", in: f.bytes) {
                skipped.append(SkippedFile(path: f.path, reason: "a Carvel ytt template (#@ lines): ytt renders it to YAML, so it is not linted as YAML"))
                return
            }
            if let nul = SourceText.firstNUL(f.bytes) {
                skipped.append(SkippedFile(path: f.path, reason: "binary content (a NUL byte at offset \(nul))"))
                return
            }
            guard input + f.bytes.count <= inputBudget else {
                skipped.append(SkippedFile(path: f.path, reason: "the run's input budget (maxInputSize, \(ByteCount.formatSize(inputBudget))) is spent: "
                                           + "not read; raise maxInputSize in .tagwarden.yaml, or ignore generated files", severity: .error))
                return
            }
            input += f.bytes.count
            files.append(f)
        }
        for f in snapshot.files { admit(f) }
        // the root `.sourceignore`: what source-controller leaves out of the artifact
        var sourceIgnore: String?
        if case .success(let bytes)? = snapshot.reader?.read(".sourceignore") { sourceIgnore = String(decoding: bytes, as: UTF8.self) }
        // a `.sourceignore` below the root, read where a finding needs it
        let reader = snapshot.reader
        func readIgnoreFile(_ path: String) -> String? {
            if case .success(let bytes)? = reader?.read(path) { String(decoding: bytes, as: UTF8.self) } else { nil }
        }
        func build(evidence: (Model) throws -> PromotionEvidence?) throws -> Model {
            var notRead = skipped
            for (c, n) in zip(charts, templates) where n > 0 {
                var templates = SkippedFile(path: c + "Chart.yaml", reason: "the chart's templates (\(n) file\(n == 1 ? "" : "s") under \(c)templates/) "
                    + "are Helm templates, not YAML: not linted")
                templates.files = n
                notRead.append(templates)
            }
            notRead.removeAll { ignored($0.path) }
            return try Model.build(files, config: config, profile: profile, remoteURLs: snapshot.remoteURLs, checkout: snapshot.checkout,
                                   policyCharts: policyCharts.sorted().map { charts[$0].isEmpty ? "." : String(charts[$0].dropLast()) },
                                   skipped: notRead, sourceIgnore: sourceIgnore, readIgnoreFile: readIgnoreFile, holdsFiles: reader?.holdsFiles,
                                   sharing: sharing, evidence: evidence)
        }
        // staging's history is read for the model the run keeps: this one, unless its builds name files the listing
        // passed over, which join the input and make the model again
        let hasReader = snapshot.reader != nil
        var model = try build { m in hasReader && !m.unlistedResources.isEmpty ? nil : try evidence(m) }
        // kustomize reads every file a build names as YAML, whatever its name (`app.json`, `app.txt`): such files,
        // which the listing passed over, join the input, and the model is built again (only then)
        if let reader = snapshot.reader {
            let named = model.unlistedResources
            if !named.isEmpty {
                for path in named {
                    if let i = files.firstIndex(where: { $0.path == path }) {
                        files[i].namedByBuild = true   // listed for its markers only (`app.yaml.tpl`): a manifest now
                        continue
                    }
                    switch reader.read(path) {
                    case .success(let bytes)?: admit(SourceFile(path: path, bytes: bytes, namedByBuild: true))
                    case .failure(let e)?: skipped.append(SkippedFile(path: path, reason: e.message, severity: .error, damaged: e.isDamage))
                    case nil: break
                    }
                }
                model = try build(evidence: evidence)
            }
        }
        return model
    }

    /// Whether a file holds ytt's annotations: a line that starts (after its indentation) with `#@` and a letter, a
    /// blank or `(` (`#@ def alertmanager():`, `#@data/values`), which no plain YAML comment is written as.
    public static func isYttTemplate(_ bytes: [UInt8]) -> Bool {
        // each `#@` found with memchr, then its line looked at backwards (a byte-by-byte scan of every file cost the
        // fleet's audit 56 M instructions)
        bytes.withUnsafeBytes { hay in
            ("#@" as StaticString).withUTF8Buffer { needle in
                var from = 0
                while let at = SourceText.find(hay, UnsafeRawBufferPointer(needle), from: from) {
                    from = at + 1
                    guard at + 2 < hay.count else { return false }
                    let c = hay[at + 2]
                    guard c == 32 || c == UInt8(ascii: "(") || (c >= 97 && c <= 122) else { continue }
                    var before = at - 1
                    while before >= 0, hay[before] == 32 || hay[before] == 9 { before -= 1 }
                    if before < 0 || hay[before] == 10 { return true }
                }
                return false
            }
        }
    }
}
