import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

/// The conformance tables of spec/flux-image-automation.md §1.4, §1.5, §2.2, §2.5, §2.6, row by row.
@Suite struct PolicyConformanceTests {
    func eval(_ choice: PolicyDefinition.Choice, _ tags: [String], pattern: String? = nil, extract: String? = nil,
              exclusions: [String]? = nil, flux: TagParsing = .current) throws -> PolicyResult {
        let e = try PolicyEvaluator(PolicyDefinition(choice: choice, pattern: pattern, extract: extract, exclusionList: exclusions), flux: flux)
        return e.evaluate(tags)
    }

    // §1.4 TestSortTagsAndGetLatestTags: descending byte order, the first ten
    @Test(arguments: [
        ([], []),
        (["1.0.0", "0.0.8", "1.2.5", "3.0.1", "1.0.1"], ["3.0.1", "1.2.5", "1.0.1", "1.0.0", "0.0.8"]),
        (["1.0.0", "0.0.8", "1.2.5", "3.0.1", "1.0.1", "5.1.1", "4.1.0", "4.5.0", "4.0.3", "2.2.2"],
         ["5.1.1", "4.5.0", "4.1.0", "4.0.3", "3.0.1", "2.2.2", "1.2.5", "1.0.1", "1.0.0", "0.0.8"]),
        (["1.0.0", "0.0.8", "1.2.5", "3.0.1", "1.0.1", "5.1.1", "4.1.0", "4.5.0", "4.0.3", "2.2.2", "0.5.1", "0.1.0"],
         ["5.1.1", "4.5.0", "4.1.0", "4.0.3", "3.0.1", "2.2.2", "1.2.5", "1.0.1", "1.0.0", "0.5.1"]),
        (["-62", "-88", "73", "72", "15"], ["73", "72", "15", "-88", "-62"]),
        (["-62", "-88", "73", "72", "15", "16", "15", "29", "-33", "-91", "100", "101"],
         ["73", "72", "29", "16", "15", "15", "101", "100", "-91", "-88"]),
        (["aaa", "bbb", "ccc"], ["ccc", "bbb", "aaa"]),
        (["aaa", "bbb", "ccc", "ddd", "eee", "fff", "ggg", "hhh", "iii", "jjj", "kkk", "lll"],
         ["lll", "kkk", "jjj", "iii", "hhh", "ggg", "fff", "eee", "ddd", "ccc"]),
    ] as [([String], [String])])
    func latestTags(_ input: [String], _ expected: [String]) {
        #expect(Array(PolicyEvaluator.databaseOrder(input).prefix(10)) == expected)
    }

    // §1.5 TestFilterOutTags and the scan cases
    @Test(arguments: [
        (["a", "b", "c", "d"], [] as [String], ["a", "b", "c", "d"]),
        (["a", "b", "c", "d"], ["[abc]"], ["d"]),
        (["a", "b", "c", "d"], ["[a]", "[d]"], ["b", "c"]),
        (["0.1.0", "0.2.0", "0.2.-alpha", "0.3.0", "0.4.0", "0.4.0.sig"], [#"^.*\-alpha$"#, #"^.*\.sig$"#], ["0.1.0", "0.2.0", "0.3.0", "0.4.0"]),
        (["aaa", "bbb", "ccc", "ddd"], ["aaa|ccc"], ["bbb", "ddd"]),
        (["0.1.0", "0.1.1", "0.1.1.sig", "1.0.0-alpha", "1.0.0", "1.0.0.sig"], [], ["0.1.0", "0.1.1", "1.0.0-alpha", "1.0.0"]),
        (["0.1.0", "0.1.1-alpha", "0.1.1", "0.1.1.sig", "1.0.0-alpha", "1.0.0"], [#"^.*\-alpha$"#], ["0.1.0", "0.1.1", "0.1.1.sig", "1.0.0"]),
    ] as [([String], [String], [String])])
    func exclusions(_ tags: [String], _ patterns: [String], _ kept: [String]) throws {
        // the default `^.*\.sig$` applies when the list is empty; a custom list replaces it
        let e = try PolicyEvaluator(PolicyDefinition(choice: .alphabetical(""), exclusionList: patterns))
        #expect(tags.filter { e.isExcluded($0) == nil } == kept)
    }

    @Test func invalidExclusionIsAnError() {
        #expect(throws: PolicyError.self) { try PolicyEvaluator(PolicyDefinition(choice: .alphabetical(""), exclusionList: ["[="])) }
    }

    // §2.2 TestImagePolicyReconciler_accessImageRepo (the selector part)
    @Test func accessFromSelectors() {
        #expect(FluxIndex.matches([:], ["any": "thing"]))
        #expect(FluxIndex.matches(["tenant": "b", "env": "test"], ["tenant": "b", "env": "test"]))
        #expect(!FluxIndex.matches(["tenant": "b", "env": "test"], ["tenant": "a", "env": "test"]))
    }

    // §2.5.1 fluxcd/pkg TestParseVersion
    @Test(arguments: ["v1.2.3", "v2025.07.03", "v1.2.0-x.Y.0+metadata", "v1.2.0-x.Y.0+metadata-width-hypen", "v1.2.3-rc1-with-hypen",
                      "1.2-rc.1", "1-rc.1.2"])
    func parseVersionOK(_ s: String) { #expect(SemVersion.parseTag(s) != nil, "\(s)") }

    @Test(arguments: ["v1.0", "v1", "v1.2.beta", "v1.2-5", "v1.2-beta5", "\nv1.2", "v1.2.3.4", "1.2", "20221209-foo"])
    func parseVersionError(_ s: String) { #expect(SemVersion.parseTag(s) == nil, "\(s)") }

    @Test func legacyParsing() {
        #expect(SemVersion.parseTag("v1.2.3", flux: .legacy) != nil)
        #expect(SemVersion.parseTag("v2025.07.03", flux: .legacy) == nil)   // leading zeros
        #expect(SemVersion.parseTag("1.2-rc.1", flux: .legacy) == nil)
        #expect(SemVersion.parseTag("1.2.3-01", flux: .legacy) == nil)
        #expect(SemVersion.parseTag("vv1.2.3", flux: .legacy) == nil)
    }

    // §2.5.1 Masterminds TestCompare rows
    @Test(arguments: [
        ("1.2.3", "1.5.1", -1), ("2.2.3", "1.5.1", 1), ("3.2-beta", "3.2-beta", 0), ("1.3", "1.1.4", 1), ("4.2", "4.2-beta", 1),
        ("4.2-alpha", "4.2-beta", -1), ("4.2-beta.2", "4.2-beta.1", 1), ("4.2-beta2", "4.2-beta1", 1), ("4.2-beta", "4.2-beta.2", -1),
        ("4.2-beta", "4.2-beta.foo", -1), ("1.2+bar", "1.2+baz", 0), ("1.0.0-beta.4", "1.0.0-beta.-2", -1),
        ("1.0.0-beta.-2", "1.0.0-beta.-3", -1), ("1.0.0-beta.-3", "1.0.0-beta.5", 1),
    ] as [(String, String, Int)])
    func compare(_ a: String, _ b: String, _ want: Int) throws {
        let x = try #require(SemVersion.parse(a)), y = try #require(SemVersion.parse(b))
        #expect(x.compare(y) == want)
    }

    // §2.5.1 Masterminds TestConstraintsCheck rows
    @Test(arguments: [
        (">=1.1", "4.1.0-beta", false), ("<=1.1", "0.1.0-alpha", false), ("<=1.1-a", "0.1.0-alpha", true),
        (">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta", true), (">= 1.0.0  <= 2.0.0-beta", "1.0.1", true),
        (">= 1.0.0  <= 2.0.0-beta", "3.0.0", false), (">= 1.0.0  <= 2.0.0-beta || > 3", "3.0.1-beta", false),
        (">= 1.0.0-0  <= 2.0.0", "1.0.1-beta", true), ("^1.x", "1.1.1-beta1", false), ("^1.1.2-alpha", "1.2.1-beta1", true),
        ("^1.2.x-alpha", "1.1.1-beta1", false), ("~1.1", "1.1.1-alpha", false), ("~1.1-alpha", "1.1.1-beta", true),
        ("~1.1.1-beta", "1.1.1-alpha", false), ("~1.1.1-beta", "1.1.1", true), ("!=4.1-alpha", "4.1.0-alpha", false),
        ("!=4.1-alpha", "4.1.1-alpha", false),
    ] as [(String, String, Bool)])
    func constraintsCheck(_ range: String, _ version: String, _ want: Bool) throws {
        let c = try SemverConstraint(range)
        #expect(c.check(try #require(SemVersion.parse(version))) == want)
    }

    @Test func prereleaseRuleChangedIn27() throws {
        let c = try SemverConstraint(">=1.0.0-0 <2.0.0")
        let v = try #require(SemVersion.parse("1.5.0-rc.1"))
        #expect(c.check(v, flux: .current))
        #expect(!c.check(v, flux: .legacy))
        #expect(try SemverConstraint(">=1.0.0-0 <2.0.0-0").check(v, flux: .legacy))
    }

    // §2.5.1 TestNewConstraint
    @Test(arguments: [">= 1.1", ">40.50.60, < 50.70", "2.0", "v2.3.5-20161202202307-sha.e8fc5e5", "v1.2.3-0abc", ">= 1.2.3 < 2.0",
                      ">= 1.2.3 < 2.0 || => 3.0 < 4", "3 - 4 || => 3.0, < 4", "12.3.34 ~1.2.3", "1.0.0 - 2.0.0, <=2.0.0",
                      // §2.6 NewSemVer valid
                      "1.0.x", "^1.0", "=1.0.0", "~1.0", ">=1.0", ">0,<2.0"])
    func constraintValid(_ s: String) throws { _ = try SemverConstraint(s) }

    @Test(arguments: ["v1.2.3-beta.01", ">= bar", "BAR >= 1.2.3", "12.3.4.1234", "12.23.4.1234", "12.3.34.1234", "12.3.34~ 1.2.3",
                      // §2.6 NewSemVer invalid, and factory_test's *-*
                      "1.0.0p", "1x", "x1", "-1", "a", "", "*-*"])
    func constraintInvalid(_ s: String) {
        #expect(throws: SemverConstraint.ParseError.self) { try SemverConstraint(s) }
    }

    @Test func improperConstraintMessage() {
        do { _ = try SemverConstraint(">= bar"); Issue.record("accepted") } catch {
            #expect(error.message == "improper constraint: >= bar")
        }
    }

    // §2.6 semver_test Latest
    @Test(arguments: [
        ("1.0.x", ["1.0.0", "1.0.0.1", "1.0.0p", "1.0.1", "1.2.0", "0.1.0"], "1.0.1"),
        ("1.0.x", ["v1.2.3", "v1.0.0", "v0.1.0"], "v1.0.0"),
        ("1.0.x", ["b1.2.3", "b1.0.0", "b0.1.0"], nil),
        ("1.0.x", [], nil),
        ("1.0.x", ["1.2.0"], nil),
    ] as [(String, [String], String?)])
    func semverLatest(_ range: String, _ tags: [String], _ want: String?) throws {
        let r = try eval(.semver(range), tags)
        #expect(r.selected == want)
        if want == nil { #expect(r.error != nil) }
    }

    @Test func semverErrors() throws {
        #expect(try eval(.semver("1.0.x"), []).error == "version list argument cannot be empty")
        #expect(try eval(.semver("1.0.x"), ["1.2.0"]).error == "unable to determine latest version from provided list")
    }

    // §2.6 alphabetical_test
    @Test(arguments: [
        ("asc", ["16.04", "16.04.1", "16.10", "20.04", "20.10"], "20.10"),
        ("desc", ["16.04", "16.04.1", "16.10", "20.04", "20.10"], "16.04"),
        ("asc", ["xenial", "yakkety", "zesty", "artful", "bionic"], "zesty"),
        ("desc", ["xenial", "yakkety", "zesty", "artful", "bionic"], "artful"),
        ("asc", ["1606234201", "1606364286", "1606334092", "1606334284", "1606334201"], "1606364286"),
        ("desc", ["1606234201", "1606364286", "1606334092", "1606334284", "1606334201"], "1606234201"),
        ("asc", ["rel-1606234201", "rel-1606364286", "rel-1606334092", "rel-1606334284", "rel-1606334201"], "rel-1606364286"),
        ("asc", ["2021-01-08T21-18-21Z", "2020-05-08T21-18-21Z", "2021-01-08T19-20-00Z", "1990-01-08T00-20-00Z", "2023-05-08T00-20-00Z"], "2023-05-08T00-20-00Z"),
        ("desc", ["2021-01-08T21-18-21Z", "2020-05-08T21-18-21Z", "2021-01-08T19-20-00Z", "1990-01-08T00-20-00Z", "2023-05-08T00-20-00Z"], "1990-01-08T00-20-00Z"),
        ("", ["xenial", "zesty"], "zesty"),
    ] as [(String, [String], String)])
    func alphabetical(_ order: String, _ tags: [String], _ want: String) throws {
        #expect(try eval(.alphabetical(order), tags).selected == want)
    }

    @Test func orderArguments() throws {
        #expect(try eval(.alphabetical(""), []).error == "version list argument cannot be empty")
        for o in ["", "ASC", "DESC", "asc", "desc"] { _ = try PolicyEvaluator(PolicyDefinition(choice: .alphabetical(o))) }
        #expect(throws: PolicyError(message: "invalid policy: invalid order argument provided: 'INVALID', must be one of: ASC, DESC")) {
            try PolicyEvaluator(PolicyDefinition(choice: .alphabetical("invalid")))
        }
    }

    // §2.6 numerical_test (the result must not depend on input order)
    @Test(arguments: [
        ("asc", ["-62", "-88", "73", "72", "15", "16", "15", "29", "-33", "-91"], "73"),
        ("desc", ["5", "-8", "-78", "25", "70", "-4", "80", "92", "-20", "-24"], "-78"),
        ("asc", ["47.40896403322944", "-27.8520927455902", "-27.930666514224427", "-31.352485948094568", "-50.41072694704882",
                 "-21.962849842263736", "24.71884721436865", "-39.99177354004344", "53.47333823144817", "3.2008658570411086"], "53.47333823144817"),
        ("desc", ["-65.27202780220686", "57.82948329142309", "22.40184684363291", "-86.36934305697784", "-90.29082099756083",
                  "-12.041712603564264", "77.70488240399305", "-38.98425003883552", "16.06867070412028", "53.735674335181216"], "-90.29082099756083"),
        ("asc", ["1606234201", "1606364286", "1606334092", "1606334284", "1606334201"], "1606364286"),
        ("desc", ["1606234201", "1606364286", "1606334092", "1606334284", "1606334201"], "1606234201"),
        ("asc", ["1"], "1"),
        ("desc", ["1"], "1"),
    ] as [(String, [String], String)])
    func numerical(_ order: String, _ tags: [String], _ want: String) throws {
        #expect(try eval(.numerical(order), tags).selected == want)
        #expect(try eval(.numerical(order), tags.reversed()).selected == want)
    }

    @Test func numericalErrors() throws {
        let r = try eval(.numerical("asc"), ["0", "1a", "b"])
        #expect(r.selected == nil && r.error?.hasPrefix("failed to parse invalid numeric value '") == true)
        #expect(try eval(.numerical("asc"), []).error == "version list argument cannot be empty")
    }

    // §2.6 filter_test: the keys
    @Test(arguments: [
        ("", "", ["a"], ["a"]),
        ("^ver", "", ["ver1", "ver2", "ver3", "rel1"], ["ver1", "ver2", "ver3"]),
        (#"ver(\d+)"#, "$1", ["ver1", "ver2", "ver3", "rel1"], ["1", "2", "3"]),
        (#"^(123-[0-9]+\.[0-9]+\.[a-z0-9]+-debug)"#, "", ["123-123.123.abcd123-debug", "123-123.123.abcd123", "123-123.123.abcd456-debug", "123-123.123.abcd456"],
         ["123-123.123.abcd123-debug", "123-123.123.abcd456-debug"]),
        (#"^(?P<tag>123-[0-9]+\.[0-9]+\.[a-z0-9]+[^-debug])"#, "$tag", ["123-123.123.abcd123-debug", "123-123.123.abcd123", "123-123.123.abcd456-debug", "123-123.123.abcd456"],
         ["123-123.123.abcd123", "123-123.123.abcd456"]),
        (#"^(?P<tag>123-[0-9]+\.[0-9]+\.[a-z0-9]+$)"#, "$tag", ["123-123.123.abcd123-debug", "123-123.123.abcd123", "123-123.123.abcd456-debug", "123-123.123.abcd456"],
         ["123-123.123.abcd123", "123-123.123.abcd456"]),
    ] as [(String, String, [String], [String])])
    func filterKeys(_ pattern: String, _ extract: String, _ tags: [String], _ want: [String]) throws {
        let e = try PolicyEvaluator(PolicyDefinition(choice: .alphabetical(""), pattern: pattern, extract: extract))
        #expect(Set(tags.compactMap { e.key(for: $0) }).sorted() == want)
    }

    // §2.6 TestImagePolicyReconciler_applyPolicy and policy_test
    @Test func applyPolicy() throws {
        #expect(throws: PolicyError(message: "invalid policy: given ImagePolicyChoice object is invalid")) {
            try PolicyEvaluator(PolicyDefinition(choice: nil))
        }
        #expect(try eval(.semver("1.0.x"), []).error != nil)
        #expect(try eval(.semver("1.0.x"), ["1.0.0", "2.0.0", "1.0.1", "1.2.0"]).selected == "1.0.1")
        #expect(try eval(.semver("v1.0.x"), ["v1.0.0", "v2.0.0", "v1.0.1", "v1.2.0"]).selected == "v1.0.1")
        #expect(try eval(.semver("v1.0.x"), ["1.0.0", "2.0.0", "1.0.1", "1.2.0"]).selected == "1.0.1")
        #expect(try eval(.semver("1.0.x"), ["v1.0.0", "v2.0.0", "v1.0.1", "v1.2.0"]).selected == "v1.0.1")
        #expect(throws: PolicyError.self) { try PolicyEvaluator(PolicyDefinition(choice: .semver("1.0.x"), pattern: "[=")) }
        #expect(try eval(.numerical("asc"), ["1.0.0", "1.0.0-rc.1", "1.0.0-rc.2", "1.0.0-rc.3", "1.0.1-rc.2"],
                         pattern: #"1.0.0-rc\.(?P<num>[0-9]+)"#, extract: "$num").selected == "1.0.0-rc.3")
        #expect(try eval(.alphabetical("asc"), ["foo-aaa", "bar-bbb", "foo-zzz", "baz-nnn", "foo-ooo"],
                         pattern: "foo-(?P<word>[a-z]+)", extract: "$word").selected == "foo-zzz")
        #expect(try eval(.semver("1.0.x"), ["0.1.0", "0.1.1", "0.2.0", "1.0.0", "1.0.1", "1.0.2", "1.1.0-alpha"]).selected == "1.0.2")
        #expect(throws: PolicyError.self) { try PolicyEvaluator(PolicyDefinition(choice: .semver("*-*"))) }
        #expect(try eval(.alphabetical(""), ["xenial", "yakkety", "zesty", "artful", "bionic"]).selected == "zesty")
        #expect(try eval(.semver(">=0.x"), ["test-0.1.0", "test-0.1.1", "dev-0.2.0", "1.0.0", "1.0.1", "1.0.2", "1.1.0-alpha"],
                         pattern: "^test-(.*)$", extract: "$1").selected == "test-0.1.1")
        do {
            _ = try PolicyEvaluator(PolicyDefinition(choice: .semver("1.0.x"), pattern: "^test-(.*"))
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("invalid regular expression pattern"))
            #expect(error.message == "failed to filter tags: invalid regular expression pattern '^test-(.*': error parsing regexp: missing closing ): `^test-(.*`")
        }
    }

    // fluxcd/pkg version TestSort: in the range, sorted descending, stable
    @Test func fluxSort() throws {
        let c = try SemverConstraint(">= 1.2.0, < 1.3.0")
        let input = ["v1.2.0", "v1.2.3", "v1.3.0", "1.2.4", "v1.1.0", "something-invalid", "v1.2.4", "another-invalid", "1.2.4"]
        let kept = input.compactMap { s in SemVersion.parseTag(s).flatMap { c.check($0) ? $0 : nil } }
        let sorted = kept.enumerated().sorted { a, b in
            let d = a.element.compare(b.element)
            return d != 0 ? d > 0 : a.offset < b.offset
        }.map(\.element.original)
        #expect(sorted == ["1.2.4", "v1.2.4", "1.2.4", "v1.2.3", "v1.2.0"])
    }

    // §8 traps: byte-wise order, Go's float grammar, $1x
    @Test func byteWiseOrder() throws {
        #expect(try eval(.alphabetical("asc"), ["Zeta", "alpha"]).selected == "alpha")     // 'a' (0x61) > 'Z' (0x5A)
        #expect(try eval(.alphabetical("asc"), ["v1.9", "v1.10"]).selected == "v1.9")
        #expect(try eval(.alphabetical("asc"), ["é", "z"]).selected == "é")                // UTF-8 bytes, not collation
    }

    @Test(arguments: [
        ("1", 1.0), ("-1.5", -1.5), ("+2", 2), (".5", 0.5), ("5.", 5), ("1e3", 1000), ("1E-2", 0.01), ("0x1p-2", 0.25),
        ("0X1.8P1", 3), ("1_000", 1000), ("0x_1p0", 1), ("inf", .infinity), ("-Infinity", -.infinity), ("+INF", .infinity),
        ("1e-400", 0), ("00012", 12),
    ] as [(String, Double)])
    func goFloatAccepts(_ s: String, _ want: Double) {
        #expect(GoFloat.parse(s) == .success(want), "\(s)")
    }

    @Test(arguments: ["", " 1", "1 ", "1_", "_1", "1__0", "1e", "0x1", "0x", "0b1", "1.2.3", "infin", "+nan", "1e+", "0x1.8", "--1", "1f"])
    func goFloatRejects(_ s: String) {
        if case .success = GoFloat.parse(s) { Issue.record("accepted \(s)") }
    }

    @Test func goFloatRangeAndNaN() {
        #expect(GoFloat.parse("1e400") == .failure(.range))
        #expect(GoFloat.parse("-1e400") == .failure(.range))
        if case .success(let v) = GoFloat.parse("NaN") { #expect(v.isNaN) } else { Issue.record("NaN rejected") }
    }

    @Test func expandOneX() throws {
        let r = try eval(.alphabetical("asc"), ["v1-a", "v2-b"], pattern: #"v(\d)-(\w)"#, extract: "$1x")
        // "$1x" names the group "1x", which does not exist: every key is "", the last writer wins
        #expect(r.selected == "v1-a")
        #expect(try eval(.alphabetical("asc"), ["v1-a", "v2-b"], pattern: #"v(\d)-(\w)"#, extract: "${1}x").selected == "v2-b")
    }

    @Test func tiesAreDeterministicAndReported() throws {
        let r = try eval(.numerical("asc"), ["1", "01", "1.0"])
        #expect(r.selected == "01")          // database order 1.0, 1, 01: the last of the equal values wins
        #expect(r.ties == ["1.0", "1", "01"])   // every equal key, in database order
    }
}
