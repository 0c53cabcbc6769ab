import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

/// The run budgets that keep hostile input from taking the runner's time, at a scale a unit test affords.
@Suite struct BoundsTests {
    @Test func suggestionsStopWhenTheirBudgetIsSpent() {
        let budget = SuggestionBudget(25)
        let s = Suggester((0..<10).map { "app-\($0)" }, budget: budget)
        #expect(s.nearest("app-1x", within: 2) == "app-1")
        #expect(s.nearest("app-2x", within: 2) == "app-2")
        #expect(!budget.refused)
        #expect(s.nearest("app-3x", within: 2) == nil)   // 30 candidates looked at would pass 25
        #expect(budget.refused)
    }

    @Test func aRulesLanguageSearchesShareOneBudget() throws {
        // (a|b)*a(a|b){12} has exponentially many states: each search runs out of its own budget
        let hard = try GoRegex("^(a|b)*a(a|b){12}$")
        let cache = WitnessCache()
        var searches = 0
        while !cache.exhausted, searches < 1000 {
            _ = cache.search([.matching(hard), .any])
            searches += 1
        }
        #expect(cache.exhausted && searches < 1000)
        #expect(cache.search([.matching(hard), .any]) == .undecided)
        #expect(cache.refused == 1)
    }

    @Test func escapesWhatCouldDriveATerminalOrForgeALogLine() {
        #expect(Escape.text("a\n::error::x\u{1B}[2J\u{202E}\u{7}") == "a\\n::error::x\\e[2J\\u{202E}\\x07")
        #expect(Escape.lines("ok\n::error::x\n") == "ok\n\\::error::x\n")
        #expect(Escape.text("plain: ünïcode") == "plain: ünïcode")
    }

    @Test func aLongGlobMatchesWithoutRecursion() {
        let g = Glob(String(repeating: "**/", count: 100_000) + "x.yaml")
        #expect(g.matches("a/b/x.yaml") && g.matches("x.yaml") && !g.matches("a/y.yaml"))
        let mixed = Glob("a/**/b/*/c.yaml")
        #expect(mixed.matches("a/b/z/c.yaml") && mixed.matches("a/q/r/b/z/c.yaml") && !mixed.matches("a/b/c.yaml"))
    }
}
