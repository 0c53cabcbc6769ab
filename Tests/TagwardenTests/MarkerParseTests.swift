import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct MarkerParseTests {
    @Test(arguments: [
        (#"# {"$imagepolicy": "flux-system:web"}"#, "flux-system", "web", nil),
        (#"## { "$imagepolicy" : "ns:p:tag" }"#, "ns", "p", "tag"),
        (#"# {"$imagepolicy": "ns:p:digest", "note": "x"}"#, "ns", "p", "digest"),
        // around the plain form's fast path: no blanks, trailing blanks, an escape in the value
        (#"#{"$imagepolicy":"ns:p"}  "#, "ns", "p", nil),
        (#"# {"$imagepolicy": "ns:\u0070:tag"}"#, "ns", "p", "tag"),
    ] as [(String, String, String, String?)])
    func valid(_ text: String, _ ns: String, _ name: String, _ suffix: String?) throws {
        let r = try #require(Marker.parse(text).policy)
        #expect(r.namespace == ns && r.name == name && r.part == MarkerPart(rawValue: suffix ?? ""))
    }

    @Test(arguments: [
        (#"# {"$imagepolicy": "ns:p"} # later"#, "text after the JSON object"),
        (#"# {'$imagepolicy': 'ns:p'}"#, "single quotes"),
        (#"# {"$imagepolicy": "p"}"#, "has no namespace"),
        (#"# {"$imagepolicy": "ns:p:TAG"}"#, "unknown suffix ':TAG'"),
        (#"# {"$ImagePolicy": "ns:p"}"#, "no \"$imagepolicy\" key"),
        (#"# {"$imagepolicy": "ns:p", "n": 1}"#, "is not a string"),
        (#"# {"$imagepolicy": "ns: p"}"#, "blanks"),
        (#"# {"$imagepolicy": "ns:p"}x"#, "text after the JSON object ('x')"),
        (#"# {"$imagepolicy": "ns:p",}"#, "not a JSON object"),
        (#"# {"$imagepolicy": ""}"#, "is empty"),
    ])
    func malformed(_ text: String, _ reason: String) {
        let r = Marker.parse(text)
        #expect(r.policy == nil)
        #expect(r.problem?.contains(reason) == true, "\(r.problem ?? "")")
    }
}
