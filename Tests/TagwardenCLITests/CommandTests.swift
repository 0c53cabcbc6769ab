import TagwardenFixtures
import Foundation
import Testing

@Suite struct CommandTests {
    /// An empty directory to run the commands in, so that none of them could read anything else.
    let empty: TempRepo
    var here: String { empty.path }

    init() throws { empty = try TempRepo(git: false) }

    @Test func versionAndHelp() throws {
        let v = try tagwarden(["--version"], in: here)
        #expect(v.code == 0 && v.stdout == "0.1.0\n")
        for cmd in [[], ["audit"], ["check"], ["install-hook"], ["policy"], ["policy", "eval"], ["init"], ["env"], ["rules"], ["explain"]] {
            let h = try tagwarden(cmd + ["--help"], in: here)
            #expect(h.code == 0, "\(cmd)")
            #expect(h.stdout.contains("USAGE: tagwarden"), "\(cmd)")
        }
        let audit = try tagwarden(["audit", "--help"], in: here)
        #expect(audit.stdout.contains("--rev <rev>") && audit.stdout.contains("--fail-on <fail-on>"))
    }

    @Test func rulesAndExplain() throws {
        let rules = try tagwarden(["rules"], in: here)
        #expect(rules.stdout.contains("image-latest-tag"))
        #expect(rules.stdout.contains("error    An image's tag is `latest`"))
        let json = try tagwarden(["rules", "--format", "json"], in: here)
        let list = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(list?.contains { $0["id"] as? String == "image-not-pinned" && $0["severity"] as? String == "error" } == true)
        // the commands that print data offer (and list in --help) only text and json; rules also Markdown (docs/rules.md)
        for command in [["env"], ["policy", "eval", "--semver", "*", "--tags", "-"]] {
            let sarif = try tagwarden(command + ["--format", "sarif"], in: here)
            #expect(sarif.code == 2 && sarif.stderr.contains("Please provide one of 'text' and 'json'"), "\(command) \(sarif.stderr)")
            #expect(try tagwarden(command + ["--help"], in: here).stdout.contains("(values: text, json;"), "\(command)")
        }
        let sarif = try tagwarden(["rules", "--format", "sarif"], in: here)
        #expect(sarif.code == 2 && sarif.stderr.contains("Please provide one of 'text', 'json' or 'markdown'"), "\(sarif.stderr)")
        let markdown = try tagwarden(["rules", "--format", "markdown"], in: here)
        #expect(markdown.code == 0 && markdown.stdout.hasPrefix("# Rules\n") && markdown.stdout.contains("\n## image-latest-tag\n"))
        let explain = try tagwarden(["explain", "image-tag-not-string"], in: here)
        #expect(explain.code == 0)
        #expect(explain.stdout.hasPrefix("image-tag-not-string (warning)\n"))
        #expect(explain.stdout.contains("→ image-tag-not-string at apps/db.yaml:9:12"))
        let unknown = try tagwarden(["explain", "image-latest"], in: here)
        #expect(unknown.code == 2 && unknown.stderr.contains("did you mean 'image-latest-tag'"))
        // an example with CRLF line ends is shown indented line by line ("\r\n" is one Character in Swift)
        #expect(try tagwarden(["explain", "yaml-syntax"], in: here).stdout.contains("a: 1\n    ---\n    b: 2\n\n"))
        let typo = try tagwarden(["audti", "."], in: here)
        #expect(typo.code == 2)
        #expect(typo.stderr == "tagwarden: error: unknown command 'audti' (did you mean 'audit'?); commands: audit, check, baseline, install-hook, policy, update, promote, rollback, graph, init, env, rules, explain, completion\n")
        #expect(try tagwarden(["help", "audit"], in: here).stdout.hasPrefix("OVERVIEW: Lint a working tree"))
    }

    @Test func copiedBinaryCarriesTheCatalogue() throws {
        let dir = try TempRepo(git: false)
        try FileManager.default.copyItem(atPath: binary, toPath: dir.path + "/tw")
        let res = try run(dir.path + "/tw", ["explain", "image-env-prefix"], cwd: dir.path)
        #expect(res.code == 0 && res.stdout.contains("promoted"))
    }

    func fleet() throws -> TempRepo {
        let r = try TempRepo()
        try r.write("infra/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    environment: prod\n")
        try r.write("apps/shop/web.yaml", pod("web", namespace: "shop", images: ["ghcr.io/acme/web:production-v1.0.0-abc1234-1"]))
        try r.write("clusters/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.0.0-abc1234-1"]))
        let policy = { (name: String, pattern: String) in
            "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata:\n  name: \(name)\n  namespace: flux-system\nspec:\n  imageRepositoryRef:\n    name: web\n  filterTags:\n    pattern: '\(pattern)'\n  policy:\n    alphabetical: {}\n"
        }
        try r.write("clusters/staging/p1.yaml", policy("a", "^stg-[0-9]+"))
        try r.write("clusters/staging/p2.yaml", policy("b", "^stg-v.*"))
        // a prefix is an environment's only when another environment has another
        try r.write("clusters/production/p3.yaml", policy("c", "^production-[0-9]+"))
        try r.write("clusters/production/p4.yaml", policy("d", "^production-v.*"))
        try r.write("flux/repo.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  image: ghcr.io/acme/web\n")
        return r
    }

    @Test func envShowsTheModelAndItsOrigins() throws {
        let r = try fleet()
        let res = try tagwarden(["env"], in: r.path)
        #expect(res.code == 0)
        #expect(res.stdout.hasPrefix("Environment model: inferred from the repository\n"))
        #expect(res.stdout.contains("staging\n  aliases:        stage, staging, stg\n  tag prefix:     stg-  (inferred from 2 of 2 ImagePolicies)\n"))
        let strict = try tagwarden(["env", "--profile", "strict", "--format", "json"], in: r.path)
        let obj = try JSONSerialization.jsonObject(with: Data(strict.stdout.utf8)) as? [String: Any]
        let envs = obj?["environments"] as? [[String: Any]] ?? []
        #expect(envs.map { $0["name"] as? String } == ["development", "staging", "production"])
        #expect(envs[2]["requireDigest"] as? Bool == true)
        #expect((envs[2]["origin"] as? [String: Any])?["tagPattern"] as? String == "--profile strict")
    }

    @Test func inferredPrefixDrivesEnvPrefixFindings() throws {
        let r = try fleet()
        // staging's policies say stg-: the staging-… tag breaks the convention they share
        let res = try r.audit("--format", "json")
        #expect(res.findings.filter { $0.hasPrefix("image-") } == ["image-env-prefix clusters/staging/web.yaml:8:14"])
    }

    @Test func initWritesTheConfigOnce() throws {
        let r = try fleet()
        let before = try r.audit("--format", "json").findings
        let res = try tagwarden(["init"], in: r.path)
        #expect(res.code == 0 && res.stderr == "wrote \(r.path)/.tagwarden.yaml\n")
        let text = try String(contentsOfFile: r.path + "/.tagwarden.yaml", encoding: .utf8)
        // what the repository does today: production's tags all have production-; staging's policies say stg- while
        // its tag says staging-, so neither is written
        #expect(!text.contains("\nprofile: strict"))
        #expect(text.contains("  - name: production\n    aliases: [prod, production]\n    paths: ['clusters/production/**']\n    namespaces: [shop]\n"
                              + "    tagPrefix: production-  # what every production tag seen has\n"), "\(text)")
        #expect(text.contains("  - name: staging\n    aliases: [stage, staging, stg]\n    paths: ['clusters/staging/**']\n    # tag prefixes seen: staging-\n"))
        // the strict profile offered, each setting with what it would add
        #expect(text.contains("#   production: requireDigest: true  # 1 finding\n#   production: requireReview: true  # 0 findings\n"), "\(text)")
        // the audit right after init reports what it reported before: init made no finding
        #expect(try r.audit("--format", "json").findings == before)
        // what init wrote is a valid config
        let env = try tagwarden(["env"], in: r.path)
        #expect(env.code == 0 && env.stdout.contains("Environment model: config .tagwarden.yaml"), "\(env.stdout)")
        // each setting names its own line, not the line of its environment's entry
        let pathsLine = try #require(text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex(of: "    paths: ['clusters/staging/**']")) + 1
        #expect(env.stdout.contains("  paths:          clusters/staging/**  (.tagwarden.yaml:\(pathsLine))\n"), "\(env.stdout)")
        let again = try tagwarden(["init"], in: r.path)
        #expect(again.code == 2 && again.stderr.contains("exists; use --force"))
        #expect(try tagwarden(["init", "--force"], in: r.path).code == 0)
    }
}

extension CommandTests {
    /// The completion scripts are the shells' own: bash takes its script, and an unknown shell is a usage error.
    @Test func completionScriptsForBashZshAndFish() throws {
        let dir = try TempRepo(git: false)
        let bash = try tagwarden(["completion", "bash"], in: dir.path)
        #expect(bash.code == 0 && bash.stdout.contains("promote") && bash.stdout.contains("--registry-time-limit"), "\(bash.described)")
        try dir.write("tagwarden.bash", bash.stdout)
        let loaded = try run("/bin/bash", ["-c", "source ./tagwarden.bash && complete -p tagwarden"], cwd: dir.path)
        #expect(loaded.code == 0 && loaded.stdout.contains("tagwarden"), "\(loaded.described)")
        #expect(try tagwarden(["completion", "zsh"], in: dir.path).stdout.hasPrefix("#compdef tagwarden"))
        #expect(try tagwarden(["completion", "fish"], in: dir.path).stdout.contains("complete -c 'tagwarden'"))
        let unknown = try tagwarden(["completion", "tcsh"], in: dir.path)
        #expect(unknown.code == 2 && unknown.stderr.contains("the shell must be bash, zsh or fish, not 'tcsh'"), "\(unknown.described)")
    }
}
