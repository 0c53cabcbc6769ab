import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport
@testable import TagwardenUpdate

/// Every rule's examples are tests: triggering examples produce exactly the expected findings of that
/// rule (file, line, column, and the message where the example gives it); non-triggering ones produce none. The
/// catalogue, the rules declared in code, their registration and docs/rules.md agree.
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
        // the registry rules read what the example's tags say the registry holds
        let tags = try ex.tags.map { try TagFile.parse(Array($0.utf8), path: "tags") }
        func audit(_ config: Config) throws -> AuditReport {
            try Linter.audit(AuditRequest(snapshot: snap, config: config, profile: ex.profile), evidence: { model in
                try History.stagingEvidence(repo: nil, tip: nil, model: model)
            }, registry: { model in tags.map { RegistryAudit.facts(model, tags: $0) } })
        }
        // an example shows a rule on files that are applied: where they describe no cluster, each finding says that none
        // applies the file (TruthRuleTests holds that), which the example's message leaves out
        let premise = " (\(Clusters.unreachedPremise))"
        return try audit(config).findings.map { f in
            var f = f
            if f.message.hasSuffix(premise) { f.message.removeLast(premise.count) }
            return f
        }
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

    static let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

    /// `config-weakened` judges two configs (the base branch's and the pull request's) in `check --base`, not a Model.
    static let judgedOutsideTheModel: Set<String> = [ConfigChange.ruleID]

    @Test func everyRuleStatesItsPremises() {
        // what a finding rests on, and which of it may be an assumption that caps it at a warning
        #expect(Catalogue.rules.filter { ($0.premises ?? "").isEmpty }.map(\.id) == [])
    }

    @Test func everyRuleInCodeIsInTheCatalogueAndEveryOtherWay() {
        let inCode = Rule.all.map(\.id)
        #expect(Set(inCode).count == inCode.count, "a rule id is declared twice")
        for id in inCode { #expect(Catalogue.info(id) != nil, "\(id) missing from rules/") }
        for r in Catalogue.rules where !Self.judgedOutsideTheModel.contains(r.id) {
            #expect(inCode.contains(r.id), "rules/\(r.id).yaml has no Rule(\"\(r.id)\") under Sources/TagwardenLint/Rules")
        }
        // (the rules the linter starts first are rules: a misspelt one would be started in its place silently)
        #expect(Linter.heavyFirst.keys.filter { !inCode.contains($0) } == [])
    }

    @Test func registrationIsGeneratedFromTheRuleFiles() throws {
        var declared: [String] = []
        let dir = Self.root + "/Sources/TagwardenLint/Rules"
        for name in try listDirectory(dir) where name.hasSuffix(".swift") {
            let text = try readText(dir + "/" + name)
            var rest = text[...]
            while let r = rest.range(of: " = Rule(\"") {
                let after = rest[r.upperBound...]
                declared.append(String(after.prefix { $0 != "\"" }))
                rest = after
            }
        }
        #expect(declared.sorted() == Rule.all.map(\.id), "run scripts/gen-catalogue")
    }

    @Test func docsRulesIsGeneratedFromTheCatalogue() throws {
        let onDisk = try readText(Self.root + "/docs/rules.md")
        #expect(onDisk == RuleDocs.markdown(Catalogue.rules), "docs/rules.md is stale: swift run tagwarden rules --format markdown > docs/rules.md")
    }

    @Test(arguments: Catalogue.rules.map(\.id))
    func examples(_ id: String) throws {
        let info = try #require(Catalogue.info(id))
        for ex in info.triggering {
            let found = try Self.run(ex).filter { $0.rule == id }
            // the message is compared where the example states it
            let got = zip(found, ex.expect.map(\.message) + Array(repeating: nil, count: max(0, found.count - ex.expect.count))).map { f, stated in
                RuleExample.Expected(file: f.file, line: f.span.start.line, column: f.span.start.column, message: stated == nil ? nil : f.message)
            }
            #expect(got == ex.expect, "\(id): \(ex.description ?? "triggering example")")
        }
        for ex in info.nonTriggering {
            let got = try Self.run(ex).filter { $0.rule == id }
            #expect(got.isEmpty, "\(id) fired on '\(ex.description ?? "non-triggering example")': \(got.map(\.message))")
        }
    }
}
