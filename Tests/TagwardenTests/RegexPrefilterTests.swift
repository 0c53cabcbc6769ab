@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport
import Testing

/// The quick rejects (literal prefix after ^, literal suffix before $) never change an answer.
@Suite struct RegexPrefilterTests {
    @Test(arguments: [
        (#"^.*\.sig$"#, "a.sig", true), (#"^.*\.sig$"#, "a.sig.x", false), (#"^.*\.sig$"#, ".sig", true),
        (#"x(a|b)$"#, "xb", true), (#"(?:ab)$"#, "zab", true), (#"ab$|cd$"#, "cd", true), (#"^ab|cd$"#, "abx", true),
        (#"^prod-.*$"#, "prod-1", true), (#"^prod-.*$"#, "preprod-1", false), (#"(?i)^PROD"#, "prod", true),
        (#"^(prod)-x"#, "prod-x", true), (#"ab$"#, "a", false),
    ] as [(String, String, Bool)])
    func prefilters(_ pattern: String, _ subject: String, _ want: Bool) throws {
        #expect(try GoRegex(pattern).matches(subject) == want)
    }
}
