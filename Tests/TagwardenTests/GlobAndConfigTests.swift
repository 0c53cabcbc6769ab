import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct GlobAndConfigTests {
    @Test func globs() {
        #expect(Glob("apps/production/**").matches("apps/production/web/d.yaml"))
        #expect(Glob("**/testdata/**").matches("a/b/testdata/x.yaml"))
        #expect(Glob("**/testdata/**").matches("testdata/x.yaml"))
        #expect(!Glob("apps/*/x.yaml").matches("apps/a/b/x.yaml"))
        #expect(Glob("ghcr.io/acme/*").matches("ghcr.io/acme/web"))
        #expect(!Glob("ghcr.io/acme/*").matches("ghcr.io/other/web"))
    }

    func parse(_ s: String) throws -> Config {
        try Config.parse(Array(s.utf8), path: ".tagwarden.yaml", knownRules: Catalogue.ids)
    }

    /// `replacingOccurrences` finds its pattern where a Character starts, whether it compares bytes (ASCII) or not: the
    /// LF of a CR LF is no match, the `e` of an `e` with a combining accent is.
    @Test func replacingOccurrencesReplacesCharacters() {
        #expect("flux-system:web".replacingOccurrences(of: ":", with: "/") == "flux-system/web")
        #expect("a::b::".replacingOccurrences(of: "::", with: "-") == "a-b-")
        #expect("aaa".replacingOccurrences(of: "aa", with: "b") == "ba")
        #expect("none".replacingOccurrences(of: ":", with: "/") == "none")
        #expect("".replacingOccurrences(of: ":", with: "/") == "")
        #expect("é:x".replacingOccurrences(of: ":", with: "/") == "é/x")
        #expect("a\r\nb\nc".replacingOccurrences(of: "\n", with: "|") == "a\r\nb|c")
        #expect("e\u{301}:e".replacingOccurrences(of: "e", with: "x") == "x\u{301}:x")
    }

    @Test func validConfig() throws {
        let c = try parse("""
        profile: strict
        environments:
          - name: production
            aliases: [prod, production]
            paths: ["clusters/production/**"]
            tagPattern: '^production-v[0-9]+$'
            requireDigest: true
        rules:
          image-floating-tag: {severity: error}
          image-missing-tag: {enabled: false}
        promotedImages: ["ghcr.io/acme/*"]
        maxFileSize: 2MiB
        """)
        #expect(c.profile == "strict" && c.environments.first?.requireDigest == true)
        #expect(c.rules["image-floating-tag"]?.severity == .error && c.rules["image-missing-tag"]?.enabled == false)
        #expect(c.maxFileSize == 2 << 20)
    }

    @Test(arguments: [
        ("profile: lax\n", ".tagwarden.yaml:1:10: unknown profile 'lax'; known profiles: strict"),
        ("environments:\n  - name: staging\n    tagPrefix: stg-\n    tagPrefix: staging-\n", ".tagwarden.yaml:4:5: duplicate key 'tagPrefix' (first at line 3)"),
        ("profile: strict\nfloatingTags: [a]\nprofile: strict\n", ".tagwarden.yaml:3:1: duplicate key 'profile' (first at line 1)"),
        ("tagPrefix: prod-\n", ".tagwarden.yaml:1:1: unknown key 'tagPrefix' in the config (it belongs in an entry of environments); allowed: profile, environments, rules, promotedImages, floatingTags, shortVersionReleases, ignore, maxFileSize, maxInputSize, fluxVersion, clusters"),
        ("rulez: {}\n", ".tagwarden.yaml:1:1: unknown key 'rulez' in the config (did you mean 'rules'?); allowed: profile, environments, rules, promotedImages, floatingTags, shortVersionReleases, ignore, maxFileSize, maxInputSize, fluxVersion, clusters"),
        ("clusters: {a: 1}\n", ".tagwarden.yaml:1:11: clusters must be a list"),
        ("maxFileSize: 2G\n", ".tagwarden.yaml:1:14: maxFileSize can be at most 1GiB: Tagwarden reads no larger file"),
        ("clusters:\n  - paths: [x]\n", ".tagwarden.yaml:2:5: a cluster needs a name (a detected cluster's, to correct it, or a new one)"),
        ("clusters:\n  - name: a\n  - name: a\n", ".tagwarden.yaml:3:11: cluster 'a' is declared twice (also line 2)"),
        ("clusters:\n  - name: a\n    path: [x]\n", ".tagwarden.yaml:3:5: unknown key 'path' in a cluster (did you mean 'paths'?); allowed: name, paths, fluxVersion, substitute"),
        ("clusters:\n  - name: a\n    fluxVersion: two\n", ".tagwarden.yaml:3:18: fluxVersion must look like 2.7 or v2.7.1, not 'two'"),
        ("clusters:\n  - name: a\n    substitute: {1abc: x}\n", ".tagwarden.yaml:3:18: '1abc' is not a variable name Flux substitutes (letters, digits and _, not starting with a digit)"),
        ("clusters:\n  - name: a\n    substitute: [x]\n", ".tagwarden.yaml:3:17: substitute must be a mapping of variable names to values"),
        ("rules:\n  image-latest: {severity: error}\n", ".tagwarden.yaml:2:3: unknown rule 'image-latest' (did you mean 'image-latest-tag'?)"),
        ("rules:\n  image-latest-tag: {severity: fatal}\n", ".tagwarden.yaml:2:32: severity must be error, warning or note, not 'fatal'"),
        ("environments:\n  - name: prod\n    tagPattern: '(?=x)'\n", ".tagwarden.yaml:3:17: tagPattern is not a valid Go regular expression: invalid or unsupported Perl syntax: `(?=` (at offset 0)"),
        ("environments:\n  - name: prod\n    requireDigest: maybe\n", ".tagwarden.yaml:3:20: requireDigest must be true or false"),
        ("a: [\n", ".tagwarden.yaml:2:1: invalid YAML: did not find expected node content while parsing a flow node"),
        ("environments:\n  - name: production\n  - name: Production\n", ".tagwarden.yaml:3:11: environment 'Production' is defined twice (also line 2)"),
        ("environments:\n  - name: production\n    aliases: [prod, live]\n  - name: staging\n    aliases: [stage, Live]\n",
         ".tagwarden.yaml:5:22: 'Live' would name both environment 'production' (line 3) and 'staging': names and aliases are compared case-insensitively"),
        ("environments:\n  - name: production\n  - name: qa\n    aliases: [PRODUCTION]\n",
         ".tagwarden.yaml:4:15: 'PRODUCTION' would name both environment 'production' (line 2) and 'qa': names and aliases are compared case-insensitively"),
    ])
    func invalidConfigNamesFileLineAndProblem(_ text: String, _ message: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted: \(text)")
        } catch let e as TagwardenError {
            #expect(e.message == message)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func sizes() {
        let mib = 1_048_576, kib = 1024, gib = 1_073_741_824
        let cases: [(String, Int)] = [("1048576", mib), ("10MiB", 10 * mib), ("10mib", 10 * mib), ("10M", 10 * mib), ("10m", 10 * mib),
                                      ("10MB", 10 * mib), ("512K", 512 * kib), ("512 KiB", 512 * kib), ("2G", 2 * gib), ("2gb", 2 * gib),
                                      ("100B", 100), ("8589934591G", 8_589_934_591 * gib)]
        for (text, bytes) in cases {
            #expect(Config.parseSize(text) == bytes, "\(text)")
        }
        for text in ["", "0", "-1", "0M", "1e3", "10iB", "10Mx", "M", "1.5G", "+5", "99999999999999GiB", "99999999999999999999"] {
            #expect(Config.parseSize(text) == nil, "\(text)")
        }
    }

    @Test func inferredPrefixesNeedTwoThirds() {
        var m = EnvironmentModel.base(config: nil, profile: nil)
        m.inferPrefixes(policies: [("staging", "^staging-v.*"), ("staging", "^staging-[a-f0-9]+"), ("staging", ".*"),
                                   ("production", "^production-v.*"), ("production", "^prod-.*"), ("production", "^x-.*"),
                                   ("development", "^develop-v.*"), ("development", "^develop-[0-9]+")])
        #expect(m.named("staging")?.tagPrefix == "staging-")
        #expect(m.named("production")?.tagPrefix == nil)
        #expect(m.named("development")?.tagPrefix == "develop-")
        #expect(m.named("staging")?.origin["tagPrefix"] == "inferred from 2 of 3 ImagePolicies")
    }

    @Test func aPrefixOfOneEnvironmentAloneNamesABranch() {
        // Flux's own guide tags builds main-<sha>-<ts>: one environment's prefix with no other is the branch's
        var m = EnvironmentModel.base(config: nil, profile: nil)
        m.inferPrefixes(policies: [("production", "^main-[a-f0-9]+-(?P<ts>[0-9]+)"), ("production", "^main-.*")])
        #expect(m.named("production")?.tagPrefix == nil)
        #expect(m.named("production")?.origin["tagPrefix"]?.hasPrefix("'main-' inferred from 2 of 2 ImagePolicies, but no other environment") == true)
        // a configured prefix of another environment makes it one of two
        var c = Config()
        c.environments = [EnvironmentConfig(name: "staging", tagPrefix: "rc-", origin: "x")]
        var configured = EnvironmentModel.base(config: c, profile: nil)
        configured.inferPrefixes(policies: [("production", "^main-[a-f0-9]+"), ("production", "^main-.*")])
        #expect(configured.named("production")?.tagPrefix == "main-")
    }

    @Test func environmentDetectionOrder() {
        var c = Config()
        c.environments = [EnvironmentConfig(name: "production", paths: ["clusters/eu/**"], namespaces: ["shop"], origin: "x")]
        let m = EnvironmentModel.base(config: c, profile: nil)
        let labels: StringMap<[String: String]> = ["team-a": ["environment": "stg"]]
        #expect(m.detect(path: "clusters/eu/a.yaml", namespace: nil, namespaceLabels: [:]) == "production")
        #expect(m.detect(path: "x/a.yaml", namespace: "shop", namespaceLabels: [:]) == "production")
        #expect(m.detect(path: "apps/dev/a.yaml", namespace: "team-a", namespaceLabels: labels) == "staging")
        #expect(m.detect(path: "overlays/dev/a.yaml", namespace: nil, namespaceLabels: [:]) == "development")
        #expect(m.detect(path: "a.yaml", namespace: "prod", namespaceLabels: [:]) == "production")
        #expect(m.detect(path: "a.yaml", namespace: "web", namespaceLabels: [:]) == nil)
    }
}
