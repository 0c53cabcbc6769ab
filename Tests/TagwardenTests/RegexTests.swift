@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport
import Testing

/// Go `regexp` semantics: leftmost-first matching, byte offsets, ASCII classes, Go's error texts.
@Suite struct RegexTests {
    func m(_ p: String, _ s: String) throws -> [Int]? {
        let re = try GoRegex(p)
        guard let r = re.firstMatch(in: s) else { return nil }
        return r.flatMap { g in g.map { [$0.lowerBound, $0.upperBound] } ?? [-1, -1] }
    }

    @Test(arguments: [
        ("a+", "baaab", [1, 4]),
        ("a*", "baaab", [0, 0]),
        ("a*?", "aaa", [0, 0]),
        ("a+?", "aaa", [0, 1]),
        ("(a|ab)(c|bcd)(d*)", "abcd", [0, 4, 0, 1, 1, 4, 4, 4]),
        ("(a)|(b)", "b", [0, 1, -1, -1, 0, 1]),
        ("(?i)hello", "HeLLo", [0, 5]),
        ("(?i:A)b", "ab", [0, 2]),
        (#"\bx\b"#, "a x b", [2, 3]),
        (#"\Bx"#, "ax", [1, 2]),
        ("(?m)^b$", "a\nb\nc", [2, 3]),
        ("a.c", "aéc", [0, 4]),
        ("(?s)a.c", "a\nc", [0, 3]),
        ("[^a]", "a\n", [1, 2]),
        (#"\d+"#, "x٣42", [3, 5]),
        (#"\w+"#, "é_a1", [2, 5]),
        ("[[:alpha:]]+", "12ab3", [2, 4]),
        ("[[:^digit:]]", "12a", [2, 3]),
        (#"\x41\x{42}\101"#, "ABA", [0, 3]),
        (#"\Qa.b\E+"#, "a.bb", [0, 4]),
        ("x{2,3}", "xxxx", [0, 3]),
        ("x{2,}?", "xxxx", [0, 2]),
        ("(?U)x+", "xxx", [0, 1]),
        ("(?U)x+?", "xxx", [0, 3]),
        ("a{,2}", "a{,2}", [0, 5]),
        (#"^production-v(?P<v>[0-9]+\.[0-9]+\.[0-9]+)-[0-9a-f]{7,40}-(?<ts>[0-9]+)$"#, "production-v1.2.3-abcdef1-17",
         [0, 28, 12, 17, 26, 28]),
        ("", "abc", [0, 0]),
        ("$", "ab", [2, 2]),
        (#"\A"#, "ab", [0, 0]),
    ] as [(String, String, [Int])])
    func matches(_ pattern: String, _ subject: String, _ want: [Int]) throws {
        #expect(try m(pattern, subject) == want)
    }

    /// Stars whose body can match the empty string are compiled as Go compiles them, `(x+)?`
    /// (golang.org/issue/46123), and a name may be given twice; expected values from Go 1.19's
    /// `FindStringSubmatchIndex` and `ExpandString`.
    @Test(arguments: [
        (#"([]a]??|(?:\x41|\w{1,3}?){2})*"#, "A1a_..bb.b", [0, 0, 0, 0]),
        ("(a|)*", "aab", [0, 2, 1, 2]),
        ("(a|)*?b", "aab", [0, 3, 1, 2]),
        ("(a*)*", "b", [0, 0, 0, 0]),
        ("(a*)+", "b", [0, 0, 0, 0]),
        ("(a*)*", "aab", [0, 2, 0, 2]),
        ("(a?)*x", "aax", [0, 3, 1, 2]),
        ("(|a)*", "aa", [0, 0, 0, 0]),
        ("(|a)+", "aa", [0, 0, 0, 0]),
        ("(a|b)*", "ab", [0, 2, 1, 2]),
        ("(?:a*)*", "aa", [0, 2]),
        ("(?:(a)|b)*", "ab", [0, 2, 0, 1]),
        ("(?P<v>a)|(?P<v>b)", "b", [0, 1, -1, -1, 0, 1]),
    ] as [(String, String, [Int])])
    func goPriorities(_ pattern: String, _ subject: String, _ want: [Int]) throws {
        #expect(try m(pattern, subject) == want)
    }

    @Test func aNameGivenTwiceExpandsTheGroupThatMatched() throws {
        let re = try GoRegex("(?P<v>a)|(?P<v>b)")
        for (subject, want) in [("a", "[a][a][a][]"), ("b", "[b][b][][b]")] {
            let match = try #require(re.firstMatch(in: subject))
            #expect(re.expand("[$v][${v}][$1][$2]", subject: subject, match: match) == want)
        }
    }

    @Test(arguments: [
        ("abc$", "abc\n"),   // $ is end of text, not before a final newline
        (#"\d"#, "٣"),       // ASCII \d
        ("^b", "a\nb"),      // ^ is start of text without (?m)
        ("a.c", "a\nc"),
        (#"x\b"#, "xy"),
    ])
    func noMatch(_ pattern: String, _ subject: String) throws {
        #expect(try m(pattern, subject) == nil)
    }

    @Test(arguments: [
        ("a**", "invalid nested repetition operator: `**` (at offset 1)"),
        ("a*+", "invalid nested repetition operator: `*+` (at offset 1)"),
        ("a++", "invalid nested repetition operator: `++` (at offset 1)"),
        ("x{2}{3}", "invalid nested repetition operator: `{2}{3}` (at offset 1)"),
        ("(?=x)", "invalid or unsupported Perl syntax: `(?=` (at offset 0)"),
        ("a(?!x)", "invalid or unsupported Perl syntax: `(?!` (at offset 1)"),
        ("(?<=x)a", "invalid or unsupported Perl syntax: `(?<=` (at offset 0)"),
        (#"(a)\1"#, #"invalid escape sequence: `\1` (at offset 3)"#),
        (#"\k<n>"#, #"invalid escape sequence: `\k` (at offset 0)"#),
        ("a{1001}", "invalid repeat count: `{1001}` (at offset 1)"),
        ("(a{100}){100}", "invalid repeat count: `{100}` (at offset 8)"),
        ("x(a", "missing closing ): `x(a` (at offset 1)"),
        ("a)", "unexpected ): `a)` (at offset 0)"),
        ("[a", "missing closing ]: `[a` (at offset 0)"),
        ("[z-a]", "invalid character class range: `z-a` (at offset 1)"),
        ("*a", "missing argument to repetition operator: `*` (at offset 0)"),
        ("(?P<>a)", "invalid named capture: `(?P<>` (at offset 0)"),
        (#"\pL"#, #"Unicode character classes are not supported: `\pL` (at offset 0)"#),
        (#"a\"#, #"trailing backslash at end of expression: `\` (at offset 1)"#),
        ("(?z)", "invalid or unsupported Perl syntax: `(?z` (at offset 0)"),
    ])
    func errors(_ pattern: String, _ message: String) {
        do {
            _ = try GoRegex(pattern)
            Issue.record("\(pattern) compiled")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func namedGroupsAndExpand() throws {
        let re = try GoRegex(#"^(?P<env>[a-z]+)-(?<ts>[0-9]+)$"#)
        #expect(re.subexpNames == [nil, "env", "ts"])
        let s = "prod-123"
        let match = try #require(re.firstMatch(in: s))
        #expect(re.expand("$ts", subject: s, match: match) == "123")
        #expect(re.expand("${env}x", subject: s, match: match) == "prodx")
        #expect(re.expand("$1x", subject: s, match: match) == "")        // group "1x" does not exist
        #expect(re.expand("${1}x", subject: s, match: match) == "prodx")
        #expect(re.expand("$$1", subject: s, match: match) == "$1")
        #expect(re.expand("$", subject: s, match: match) == "$")
        #expect(re.expand("$9", subject: s, match: match) == "")
        #expect(re.expand("$01", subject: s, match: match) == "")
    }

    /// The Pike VM visits each (position, instruction) pair at most once: hostile patterns stay linear.
    @Test(arguments: [("(a*)*b", "a"), ("(x+x+)+y", "x"), ("(a|a)*c", "a"), ("(a?){30}a{30}", "a")])
    func hostilePatternsAreLinear(_ pattern: String, _ unit: String) throws {
        let re = try GoRegex(pattern)
        let input = String(repeating: unit, count: 10_000)
        #expect(re.firstMatch(in: input) == nil || pattern.hasPrefix("(a?)"))
        let steps = re.searchSteps(input)
        #expect(steps <= (input.utf8.count + 1) * re.programSize * 2, "\(steps) steps")
        let twice = re.searchSteps(input + input)
        #expect(Double(twice) / Double(steps) < 4.1, "quadratic growth: \(steps) → \(twice)")
    }
}
