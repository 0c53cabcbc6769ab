import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

/// Every rule's examples are tests: triggering examples produce exactly the expected findings of that
/// rule (file, line, column); non-triggering ones produce none.
@Suite struct CatalogueTests {
    static func run(_ ex: RuleExample) throws -> [Finding] {
        var config = Config()
        if let c = ex.config {
            config = try Config.parse(Array(c.utf8), path: ".tagwarden.yaml", knownRules: Catalogue.ids)
        }
        if let b = ex.baseConfig {
            let base = try Config.parse(Array(b.utf8), path: ".tagwarden.yaml", knownRules: Catalogue.ids)
            return ConfigChange.findings(base: base, head: config, path: ".tagwarden.yaml", headBytes: ex.config.map { Array($0.utf8) })
        }
        let files = ex.files.map { SourceFile(path: $0.path, bytes: Array($0.content.utf8)) }
        let snap = SourceSnapshot(kind: .directory, root: "/example", rev: nil, files: files, skipped: [])
        return try Linter.audit(AuditRequest(snapshot: snap, config: config, profile: ex.profile)) { model in
            try History.stagingEvidence(repo: nil, tip: nil, model: model)
        }.findings
    }

    @Test func everyEmbeddedFileParses() throws {
        #expect(Catalogue.embedded.count == Catalogue.rules.count)
        #expect(Catalogue.severities == Dictionary(uniqueKeysWithValues: Catalogue.rules.map { ($0.id, $0.severity) }))
        for e in Catalogue.embedded { _ = try Catalogue.parse(e.text, name: e.name) }
    }

    @Test func embeddedCatalogueMatchesRulesDirectory() throws {
        let dir = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let listing = try listDirectory("/" + dir + "/rules").filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(listing == Catalogue.embedded.map(\.name).sorted(), "run scripts/gen-catalogue")
        for e in Catalogue.embedded {
            let onDisk = try readText("/" + dir + "/rules/" + e.name)
            #expect(onDisk.trimmingTrailingNewlines == e.text.trimmingTrailingNewlines, "rules/\(e.name) changed: run scripts/gen-catalogue")
        }
    }

    @Test func embeddedHookMatchesHooksDirectory() throws {
        let dir = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let onDisk = try readText("/" + dir + "/hooks/pre-commit")
        #expect(onDisk.trimmingTrailingNewlines == Catalogue.preCommitHook.trimmingTrailingNewlines, "run scripts/gen-catalogue")
    }

    @Test func everyRuleHasExamplesOfBothKinds() {
        for r in Catalogue.rules {
            #expect(!r.triggering.isEmpty, "\(r.id) has no triggering example")
            #expect(!r.nonTriggering.isEmpty, "\(r.id) has no non-triggering example")
        }
    }

    @Test func everyRuleInCodeIsInTheCatalogue() {
        for r in Rule.all { #expect(Catalogue.info(r.id) != nil, "\(r.id) missing from rules/") }
    }

    @Test(arguments: Catalogue.rules.map(\.id))
    func examples(_ id: String) throws {
        let info = try #require(Catalogue.info(id))
        for ex in info.triggering {
            let got = try Self.run(ex).filter { $0.rule == id }
                .map { RuleExample.Expected(file: $0.file, line: $0.span.start.line, column: $0.span.start.column) }
            #expect(got == ex.expect, "\(id): \(ex.description ?? "triggering example")")
        }
        for ex in info.nonTriggering {
            let got = try Self.run(ex).filter { $0.rule == id }
            #expect(got.isEmpty, "\(id) fired on '\(ex.description ?? "non-triggering example")': \(got.map(\.message))")
        }
    }
}
