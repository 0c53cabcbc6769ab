import Testing
import TagwardenModel
import TagwardenFixtures
@testable import TagwardenUpdate

@Suite struct PolicyEvaluationTests {
    let digest = "sha256:" + String(repeating: "0f", count: 32)

    /// The outcomes of the policies in `manifest` (one file) against the tag file `tags`, by policy name.
    func outcomes(_ manifest: String, tags: String) throws -> [String: PolicyOutcome] {
        let model = try Model.build([SourceFile(path: "flux.yaml", bytes: Array(manifest.utf8))], config: Config(), profile: nil)
        let source = try TagFile.parse(Array(tags.utf8), path: "tags.json")
        var out: [String: PolicyOutcome] = [:]
        for o in try PolicyEvaluation.evaluate(model, tags: source) { out[model.flux.policies[o.policy].name] = o }
        return out
    }

    @Test func selectsAsFluxDoesWithTheRepositoryExclusions() throws {
        let manifest = [imageRepository(), imagePolicy(semver: ">=1.0.0")].joined(separator: "---\n")
        // 9.9.9.sig is excluded by the default exclusion list; 2.0.0-rc.1 is a prerelease the range leaves out
        let o = try outcomes(manifest, tags: #"{"ghcr.io/acme/web": ["1.0.0", "1.2.0", "2.0.0-rc.1", "9.9.9.sig"]}"#)["web"]
        #expect(o == PolicyOutcome(policy: 0, image: "ghcr.io/acme/web", tag: "1.2.0", digest: nil, error: nil, repository: 0))
    }

    @Test func aDigestPolicyTakesTheSelectedTagsDigest() throws {
        let manifest = [imageRepository(), imagePolicy(digestReflection: "IfNotPresent")].joined(separator: "---\n")
        let tags = #"{"ghcr.io/acme/web": ["1.0.0", {"tag": "1.1.0", "digest": "\#(digest)"}]}"#
        #expect(try outcomes(manifest, tags: tags)["web"]?.digest == digest)
        #expect(try outcomes(manifest, tags: tags)["web"]?.tag == "1.1.0")
    }

    @Test func aDigestPolicyWithoutADigestIsAnErrorNotAnEmptyDigest() throws {
        let manifest = [imageRepository(), imagePolicy(digestReflection: "Always")].joined(separator: "---\n")
        let o = try outcomes(manifest, tags: #"{"ghcr.io/acme/web": ["1.0.0", "1.1.0"]}"#)["web"]
        #expect(o == PolicyOutcome(policy: 0, image: "ghcr.io/acme/web", tag: nil, digest: nil,
                                   error: "digestReflectionPolicy Always needs the digest of tag 1.1.0, which the tag source does not give",
                                   repository: 0))
    }

    @Test func whyAPolicySelectsNothing() throws {
        let manifest = [imageRepository(), imagePolicy(semver: ">=3.0.0"), imagePolicy(name: "api", repository: "api"),
                        imageRepository(name: "other", image: "ghcr.io/acme/other"), imagePolicy(name: "other", order: .numerical("sideways"))]
            .joined(separator: "---\n")
        let out = try outcomes(manifest, tags: #"{"ghcr.io/acme/web": ["1.0.0"], "ghcr.io/acme/other": ["1"]}"#)
        // Flux's messages: a range that no version meets, and a list that the exclusions empty
        #expect(out["web"]?.error == "unable to determine latest version from provided list")
        let signaturesOnly = try outcomes([imageRepository(), imagePolicy()].joined(separator: "---\n"),
                                          tags: #"{"ghcr.io/acme/web": ["sha256-abc.sig"]}"#)
        #expect(signaturesOnly["web"]?.error == "version list argument cannot be empty")
        #expect(out["api"]?.error == "its ImageRepository is not in the repository")
        #expect(out["other"]?.error == "invalid policy: invalid order argument provided: 'SIDEWAYS', must be one of: ASC, DESC")
        let missing = try outcomes([imageRepository(), imagePolicy()].joined(separator: "---\n"), tags: "{}")
        #expect(missing["web"]?.error == "the tag source has no tags of ghcr.io/acme/web")
    }
}
