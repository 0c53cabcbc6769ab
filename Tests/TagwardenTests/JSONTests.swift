import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct JSONTests {
    @Test(arguments: [
        ("plain text, ünïcödé and 😀", #""plain text, ünïcödé and 😀""#),
        ("a \"quoted\" \\ path", #""a \"quoted\" \\ path""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("bell\u{07}, nul\u{00} and \u{1F}", #""bell\u0007, nul\u0000 and \u001f""#),
        ("", #""""#),
    ])
    func stringsAreEscapedAsJSONRequires(_ value: String, _ expected: String) throws {
        #expect(JSON.string(value).serialized() == expected)
        #expect(try JSON.parse(expected) == .string(value))
    }

    /// Surrogate escapes as Go's encoding/json reads them (`go run` over these inputs): a high surrogate without its low
    /// one is U+FFFD and the escape after it is its own character. The first was an arithmetic trap the fuzzer found.
    @Test(arguments: [
        (#""\uD83D\u1F23""#, "\u{FFFD}\u{1F23}"), (#""\uD83D\uDE00""#, "😀"), (#""\uDE00x""#, "\u{FFFD}x"),
        (#""\uD83D\uD83D\uDE00""#, "\u{FFFD}😀"), (#""\uD83Dx""#, "\u{FFFD}x"), (#""\uDa7D\uFFFF""#, "\u{FFFD}\u{FFFF}"),
    ])
    func surrogateEscapesAreReadAsGoReadsThem(_ text: String, _ expected: String) throws {
        #expect(try JSON.parse(text) == .string(expected))
    }
}
