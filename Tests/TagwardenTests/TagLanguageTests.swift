@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport
import Testing

/// The automaton analysis: the shortest tag two languages share, smallest in byte order.
@Suite struct TagLanguageTests {
    func w(_ p: String, _ other: TagLanguage) throws -> String? {
        TagLanguage.witness(.matching(try GoRegex(p)), other)
    }

    @Test func witnessesAreShortestAndSmallest() throws {
        #expect(try w(#"^.*-v.*-(?P<ts>[0-9]+)$"#, .prefix("production-")) == "production-v-0")
        #expect(try w(#"^staging-v[0-9]+"#, .prefix("production-")) == nil)
        #expect(try w(#"prod-[a-f0-9]+"#, .prefix("preprod-")) == "preprod-0")      // unanchored
        #expect(try w(#"^prod-[a-f0-9]+"#, .prefix("preprod-")) == nil)
        #expect(try w("", .prefix("production-")) == "production-")
        #expect(try w("^$", .any) == nil)                                             // a tag is never empty
        #expect(try w("a", .any) == "a")
        #expect(try w("(?i)X", .any) == "X")                                          // 'X' < 'x' in byte order
        #expect(try w(#"\bv\b"#, .prefix("a")) == "a-v")
        let strict = try GoRegex(#"^production-v[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{7,40}-[0-9]+$"#)
        #expect(try w(#"^.*-v.*-(?P<ts>[0-9]+)$"#, .matching(strict)) == "production-v0.0.0-0000000-0")
        #expect(try w(#"^[0-9]+$"#, .matching(strict)) == nil)
        #expect(TagLanguage.witness(.any, .any) == "0")
        #expect(try w("[^a-zA-Z0-9_.-]", .any) == nil)   // characters no tag has
        #expect(try w(".{129}", .any) == nil)             // longer than any tag
        #expect(try w(".{128}", .any) == "0" + String(repeating: "-", count: 127))  // '-' is the smallest byte after the first
    }

    @Test func typicalPatternsAreDecidedWithinATenthOfTheBudget() throws {
        let strict = try GoRegex(#"^production-v[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{7,40}-[0-9]+$"#)
        let patterns = [#"^main-[a-fA-F0-9]+-(?P<ts>.*)"#, #"^staging-v(?P<version>[0-9]+\.[0-9]+\.[0-9]+)-[0-9a-f]+-[0-9]+$"#,
                        #"[a-f0-9]+-(?P<ts>[0-9]+)"#, #"^.+-[a-f0-9]+-(?P<ts>[0-9]+)"#, #".*-[a-f0-9]{40}-(?P<ts>[0-9]+)$"#,
                        #"^staging-[0-9a-f]{7,40}-[0-9]+$"#]
        let budget = TagLanguage.defaultBudget / 10
        for p in patterns {
            for other: TagLanguage in [.matching(strict), .prefix("production-"), .any] {
                #expect(TagLanguage.search([.matching(try GoRegex(p)), other], budget: budget) != .undecided, "\(p)")
            }
        }
    }

    @Test func exponentialAutomataRunOutOfBudgetInsteadOfHanging() throws {
        // the automaton must remember which of the last 31 characters were 'a': 2^31 states
        #expect(TagLanguage.search([.matching(try GoRegex("a[a-z]{30}")), .prefix("develop-")]) == .undecided)
        // a thread that needs more characters than a tag holds is dropped: decided, and at once
        #expect(TagLanguage.search([.matching(try GoRegex(#"(?i:[^a]{2}[^\n]{1000})+"#)), .any]) == .none)
        // an anchored pattern dies when its prefix does not fit, so the other language is not explored for it
        let anchored = try GoRegex(#"^staging-.*[0-9][0-9a-z]{40}$"#)
        #expect(TagLanguage.search([.matching(anchored), .prefix("production-")]) == .none)
        #expect(TagLanguage.search([.matching(anchored), .prefix("staging-")]) == .undecided)
    }
}
