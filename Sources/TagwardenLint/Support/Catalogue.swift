import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
/// The rule catalogue: `rules/<id>.yaml`, embedded in the binary by `scripts/gen-catalogue`.
public struct RuleExample: Sendable {
    public struct Expected: Sendable, Equatable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var column: Int
        /// The finding's message, when the example states it.
        public var message: String?
        public var description: String { "\(file):\(line):\(column)" + (message.map { " \($0)" } ?? "") }
    }
    public var description: String?
    public var config: String?
    /// For `config-weakened`: the base side's config, against which `config` (the head's) is judged.
    public var baseConfig: String?
    public var profile: String?
    public var files: [(path: String, content: String)]
    public var expect: [Expected]
    /// For the registry rules: what the registry holds, as a tag file (`update --tags`) gives it.
    public var tags: String?
}

public struct RuleInfo: Sendable {
    public var id: String
    public var severity: Severity
    public var summary: String
    public var rationale: String
    /// What a finding rests on, and which of it may be an assumption (which then caps the finding at a warning).
    public var premises: String?
    public var fix: String
    public var triggering: [RuleExample]
    public var nonTriggering: [RuleExample]
}

public enum Catalogue {
    /// All rules, sorted by id. A malformed embedded file is a build mistake that the test suite catches;
    /// at run time it is left out rather than crashing the tool.
    public static let rules: [RuleInfo] = embedded.compactMap { try? parse($0.text, name: $0.name) }.sorted { $0.id < $1.id }

    /// Each rule's default severity by id, read from the `id:` and `severity:` lines that open every rule file (the
    /// test suite checks they agree with the parsed catalogue): every run needs these, and only `rules`, `explain`
    /// and SARIF reports need the whole catalogue parsed.
    public static let severities: [String: Severity] = {
        var out: [String: Severity] = [:]
        for e in embedded {
            var id: String?, severity: Severity?
            var utf8 = e.text.utf8[...]
            while id == nil || severity == nil, let end = utf8.firstIndex(of: 10) {
                let line = String(Substring(utf8[..<end]))
                utf8 = utf8[utf8.index(after: end)...]
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("severity: ") { severity = Severity(rawValue: String(line.dropFirst(10))) }
            }
            if let id, let severity { out[id] = severity }
        }
        return out
    }()

    public static let ids: Set<String> = Set(severities.keys)

    public static func info(_ id: String) -> RuleInfo? {
        rules.first { $0.id == id }
    }

    public static func parse(_ text: String, name: String) throws -> RuleInfo {
        let y = YAMLFile(parsing: Array(text.utf8))
        func fail(_ m: String) -> TagwardenError { TagwardenError("rules/\(name): \(m)") }
        if let e = y.error { throw fail("line \(e.position.line): \(e.message)") }
        guard let root = y.documents.first?.root, y.nodes[root].kind == .mapping else { throw fail("not a mapping") }
        func req(_ key: StaticString) throws -> String {
            guard let s = y.string(root, key), !s.isEmpty else { throw fail("missing '\(key)'") }
            return s.hasSuffix("\n") ? String(s.dropLast()) : s
        }
        let id = try req("id")
        guard let sev = Severity(rawValue: try req("severity")) else { throw fail("severity must be error, warning or note") }
        func examples(_ key: StaticString) throws -> [RuleExample] {
            guard let list = y.get(root, key) else { return [] }
            return try y.childNodes(list).map { ex in
                var files: [(String, String)] = []
                if let f = y.get(ex, "files") {
                    for (k, v) in y.pairs(f) { files.append((y.value(k), y.value(v))) }
                }
                var expect: [RuleExample.Expected] = []
                if let e = y.get(ex, "expect") {
                    for item in y.childNodes(e) {
                        guard let file = y.string(item, "file"), let line = y.string(item, "line").flatMap({ Int($0) }),
                              let col = y.string(item, "column").flatMap({ Int($0) }) else {
                            throw fail("each expect entry needs file, line and column")
                        }
                        expect.append(.init(file: file, line: line, column: col, message: y.string(item, "message")))
                    }
                }
                let baseConfig = y.string(ex, "baseConfig")
                if files.isEmpty && baseConfig == nil { throw fail("an example without files") }
                return RuleExample(description: y.string(ex, "description"), config: y.string(ex, "config"), baseConfig: baseConfig,
                                   profile: y.string(ex, "profile"), files: files, expect: expect, tags: y.string(ex, "tags"))
            }
        }
        let premises = y.string(root, "premises").map { $0.hasSuffix("\n") ? String($0.dropLast()) : $0 }
        let info = RuleInfo(id: id, severity: sev, summary: try req("summary"), rationale: try req("rationale"), premises: premises, fix: try req("fix"),
                            triggering: try examples("triggering"), nonTriggering: try examples("nonTriggering"))
        if info.triggering.contains(where: { $0.expect.isEmpty }) { throw fail("a triggering example without expect") }
        return info
    }
}
