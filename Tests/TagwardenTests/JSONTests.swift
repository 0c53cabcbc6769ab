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
}
