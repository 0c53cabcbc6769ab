import TagwardenFixtures
import Foundation
import Testing

@Suite struct PolicyEvalTests {
    let tags = "production-v1.2.3-abc1234-1\nproduction-v1.10.0-abc1234-2\nstaging-v2.0.0-abc1234-3\nproduction-v1.9.9-abc1234-4.sig\n"

    func repo() throws -> TempRepo {
        let r = try TempRepo()
        try r.write("flux/web.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata:
          name: web
          namespace: flux-system
        spec:
          image: ghcr.io/acme/web
          exclusionList: ['^.*\\.sig$', '^.*-debug$']
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata:
          name: web
          namespace: flux-system
        spec:
          imageRepositoryRef:
            name: web
          filterTags:
            pattern: '^production-v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)-[0-9a-f]+-[0-9]+$'
            extract: '$version'
          policy:
            semver:
              range: '>=1.0.0'

        """)
        try r.write("tags.txt", tags)
        return r
    }

    @Test func policyFromTheRepositoryOnAFile() throws {
        let r = try repo()
        let res = try tagwarden(["policy", "eval", "--policy", "flux-system/web", "--tags", "tags.txt"], in: r.path)
        #expect(res.code == 0)
        #expect(res.stdout == "selected: production-v1.10.0-abc1234-2\nlatestRef: ghcr.io/acme/web:production-v1.10.0-abc1234-2\n")
        let explained = try tagwarden(["policy", "eval", "--policy", "flux-system:web", "--tags", "tags.txt", "--explain", "--format", "json"], in: r.path)
        let obj = try JSONSerialization.jsonObject(with: Data(explained.stdout.utf8)) as? [String: Any]
        #expect(obj?["selected"] as? String == "production-v1.10.0-abc1234-2")
        #expect(obj?["error"] is NSNull)
        let verdicts = (obj?["tags"] as? [[String: Any]] ?? []).map { "\($0["tag"]!) \($0["verdict"]!)" }
        #expect(verdicts == ["staging-v2.0.0-abc1234-3 filtered-out", "production-v1.9.9-abc1234-4.sig excluded",
                             "production-v1.2.3-abc1234-1 ranked", "production-v1.10.0-abc1234-2 selected"])
    }

    @Test func inlinePolicyOnStdinAndJSON() throws {
        let r = try repo()
        let res = try tagwarden(["policy", "eval", "--numerical", "desc", "--pattern=-(?P<ts>[0-9]+)$", "--extract", "$ts", "--tags", "-"],
                                in: r.path, stdin: tags)
        #expect(res.code == 0 && res.stdout.hasPrefix("selected: production-v1.2.3-abc1234-1\n"))
        let json = try tagwarden(["policy", "eval", "--alphabetical", "asc", "--tags", "-", "--format", "json"], in: r.path,
                                 stdin: #"{"tags": ["b", "a", "c"]}"#)
        #expect(json.code == 0 && json.stdout.contains("\"selected\": \"c\""))
        let array = try tagwarden(["policy", "eval", "--semver", "~1.2", "--tags", "-"], in: r.path, stdin: #"["1.2.0", "1.2.7", "1.3.0"]"#)
        #expect(array.stdout == "selected: 1.2.7\n")
    }

    @Test func noTagSelectedIsExitOne() throws {
        let r = try repo()
        let res = try tagwarden(["policy", "eval", "--numerical", "asc", "--tags", "-"], in: r.path, stdin: "1\nlatest\n")
        #expect(res.code == 1)
        #expect(res.stdout == "no tag selected: failed to parse invalid numeric value 'latest'\n")
        let json = try tagwarden(["policy", "eval", "--semver", ">=9", "--tags", "-", "--format", "json"], in: r.path, stdin: "1.0.0\n")
        #expect(json.code == 1 && json.stdout.contains("\"error\": \"unable to determine latest version from provided list\""))
        // an extract that names no group of the pattern: Flux expands it to nothing, and so does eval, saying so
        let group = try tagwarden(["policy", "eval", "--semver", ">=1.0.0", "--pattern", "^v(?P<v>.*)$", "--extract", "$w",
                                   "--tags", "-"], in: r.path, stdin: "v1.0.0\n")
        #expect(group.code == 1 && group.stderr == "tagwarden: note: extract '$w' names no group 'w' of the pattern: that part of every key is empty, as in Flux\n", "\(group.stderr)")
    }

    @Test func invalidInputIsExitTwo() throws {
        let r = try repo()
        let unknown = try tagwarden(["policy", "eval", "--policy", "flux-system/wbe", "--tags", "tags.txt"], in: r.path)
        #expect(unknown.code == 2)
        #expect(unknown.stderr.contains("no ImagePolicy flux-system/wbe") && unknown.stderr.contains("did you mean 'flux-system/web'?"))
        let range = try tagwarden(["policy", "eval", "--semver", ">= latest", "--tags", "tags.txt"], in: r.path)
        #expect(range.code == 2 && range.stderr == "tagwarden: error: invalid policy: semver parse error: improper constraint: >= latest\n")
        let pattern = try tagwarden(["policy", "eval", "--semver", ">=1", "--pattern", "(?=x)", "--tags", "tags.txt", "--format", "json"], in: r.path)
        #expect(pattern.code == 2 && pattern.stdout.contains("invalid regular expression pattern '(?=x)': error parsing regexp: invalid or unsupported Perl syntax: `(?=`"))
        let order = try tagwarden(["policy", "eval", "--numerical", "up", "--tags", "tags.txt"], in: r.path)
        #expect(order.code == 2 && order.stderr.contains("invalid order argument provided: 'UP', must be one of: ASC, DESC"))
        let empty = try tagwarden(["policy", "eval", "--semver", ">=1", "--tags", "-"], in: r.path, stdin: "\n  \n")
        #expect(empty.code == 2 && empty.stderr.contains("the tag list is empty"))
        let badJSON = try tagwarden(["policy", "eval", "--semver", ">=1", "--tags", "-"], in: r.path, stdin: "[1, 2]")
        #expect(badJSON.code == 2 && badJSON.stderr.contains("JSON entry 0 is not a string"))
        let missing = try tagwarden(["policy", "eval", "--semver", ">=1", "--tags", "nope.txt"], in: r.path)
        #expect(missing.code == 2 && missing.stderr.contains("nope.txt: cannot be read"))
        #expect(try tagwarden(["policy", "eval", "--tags", "tags.txt"], in: r.path).code == 2)
        // the policy's name given where the path goes
        let asPath = try tagwarden(["policy", "eval", "flux-system/web", "--tags", "tags.txt"], in: r.path)
        #expect(asPath.code == 2 && asPath.stderr.contains("(did you mean --policy flux-system/web?)"))
        // two orderings at once is not a policy Flux could hold
        let two = try tagwarden(["policy", "eval", "--semver", ">=1.0.0", "--numerical", "asc", "--tags", "tags.txt"], in: r.path)
        #expect(two.code == 2 && two.stderr.contains("give one of --semver, --numerical and --alphabetical"), "\(two.stderr)")
    }

    /// Two clusters define flux-system/web (their rules: FluxRuleTests): the PATH says which cluster's policy, and
    /// without one the name is ambiguous.
    @Test func thePathSaysWhichClustersPolicy() throws {
        let r = try TempRepo()
        try r.write(severalClustersWithTheSameNames())
        let tags = "staging-v1.0.0-a-1\nproduction-v2.0.0-b-2\n"
        let staging = try tagwarden(["policy", "eval", "clusters/staging", "--policy", "flux-system/web", "--tags", "-"], in: r.path, stdin: tags)
        #expect(staging.code == 0 && staging.stdout.contains("selected: staging-v1.0.0-a-1"), "\(staging.stdout) \(staging.stderr)")
        let ambiguous = try tagwarden(["policy", "eval", "--policy", "flux-system/web", "--tags", "-"], in: r.path, stdin: tags)
        #expect(ambiguous.code == 2 && ambiguous.stderr.contains("flux-system/web is defined in clusters/production/web.yaml and clusters/staging/web.yaml"),
                "\(ambiguous.stderr)")
    }

    @Test func fluxVersionSwitchesTheRegime() throws {
        let r = try repo()
        // before 2.7 the prerelease needed a prerelease in the same term; 2.7+ looks at the whole group
        let current = try tagwarden(["policy", "eval", "--semver", ">=1.0.0-0 <2.0.0", "--tags", "-"], in: r.path, stdin: "1.5.0-rc.1\n")
        #expect(current.stdout == "selected: 1.5.0-rc.1\n")
        let legacy = try tagwarden(["policy", "eval", "--semver", ">=1.0.0-0 <2.0.0", "--flux-version", "2.6", "--tags", "-"], in: r.path, stdin: "1.5.0-rc.1\n")
        #expect(legacy.code == 1)
        let leadingZeros = try tagwarden(["policy", "eval", "--semver", ">=2025.0.0", "--flux-version", "2.6", "--tags", "-"], in: r.path, stdin: "v2025.07.03\n")
        #expect(leadingZeros.code == 1)
    }
}
