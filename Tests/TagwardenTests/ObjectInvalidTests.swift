import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

/// The values `object-invalid` judges as the CRDs and the image-reflector-controller do.
@Suite struct ObjectInvalidTests {
    @Test(arguments: [("5m", true, true), ("1h30m", true, true), ("1.5h", true, true), ("250ms", true, true), ("90s", false, true),
                      ("1h", false, false), ("10", true, false), ("", true, false), ("5 m", true, false), ("1.s", true, false),
                      ("m", true, false), ("5d", true, false), ("1m1", true, false)] as [(String, Bool, Bool)])
    func durations(_ text: String, _ hours: Bool, _ valid: Bool) {
        #expect(Rule.isDuration(text, hours: hours) == valid, "\(text)")
    }

    /// Go's `time.ParseDuration` arithmetic: 2562047h47m16.854775807s is the largest duration.
    @Test func durationRange() {
        #expect(GoDuration.nanoseconds("1h30m") == 5_400_000_000_000)
        #expect(GoDuration.nanoseconds("1.5h") == 5_400_000_000_000)
        #expect(GoDuration.nanoseconds("250ms") == 250_000_000)
        #expect(GoDuration.nanoseconds("0.000000001s") == 1)
        #expect(GoDuration.nanoseconds("2562047h47m16.854775807s") == UInt64(Int64.max))
        #expect(GoDuration.nanoseconds("2562047h47m16.854775808s") == nil)
        #expect(GoDuration.nanoseconds("2562048h") == nil)
        #expect(GoDuration.nanoseconds("99999999999999999999h") == nil)
        #expect(GoDuration.nanoseconds("9223372036854775807s") == nil)
        #expect(GoDuration.nanoseconds("1.99999999999999999999999999s") == 2_000_000_000)  // Go rounds the same way
        #expect(Rule.durationProblem("3000000h", hours: true) == "is longer than a Go duration can be (about 292 years)")
        #expect(Rule.durationProblem("5m", hours: true) == nil)
        #expect(Rule.durationProblem("1h", hours: false) == "is not a duration in ms, s or m (hours are not accepted here)")
    }

    @Test func imagesFluxRefuses() {
        #expect(Rule.imageProblem("ghcr.io/acme/web") == nil)
        #expect(Rule.imageProblem("localhost:5000/app") == nil)
        #expect(Rule.imageProblem("registry.local:5000/acme/web") == nil)
        #expect(Rule.imageProblem("nginx") == nil)
        #expect(Rule.imageProblem("ghcr.io/acme/web:1.0") == "must not include a tag (remove ':1.0')")
        #expect(Rule.imageProblem("nginx:1.25") == "must not include a tag (remove ':1.25')")
        #expect(Rule.imageProblem("ghcr.io/a/b@sha256:abc") == "must not include a digest (remove '@sha256:abc')")
        #expect(Rule.imageProblem("https://ghcr.io/acme/web") == "must not include a URL scheme (remove 'https://')")
    }
}
