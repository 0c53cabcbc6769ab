import TagwardenBasics
import TagwardenYAML
import TagwardenModel
#if canImport(Glibc)
import Glibc
#endif

/// `.tagwarden-baseline.json`: the findings a repository had when it took tagwarden up, by fingerprint, reviewed and
/// committed like a lockfile. `audit` and `check` leave them out and report the rest; an entry that no finding matches
/// any more is a note, so that the file shrinks as the debt is paid. Fingerprints ignore line numbers and what a
/// message says about the rest of the repository (`Linter.assignFingerprints`), so an entry holds across unrelated edits.
public struct Baseline: Sendable {
    public static let fileName = ".tagwarden-baseline.json"

    /// One finding: its fingerprint (what matches), and for the reviewer its rule, file, object and a short text.
    public struct Entry: Sendable, Equatable {
        public var fingerprint: String
        public var rule: String
        public var file: String
        public var object: String?
        public var text: String
    }

    public var entries: [Entry]

    /// The baseline of `findings`, sorted by file, rule, object and fingerprint (the same findings give the same bytes).
    public init(findings: [Finding]) {
        entries = findings.map { f in
            let object = f.object.map { o in "\(o.kind) " + [o.namespace, o.name].compactMap { $0 }.joined(separator: "/") }
            let text = f.message.count > 120 ? String(f.message.prefix(119)) + "…" : f.message
            return Entry(fingerprint: f.fingerprint, rule: f.rule, file: f.file, object: object, text: text)
        }.sorted { a, b in
            if a.file != b.file { return SourceText.byteLess(a.file, b.file) }
            if a.rule != b.rule { return a.rule < b.rule }
            if a.object != b.object { return (a.object ?? "") < (b.object ?? "") }
            return a.fingerprint < b.fingerprint
        }
    }

    init(entries: [Entry]) { self.entries = entries }

    /// The file's text: version 1, the tool, and the entries.
    public func serialized() -> String {
        JSON.object([
            ("version", .int(1)), ("tool", .string("tagwarden")),
            ("findings", .array(entries.map { e in
                .object([("fingerprint", .string(e.fingerprint)), ("rule", .string(e.rule)), ("file", .string(e.file))]
                        + (e.object.map { [("object", JSON.string($0))] } ?? []) + [("text", .string(e.text))])
            })),
        ]).serialized(pretty: true) + "\n"
    }

    /// Reads a baseline file (`path` names it in errors).
    public static func parse(_ bytes: [UInt8], path: String) throws -> Baseline {
        let text = String(decoding: bytes, as: UTF8.self)
        let json: JSON
        do {
            json = try JSON.parse(text)
        } catch {
            let line = 1 + bytes.prefix(error.offset).filter { $0 == 10 }.count
            throw TagwardenError("\(path):\(line): not a baseline: \(error.message) (tagwarden baseline writes one)")
        }
        guard json["version"]?.doubleValue == 1, let list = json["findings"]?.arrayValue else {
            throw TagwardenError("\(path): not a baseline of version 1 with a findings list (tagwarden baseline writes one)")
        }
        let entries = try list.enumerated().map { k, e -> Entry in
            guard let fingerprint = e["fingerprint"]?.stringValue, let rule = e["rule"]?.stringValue, let file = e["file"]?.stringValue else {
                throw TagwardenError("\(path): finding \(k + 1) lacks its fingerprint, rule or file")
            }
            return Entry(fingerprint: fingerprint, rule: rule, file: file, object: e["object"]?.stringValue, text: e["text"]?.stringValue ?? "")
        }
        return Baseline(entries: entries)
    }

    /// `report` without the findings this baseline holds (matched by rule, file and fingerprint), counted; and the
    /// entries of files `inScope` that no finding matched.
    func apply(to report: AuditReport, inScope: (String) -> Bool) -> (report: AuditReport, hidden: Int, stale: [Entry]) {
        var known: [String: Int] = [:]
        for (k, e) in entries.enumerated() { known[e.rule + "\u{0}" + e.file + "\u{0}" + e.fingerprint] = k }
        var matched = Set<Int>()
        var out = report
        out.findings = report.findings.filter { f in
            guard let k = known[f.rule + "\u{0}" + f.file + "\u{0}" + f.fingerprint] else { return true }
            matched.insert(k)
            return false
        }
        out.summary.count(out.findings)
        let stale = entries.indices.filter { !matched.contains($0) && inScope(entries[$0].file) }.map { entries[$0] }
        return (out, report.findings.count - out.findings.count, stale)
    }

    /// What a run tells of the baseline `path`: how many findings it left out, and which of its entries match nothing.
    static func notes(path: String, hidden: Int, stale: [Entry]) -> [String] {
        var notes: [String] = []
        if hidden > 0 {
            notes.append("\(hidden) finding\(hidden == 1 ? " is" : "s are") in the baseline \(path) and not reported (--no-baseline reports them)")
        }
        if !stale.isEmpty {
            let named = stale.prefix(3).map { "\($0.rule) in \($0.file)" }.joined(separator: ", ") + (stale.count > 3 ? ", …" : "")
            notes.append("\(stale.count) entr\(stale.count == 1 ? "y" : "ies") of the baseline \(path) match\(stale.count == 1 ? "es" : "") no finding any more (\(named)): "
                         + "tagwarden baseline writes it again without \(stale.count == 1 ? "it" : "them")")
        }
        return notes
    }
}

/// Which baseline a run reads.
public enum BaselineChoice: Sendable, Equatable {
    case off
    /// A file the command line names, read from disk.
    case file(String)
    /// `.tagwarden-baseline.json` beside the config in force (else at the repository root), read from the tree the run
    /// lints: the work tree, the index (a commit carries its own), or a commit (a pull request's check reads the base's,
    /// so that a pull request cannot put its own findings in it).
    case beside
}

/// Where `BaselineChoice.beside` is read.
public enum BaselineTree: Sendable {
    case workTree, index
    case commit(String)
}

extension Workspace {
    /// The baseline path beside the config in force, relative to the repository root.
    public var baselinePath: String { config.baseDir.isEmpty ? Baseline.fileName : config.baseDir + "/" + Baseline.fileName }

    /// `report` without the findings of the baseline `choice` names, read from `tree`, and what to tell of it. Entries
    /// that match nothing are told only where `judgesStale` (an audit sees every file under its PATH; a check sees a
    /// change, and an entry it does not match is no sign that it is stale).
    public func leavingOutBaseline(_ report: AuditReport, _ choice: BaselineChoice, from tree: BaselineTree, prefix: String?,
                                   judgesStale: Bool) throws -> (report: AuditReport, notes: [String]) {
        guard let (path, baseline) = try baseline(choice, from: tree) else { return (report, []) }
        let (kept, hidden, stale) = baseline.apply(to: report, inScope: { judgesStale && Linter.isUnder($0, prefix: prefix) })
        return (kept, Baseline.notes(path: path, hidden: hidden, stale: stale))
    }

    /// The baseline `choice` names, as `tree` holds it, and how messages name it; nil when there is none.
    func baseline(_ choice: BaselineChoice, from tree: BaselineTree) throws -> (path: String, baseline: Baseline)? {
        let limit = 64 << 20
        switch choice {
        case .off:
            return nil
        case .file(let path):
            switch FileSystem.readFile(path, limit: limit) {
            case .success(let bytes): return (path, try Baseline.parse(bytes, path: path))
            case .failure(let e): throw TagwardenError("\(path): \(e.message)")
            }
        case .beside:
            let path = baselinePath
            var bytes: [UInt8]?
            switch tree {
            case .workTree:
                switch FileSystem.readFile(root + "/" + path, limit: limit) {
                case .success(let b): bytes = b
                case .failure(let e) where access(root + "/" + path, F_OK) == 0: throw TagwardenError("\(path): \(e.message)")
                case .failure: break
                }
            case .index:
                if let repo, let entry = try repo.indexBlobEntries(accept: { $0 == path }).first, case .bytes(let b) = repo.readBlob(entry.oid, limit: limit) {
                    bytes = b
                }
            case .commit(let rev):
                if let repo, let entry = repo.treeEntry(commit: try repo.resolveCommit(rev), path: path),
                   case .bytes(let b) = repo.readBlob(entry.oid, limit: limit) {
                    bytes = b
                }
            }
            guard let bytes else { return nil }
            return (path, try Baseline.parse(bytes, path: path))
        }
    }
}
