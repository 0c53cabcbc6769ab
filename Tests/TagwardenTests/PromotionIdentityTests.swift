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
