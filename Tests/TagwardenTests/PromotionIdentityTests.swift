import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct PromotionIdentityTests {
    @Test(arguments: [
        ("staging-v1.2.3-abc1234-1700000000", "staging-", "v1.2.3-abc1234-1700000000"),
        ("v10.20.30-0123456789abcdef0123456789abcdef01234567-1", nil, "v10.20.30-0123456789abcdef0123456789abcdef01234567-1"),
        ("prod-v1.2.3-abcdef0-1", nil, "v1.2.3-abcdef0-1"),
        ("staging-v1.2.3-abc123-17", "staging-", nil),          // six hex digits
        ("v1.2.3-0123456789abcdef0123456789abcdef012345678-1", nil, nil),  // 41
        ("staging-v1.2.3-ABC1234-17", "staging-", nil),         // upper-case hex
        ("staging-v1.2.3-abc1234", "staging-", nil),            // no build number
        ("staging-v1.2-abc1234-17", "staging-", nil),
        ("staging-v1.2.3-abc1234-17x", "staging-", nil),
        ("staging-1.2.3-abc1234-17", "staging-", nil),
    ] as [(String, String?, String?)])
    func identity(_ tag: String, _ prefix: String?, _ expected: String?) {
        #expect(PromotionEvidence.identity(tag: tag, prefix: prefix) == expected)
    }
}

/// The evidence cache file read from its bytes gives what the JSON reader gives, and anything but the writer's own
/// form is left to the JSON reader.
@Suite struct EvidenceCacheFileTests {
    static var evidence: PromotionEvidence {
        var e = PromotionEvidence()
        e.record(normalized: "ghcr.io/acme/web", tag: "staging-v1.2.3-abc1234-17", digest: "sha256:" + String(repeating: "a", count: 64), prefix: "staging-")
        e.record(normalized: "ghcr.io/acme/web", tag: "staging-v1.2.4-abc1235-18", digest: nil, prefix: "staging-")
        e.record(normalized: "ghcr.io/acme/api", tag: "latest", digest: "sha256:" + String(repeating: "b", count: 64), prefix: "staging-")
        e.record(normalized: "docker.io/library/redis", tag: nil, digest: nil, prefix: nil)
        return e
    }

    @Test func theWritersFormIsReadAsTheJSONReaderReadsIt() throws {
        for e in [Self.evidence, PromotionEvidence()] {
            let text = e.json(key: "k1", tip: "abc").serialized() + "\n"
            let fast = try #require(PromotionEvidence.fromCacheFile(Array(text.utf8), key: "k1"))
            let slow = try #require(PromotionEvidence.fromJSON(try JSON.parse(text), key: "k1"))
            #expect(fast.0 == slow.0 && fast.1 == slow.1 && fast.1 == "abc")
            #expect(fast.0 == e)
            #expect(PromotionEvidence.fromCacheFile(Array(text.utf8), key: "k2") == nil)
        }
    }

    @Test(arguments: [
        #"{"version":2,"key":"k1","tip":"abc","images":["a\/b"],"digests":{},"identities":{}}"#,   // an escape
        #"{ "version":2,"key":"k1","tip":"abc","images":[],"digests":{},"identities":{}}"#,        // a blank
        #"{"version":2,"key":"k1","tip":"abc","images":[],"digests":{},"identities":{}} x"#,       // text after it
        #"{"version":2,"key":"k1","tip":"abc","images":[1],"digests":{},"identities":{}}"#,       // no string
        #"{"version":2,"key":"k1","tip":"abc","images":[],"digests":{}}"#,                        // cut short
    ])
    func anythingElseIsLeftToTheJSONReader(_ text: String) {
        #expect(PromotionEvidence.fromCacheFile(Array(text.utf8), key: "k1") == nil)
    }
}
