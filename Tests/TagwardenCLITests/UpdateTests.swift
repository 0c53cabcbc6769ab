import TagwardenFixtures
import Foundation
import Testing

/// `tagwarden update` end to end: a real repository, the real binary.
@Suite struct UpdateTests {
    static let marker = #"# {"$imagepolicy": "flux-system:web"}"#
    static let tagMarker = #"# {"$imagepolicy": "flux-system:web:tag"}"#
    static let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  template:\n    spec:\n"
        + "      containers:\n      - name: web\n        image: ghcr.io/acme/web:1.0.0 \(marker)\n"
    static let kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [web.yaml]\n\nimages:\n"
        + "- name: ghcr.io/acme/web\n  newTag: 1.0.0 \(tagMarker)\n"

    func repo() throws -> TempRepo {
        let r = try TempRepo()
        try r.write([
            "flux/images.yaml": [imageRepository(), imagePolicy(), imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n"),
            "apps/web.yaml": Self.deployment,
            "apps/kustomization.yaml": Self.kustomization,
        ])
        try r.write("tags.yaml", "ghcr.io/acme/web: ['1.0.0', '1.1.0', '0.9.0']\n")
        try r.commitAll("fleet")
        return r
    }

    @Test func dryRunPrintsAPatchGitAppliesAndExitsThree() throws {
        let r = try repo()
        let res = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(res.code == 3, "\(res.described)")
        #expect(res.stdout == """
        --- a/apps/kustomization.yaml
        +++ b/apps/kustomization.yaml
        @@ -4,4 +4,4 @@ resources: [web.yaml]
         
         images:
         - name: ghcr.io/acme/web
        -  newTag: 1.0.0 \(Self.tagMarker)
        +  newTag: 1.1.0 \(Self.tagMarker)
        --- a/apps/web.yaml
        +++ b/apps/web.yaml
        @@ -8,4 +8,4 @@ spec:
             spec:
               containers:
               - name: web
        -        image: ghcr.io/acme/web:1.0.0 \(Self.marker)
        +        image: ghcr.io/acme/web:1.1.0 \(Self.marker)

        """)
        #expect(res.stderr == "tagwarden: flux-system/apps (./apps): 2 changes in 2 files\n"
                + "tagwarden: 2 changes in 2 files pending (--write writes them, --commit commits them)\n")
        // nothing was written, and the patch applies
        #expect(try r.git("status", "--porcelain").stdout == "")
        try r.write("p.patch", res.stdout)
        try r.git("apply", "p.patch")
        #expect(try String(contentsOfFile: r.path + "/apps/web.yaml", encoding: .utf8) == Self.deployment.replacingOccurrences(of: ":1.0.0", with: ":1.1.0"))
    }

    @Test func writeWritesAtomicallyKeepsTheModeAndASecondRunIsUpToDate() throws {
        let r = try repo()
        try r.git("update-index", "--chmod=+x", "apps/web.yaml")
        chmod(r.path + "/apps/web.yaml", 0o751)
        try r.git("commit", "-qam", "mode")
        let res = try tagwarden(["update", "--tags", "tags.yaml", "--write"], in: r.path)
        #expect(res.code == 0, "\(res.described)")
        #expect(res.stdout == "apps/kustomization.yaml:7: 1.0.0 -> 1.1.0 (flux-system:web:tag)\n"
                + "apps/web.yaml:11: ghcr.io/acme/web:1.0.0 -> ghcr.io/acme/web:1.1.0 (flux-system:web)\n")
        #expect(try String(contentsOfFile: r.path + "/apps/kustomization.yaml", encoding: .utf8)
                == Self.kustomization.replacingOccurrences(of: "newTag: 1.0.0", with: "newTag: 1.1.0"))
        var st = stat()
        stat(r.path + "/apps/web.yaml", &st)
        #expect(st.st_mode & 0o777 == 0o751)
        #expect(try FileManager.default.contentsOfDirectory(atPath: r.path + "/apps").sorted() == ["kustomization.yaml", "web.yaml"])
        let again = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(again.code == 0 && again.stdout.isEmpty, "\(again.described)")
        #expect(again.stderr.hasSuffix("tagwarden: up to date\n"))
    }

    @Test func writeRefusesFilesWithUncommittedChangesUnlessForced() throws {
        let r = try repo()
        let edited = Self.deployment + "# my edit\n"
        try r.write("apps/web.yaml", edited)
        let res = try tagwarden(["update", "--tags", "tags.yaml", "--write"], in: r.path)
        #expect(res.code == 2)
        #expect(res.stderr == "tagwarden: error: apps/web.yaml has uncommitted changes: commit or stash them, or use --force to write over them\n")
        // nothing written, not even the clean file
        #expect(try r.git("status", "--porcelain").stdout == " M apps/web.yaml\n")
        let forced = try tagwarden(["update", "--tags", "tags.yaml", "--write", "--force"], in: r.path)
        #expect(forced.code == 0, "\(forced.described)")
        #expect(try String(contentsOfFile: r.path + "/apps/web.yaml", encoding: .utf8) == edited.replacingOccurrences(of: ":1.0.0", with: ":1.1.0"))
    }

    /// A cluster whose Flux Kustomization substitutes from a ConfigMap made outside the repository (by Terraform, say),
    /// and an ImageRepository whose image comes from it.
    func repoWithOutsideVariables() throws -> TempRepo {
        let r = try TempRepo()
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps", spec: "  postBuild:\n    substituteFrom:\n"
                                                             + "      - {kind: ConfigMap, name: cluster-vars}\n")
        files["apps/images.yaml"] = [imageRepository(image: "\"${image_registry}/web\""), imagePolicy(),
                                     imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n")
        files["apps/web.yaml"] = Self.deployment
        try r.write(files)
        try r.write("tags.yaml", "ghcr.io/acme/web: ['1.0.0', '1.1.0']\n")
        try r.commitAll("fleet")
        return r
    }

    @Test func variablesFromOutsideTheRepositoryAreNamedAndTheConfigSuppliesThem() throws {
        let r = try repoWithOutsideVariables()
        // the image Flux reads is not known here: no finding claims it is invalid
        let audit = try r.audit("--format", "json")
        #expect(!audit.findings.contains { $0.hasPrefix("object-invalid") }, "\(audit.described)")
        // the topology names the variable
        let topology = try JSONSerialization.jsonObject(with: Data(try tagwarden(["env", "--format", "json"], in: r.path).stdout.utf8)) as? [String: Any] ?? [:]
        let unresolved = topology["unresolvedVariables"] as? [[String: Any]] ?? []
        #expect(unresolved.count == 1 && unresolved.first?["variables"] as? [String] == ["image_registry"]
                && unresolved.first?["text"] as? String == "${image_registry}/web", "\(unresolved)")
        let images = (topology["clusters"] as? [[String: Any]])?.first?["images"] as? [[String: Any]] ?? []
        #expect(images.map { "\($0["kind"]!) \($0["name"]!) \($0["container"]!) \($0["image"]!)" } == ["Deployment web web ghcr.io/acme/web:1.0.0", "Deployment source-controller manager ghcr.io/fluxcd/source-controller:v1.3.0"])
        let unknown = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(unknown.code == 1, "\(unknown.described)")
        #expect(unknown.stderr.contains("ImagePolicy flux-system/web selects no tag: its ImageRepository's image '${image_registry}/web' uses ${image_registry}, "
                                        + "which nothing in this repository gives one value (a ConfigMap or Secret made elsewhere, or builds that "
                                        + "disagree): set it under substitute: of its cluster in .tagwarden.yaml"), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("invalid image ref"))
        // the config gives the value: the update runs as Flux's would, with the image the substitution makes
        try r.write(".tagwarden.yaml", "clusters:\n  - name: clusters/prod\n    substitute: {image_registry: ghcr.io/acme}\n")
        let known = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(known.code == 3, "\(known.described)")
        #expect(known.stdout.contains("+        image: ghcr.io/acme/web:1.1.0 \(Self.marker)\n"), "\(known.stdout)")
        let env = try tagwarden(["env"], in: r.path)
        #expect(env.stdout.contains("  cluster clusters/prod: Flux 2.7.0 ("), "\(env.stdout)")
        #expect(env.stdout.contains("    substitutes: image_registry (from the config)\n"), "\(env.stdout)")
        let declared = try JSONSerialization.jsonObject(with: Data(try tagwarden(["env", "--format", "json"], in: r.path).stdout.utf8)) as? [String: Any]
        #expect((declared?["unresolvedVariables"] as? [Any])?.isEmpty == true)
    }

    @Test func aPolicyThatSelectsNothingIsAnErrorAndItsMarkersStay() throws {
        let r = try repo()
        try r.write("tags.yaml", "ghcr.io/acme/web: ['0.1.0']\n")
        let res = try tagwarden(["update", "--tags", "tags.yaml", "--explain"], in: r.path)
        #expect(res.code == 1, "\(res.described)")
        #expect(res.stdout == """
        ImagePolicy flux-system/web: selects nothing: unable to determine latest version from provided list
        ImageUpdateAutomation flux-system/apps (update.path ./apps)
          apps/kustomization.yaml:7:11 flux-system:web:tag: skipped: ImagePolicy flux-system/web selects no tag: unable to determine latest version from provided list
          apps/web.yaml:11:16 flux-system:web: skipped: ImagePolicy flux-system/web selects no tag: unable to determine latest version from provided list

        """)
        #expect(res.stderr.hasPrefix("tagwarden: error: ImagePolicy flux-system/web selects no tag: unable to determine latest version from provided list\n"))
    }

    @Test func jsonSaysEverything() throws {
        let r = try repo()
        let res = try tagwarden(["update", "--tags", "-", "--format", "json"], in: r.path, stdin: #"{"ghcr.io/acme/web": ["1.2.0"]}"#)
        #expect(res.code == 3, "\(res.described)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(res.stdout.utf8)) as? [String: Any])
        #expect(json["upToDate"] as? Bool == false)
        #expect(json["mode"] as? String == "dry-run")
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["apps/kustomization.yaml", "apps/web.yaml"])
        let change = try #require((files[1]["changes"] as? [[String: Any]])?.first)
        #expect(change["old"] as? String == "ghcr.io/acme/web:1.0.0")
        #expect(change["new"] as? String == "ghcr.io/acme/web:1.2.0")
        #expect(change["line"] as? Int == 11)
        #expect((change["object"] as? [String: String]) == ["apiVersion": "apps/v1", "kind": "Deployment", "namespace": "apps", "name": "web"])
        let policies = try #require(json["policies"] as? [[String: Any]])
        #expect(policies.first?["tag"] as? String == "1.2.0")
    }

    @Test func badTagsAndUnknownAutomationsAreUsageErrors() throws {
        let r = try repo()
        let bad = try tagwarden(["update", "--tags", "-"], in: r.path, stdin: "ghcr.io/acme/web: 1.0\n")
        #expect(bad.code == 2)
        #expect(bad.stderr == "tagwarden: error: <stdin>:1:19: the tags of ghcr.io/acme/web must be a list\n")
        let unknown = try tagwarden(["update", "--tags", "tags.yaml", "--automation", "flux-system/nope"], in: r.path)
        #expect(unknown.code == 2)
        #expect(unknown.stderr == "tagwarden: error: no ImageUpdateAutomation flux-system/nope in the repository; it has flux-system/apps\n")
    }

    /// dhairya221b/cd-test: an automation in namespace test-cd reads GitRepository flux-system of its own namespace,
    /// which neither the repository nor bootstrap's sync makes; Flux fails it, so update writes nothing for it.
    @Test func anAutomationOfAGitRepositoryThatIsNowhereIsNotRun() throws {
        let r = try repo()
        try r.write(bootstrapFiles("clusters/prod", flux: "v2.8.0"))
        try r.write("clusters/prod/apps.yaml", fluxKustomizations([("flux", "./flux"), ("apps", "./apps")]))
        try r.write("flux/images.yaml", [imageRepository(), imagePolicy(),
                                         imageUpdateAutomation(name: "apps", namespace: "test-cd", path: "./apps")].joined(separator: "---\n"))
        let res = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(res.code == 0 && res.stdout == "", "\(res.described)")
        #expect(res.stderr == "tagwarden: test-cd/apps in cluster clusters/prod: not run: its GitRepository test-cd/flux-system is not in the "
                + "repository, so Flux fails it (automation-unknown-source)\ntagwarden: up to date\n", "\(res.described)")
    }

    @Test func suspendedAutomationsAreSkippedWithANote() throws {
        let r = try repo()
        try r.write("flux/images.yaml", [imageRepository(), imagePolicy(),
                                         imageUpdateAutomation(name: "apps", path: "./apps") + "  suspend: true\n"].joined(separator: "---\n"))
        let res = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(res.code == 0, "\(res.described)")
        #expect(res.stderr == "tagwarden: flux-system/apps: not run: suspended (spec.suspend: true)\ntagwarden: up to date\n")
    }

    @Test func aSkippedAutomationsSelectorIsNotJudged() throws {
        // the runs' setter tables are made before the runs: the error of a table whose run is skipped is not the run's
        let r = try repo()
        try r.write("flux/images.yaml", [imageRepository(), imagePolicy(),
                                         imageUpdateAutomation(name: "apps", path: "./apps") + "  suspend: true\n"
                                            + "  policySelector: {matchExpressions: [{key: team, operator: In, values: [web]}]}\n"].joined(separator: "---\n"))
        let res = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(res.code == 0, "\(res.described)")
        #expect(res.stderr == "tagwarden: flux-system/apps: not run: suspended (spec.suspend: true)\ntagwarden: up to date\n", "\(res.described)")
        // and where the run is reached, the selector's error is the run's
        try r.write("flux/images.yaml", [imageRepository(), imagePolicy(),
                                         imageUpdateAutomation(name: "apps", path: "./apps")
                                            + "  policySelector: {matchExpressions: [{key: team, operator: In, values: [web]}]}\n"].joined(separator: "---\n"))
        let reached = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(reached.code == 2 && reached.stderr.contains("its policySelector has matchExpressions"), "\(reached.described)")
    }
}

extension UpdateTests {
    @Test func theCommitMessageFollowsTheRepositorysFlux() throws {
        let r = try repo()
        try r.write("flux/images.yaml", [imageRepository(), imagePolicy(), imageUpdateAutomation(name: "apps", path: "./apps")
            + "  git:\n    commit:\n      author: {email: bot@example.com}\n      messageTemplate: '{{range .Updated.Images}}{{println .}}{{end}}'\n"
            + "    push: {branch: main}\n"].joined(separator: "---\n").replacingOccurrences(of: "  git: {commit: {author: {email: bot@example.com}}, push: {branch: main}}\n", with: ""))
        // current Flux removed .Updated, and it is only assumed here: a warning that names the assumption
        let assumed = try tagwarden(["update", "--tags", "tags.yaml", "--format", "json"], in: r.path)
        #expect(assumed.code == 3, "\(assumed.described)")
        let warnings = try #require(try JSONSerialization.jsonObject(with: Data(assumed.stdout.utf8)) as? [String: Any])["warnings"] as? [String]
        #expect(warnings == ["ImageUpdateAutomation flux-system/apps: template uses removed '.Updated' field. Please use '.Changed' instead. "
                             + "See: https://fluxcd.io/flux/components/image/imageupdateautomations/#message-template (no Flux version is written "
                             + "here, so current Flux (2.9) is assumed: this holds for current Flux; set fluxVersion in .tagwarden.yaml)"])
        // named: the run is an error, as the automation would stall
        try r.write(".tagwarden.yaml", "fluxVersion: \"2.7\"\n")
        let current = try tagwarden(["update", "--tags", "tags.yaml", "--format", "json"], in: r.path)
        #expect(current.code == 1, "\(current.described)")
        #expect(current.stdout.contains("template uses removed '.Updated' field. Please use '.Changed' instead."))
        // on Flux 2.4 it renders
        try r.write(".tagwarden.yaml", "fluxVersion: \"2.4\"\n")
        let old = try tagwarden(["update", "--tags", "tags.yaml", "--format", "json"], in: r.path)
        #expect(old.code == 3, "\(old.described)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(old.stdout.utf8)) as? [String: Any])
        let automation = try #require((json["automations"] as? [[String: Any]])?.first)
        #expect(automation["message"] as? String == "ghcr.io/acme/web:1.1.0\n")
    }

    @Test func aTemplateOfAnAutomationIsNotRun() throws {
        let r = try repo()
        try r.write("flux/template.yaml", imageUpdateAutomation(name: "'${BRANCH}-apps'", path: "./apps"))
        let res = try tagwarden(["update", "--tags", "tags.yaml"], in: r.path)
        #expect(res.stderr.hasPrefix("tagwarden: flux-system/${BRANCH}-apps: not run: it is a template: '${BRANCH}-apps' holds variables nothing here substitutes\n"),
                "\(res.described)")
    }
}

extension UpdateTests {
    /// A staging policy loose enough to take production's tags, and production's policy that takes only those.
    func stagingRepo() throws -> TempRepo {
        let r = try TempRepo()
        let version = #"(?P<v>[0-9]+\.[0-9]+\.[0-9]+)-[0-9a-f]+$"#
        try r.write([
            "flux/images.yaml": [imageRepository(), imageRepository(name: "api", image: "ghcr.io/acme/api"),
                                 imagePolicy(name: "web-staging", repository: "web", pattern: ".*-v" + version, extract: "$v"),
                                 imagePolicy(name: "web-production", repository: "web", pattern: "^production-v" + version, extract: "$v"),
                                 imagePolicy(name: "api-staging", repository: "api", pattern: "^staging-v" + version, extract: "$v"),
                                 imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n"),
            "apps/staging/web.yaml": TagwardenFixtures.deployment(namespace: "staging", image: "ghcr.io/acme/web:staging-v1.0.0-abc", marker: "flux-system:web-staging"),
            "apps/staging/api.yaml": TagwardenFixtures.deployment(name: "api", namespace: "staging", image: "ghcr.io/acme/api:staging-v1.0.0-abc",
                                                marker: "flux-system:api-staging"),
            "apps/production/web.yaml": TagwardenFixtures.deployment(namespace: "production", image: "ghcr.io/acme/web:production-v1.0.0-abc",
                                                   marker: "flux-system:web-production"),
        ])
        try r.write(bootstrapFiles("clusters/main", flux: "v2.7.0").merging([
            "clusters/main/apps.yaml": fluxKustomizations([("apps", "./apps"), ("flux", "./flux")]),
            ".tagwarden.yaml": "environments:\n  - {name: staging, namespaces: [staging], tagPrefix: staging-}\n"
                + "  - {name: production, namespaces: [production], tagPrefix: production-}\npromotedImages: ['ghcr.io/acme/*']\n",
        ]) { a, _ in a })
        try r.write("tags.yaml", "ghcr.io/acme/web: [staging-v1.0.0-abc, staging-v1.1.0-bcd, production-v1.2.0-cde]\n"
                    + "ghcr.io/acme/api: [staging-v1.0.0-abc, staging-v2.0.0-def]\n")
        try r.commitAll("fleet")
        return r
    }

    @Test func aValueTheLinterRejectsIsNotWrittenUnlessAllowed() throws {
        let r = try stagingRepo()
        let res = try tagwarden(["update", "--tags", "tags.yaml", "--write"], in: r.path)
        #expect(res.code == 0, "\(res.described)")
        #expect(res.stdout == "apps/production/web.yaml:9: ghcr.io/acme/web:production-v1.0.0-abc -> ghcr.io/acme/web:production-v1.2.0-cde (flux-system:web-production)\n"
                + "apps/staging/api.yaml:9: ghcr.io/acme/api:staging-v1.0.0-abc -> ghcr.io/acme/api:staging-v2.0.0-def (flux-system:api-staging)\n")
        #expect(res.stderr.hasPrefix("tagwarden: warning: apps/staging/web.yaml:9: flux-system:web-staging: not written: image-env-prefix: tag "
                                     + "'production-v1.2.0-cde' of promoted image 'ghcr.io/acme/web' lacks the staging prefix 'staging-'"), "\(res.described)")
        #expect(res.stderr.contains("(--allow-findings writes it)\n"))
        // the audit after the update finds nothing the update wrote
        let audit = try tagwarden(["audit", "--format", "json"], in: r.path)
        #expect(!audit.stdout.contains("production-v1.2.0-cde' of promoted image 'ghcr.io/acme/web' lacks the staging prefix"))
        let allowed = try tagwarden(["update", "--tags", "tags.yaml", "--allow-findings"], in: r.path)
        #expect(allowed.code == 3)
        #expect(allowed.stdout.contains("+          image: ghcr.io/acme/web:production-v1.2.0-cde"), "\(allowed.described)")
    }

    @Test func imageAndPartialLimitARunToSomeImages() throws {
        let r = try stagingRepo()
        let api = try tagwarden(["update", "--tags", "tags.yaml", "--image", "ghcr.io/acme/api", "--format", "json"], in: r.path)
        #expect(api.code == 3, "\(api.described)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(api.stdout.utf8)) as? [String: Any])
        #expect((json["files"] as? [[String: Any]])?.map { $0["path"] as? String } == ["apps/staging/api.yaml"])
        #expect(json["notes"] as? [String] == ["--image: the fields of 2 other ImagePolicies are left alone"])
        #expect(json["errors"] as? [String] == [])
        // a tag list of one image: each policy of another is an error, unless --partial
        try r.write("api.yaml", "ghcr.io/acme/api: [staging-v2.0.0-def]\n")
        let strict = try tagwarden(["update", "--tags", "api.yaml"], in: r.path)
        #expect(strict.code == 1)
        #expect(strict.stderr.contains("tagwarden: error: ImagePolicy flux-system/web-staging selects no tag: the tag source has no tags of ghcr.io/acme/web\n"))
        let partial = try tagwarden(["update", "--tags", "api.yaml", "--partial"], in: r.path)
        #expect(partial.code == 3, "\(partial.described)")
        #expect(partial.stderr.hasPrefix("tagwarden: note: ImagePolicy flux-system/web-staging: left alone: the tag list has no tags of ghcr.io/acme/web (--partial)\n"
                                         + "tagwarden: note: ImagePolicy flux-system/web-production: left alone: the tag list has no tags of ghcr.io/acme/web (--partial)\n"),
                "\(partial.described)")
        let bad = try tagwarden(["update", "--tags", "api.yaml", "--image", "ghcr.io/acme/api:1.0"], in: r.path)
        #expect(bad.code == 2)
    }
}
