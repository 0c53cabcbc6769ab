import Foundation
import Testing

let digest = "sha256:" + String(repeating: "ab", count: 32)

/// A repository that triggers every image rule once or more, with the strict profile.
func imageRuleRepo() throws -> TempRepo {
    let r = try TempRepo()
    // the promotion rules have tests of their own (with history)
    try r.write(".tagwarden.yaml", """
    profile: strict
    promotedImages: ["ghcr.io/acme/*"]
    rules:
      promotion-untested-digest: {enabled: false}
      promotion-rebuilt-artifact: {enabled: false}

    """)
    try r.write("apps/production/web.yaml", pod("web", images: [
        "ghcr.io/acme/web:staging-v1.2.3-abc1234-1700000000@\(digest)",
        "ghcr.io/acme/web:production-hotfix@\(digest)",
        "nginx:1.25.3",
    ]))
    try r.write("apps/staging/app.yaml", pod("app", images: ["nginx:latest", "registry:5000/tool", "redis:7", "ghcr.io/Acme/x:1"]))
    try r.write("apps/staging/db.yaml", """
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata:
      name: db
    spec:
      values:
        image:
          repository: mariadb
          tag: 10.10

    """)
    try r.write("broken.yaml", "a: [1, 2\n")
    return r
}

let imageRuleFindings = [
    "image-env-prefix apps/production/web.yaml:8:14",
    "image-tag-pattern apps/production/web.yaml:10:14",
    "image-not-pinned apps/production/web.yaml:12:14",
    "image-latest-tag apps/staging/app.yaml:8:14",
    "image-missing-tag apps/staging/app.yaml:10:14",
    "image-floating-tag apps/staging/app.yaml:12:14",
    "image-invalid-reference apps/staging/app.yaml:14:14",
    "image-floating-tag apps/staging/db.yaml:9:12",
    "image-tag-not-string apps/staging/db.yaml:9:12",
    "yaml-syntax broken.yaml:2:1",
]

@Suite struct AuditTests {
    @Test func everyImageRuleOnTheWorkingTree() throws {
        let r = try imageRuleRepo()
        let res = try r.audit("--format", "json")
        #expect(res.code == 1)
        #expect(res.findings == imageRuleFindings)
        let summary = res.json["summary"] as? [String: Any]
        #expect(summary?["files"] as? Int == 4)
        #expect(summary?["images"] as? Int == 8)
        let source = res.json["source"] as? [String: Any]
        #expect(source?["kind"] as? String == "worktree")
        #expect(source?["root"] as? String == r.path)
        // the environment and object of a finding
        let first = try #require(res.findingObjects.first)
        #expect(first["environment"] as? String == "production")
        #expect((first["object"] as? [String: Any])?["kind"] as? String == "Pod")
        #expect(first["endLine"] as? Int == 8)
        #expect((first["message"] as? String)?.contains("it is a staging tag") == true)
    }

    @Test func revisionIsReadFromTheObjectDatabase() throws {
        let r = try imageRuleRepo()
        try r.commitAll("all rules")
        // fix the working tree and delete a file: --rev HEAD still sees the commit
        try r.write("apps/staging/app.yaml", pod("app", images: ["nginx:1.25.3"]))
        try r.remove("broken.yaml")
        let worktree = try r.audit("--format", "json")
        #expect(!worktree.findings.contains { $0.hasPrefix("yaml-syntax") || $0.contains("app.yaml") })
        let rev = try r.audit("--rev", "HEAD", "--format", "json")
        #expect(rev.findings == imageRuleFindings)
        let source = rev.json["source"] as? [String: Any]
        #expect(source?["kind"] as? String == "commit")
        #expect((source?["rev"] as? String)?.count == 40)
        // a commit-ish that is a tag name works too
        try r.git("tag", "v1")
        #expect(try r.audit("--rev", "v1", "--format", "json").findings == imageRuleFindings)
        // a PATH that only the revision has (deleted or moved on disk) is found in its tree
        try r.git("mv", "apps/staging", "apps/stage")
        try r.commitAll("moved")
        let moved = try r.audit("apps/staging", "--rev", "v1", "--format", "json")
        #expect(moved.code == 1 && moved.findings == Array(imageRuleFindings[3...8]), "\(moved.stderr)")
        #expect(try r.audit("apps/staging/db.yaml", "--rev", "v1", "--format", "json").findings == Array(imageRuleFindings[7...8]))
        let absent = try r.audit("apps/staging", "--rev", "HEAD")
        #expect(absent.code == 2 && absent.stderr == "tagwarden: error: apps/staging: no such file or directory, in the working tree or in HEAD\n")
        #expect(try r.audit("apps/staging").code == 2)
    }

    @Test func pathLimitsWhatIsReportedNotWhatIsResolved() throws {
        let r = try imageRuleRepo()
        let res = try tagwarden(["audit", "apps/production", "--format", "json"], in: r.path)
        #expect(res.findings == Array(imageRuleFindings.prefix(3)))
        // the summary counts what is reported on
        #expect((res.json["summary"] as? [String: Any])?["files"] as? Int == 1)
        #expect((res.json["summary"] as? [String: Any])?["images"] as? Int == 3)
        // from inside the subdirectory, "." means the subdirectory
        let inside = try tagwarden(["audit", "--format", "json"], in: r.path + "/apps/staging")
        #expect(inside.findings == Array(imageRuleFindings[3...8]))
    }

    @Test func textReport() throws {
        let r = try imageRuleRepo()
        let res = try r.audit("--no-color")
        #expect(res.code == 1)
        #expect(res.stdout.contains(
            "apps/staging/app.yaml:8:14: error[image-latest-tag]: image 'nginx:latest' uses the tag 'latest', which moves with every push: pin a version or a digest\n"
            + " 8 |       image: nginx:latest\n"
            + "   |              ^~~~~~~~~~~~\n"))
        #expect(res.stdout.contains("apps/staging/app.yaml:12:14: warning[image-floating-tag]: image 'redis:7' uses the partial version '7', "
                                    + "which moves to every new minor and patch release: pin the full version\n"))
        #expect(res.stdout.contains("apps/staging/db.yaml:9:12: warning[image-floating-tag]: image 'mariadb:10.10' uses the partial version '10.10', "
                                    + "which moves to every new patch release: pin the full version\n"))
        #expect(res.stdout.hasPrefix("tagwarden 0.1.0: worktree \(r.path)\nenvironments: "))
        #expect(res.stdout.hasSuffix("\n\n7 errors, 3 warnings, 0 notes in 4 files (3 documents, 8 images, 0 markers)\n"), "\(res.stdout.suffix(200))")
        #expect(!res.stdout.contains("\u{1B}["))
        let quiet = try r.audit("--quiet")
        #expect(quiet.stdout.hasPrefix("apps/production/web.yaml:8:14: error[image-env-prefix]"))
    }

    @Test func summaryCountsInTheSingular() throws {
        let r = try TempRepo()
        try r.write("app.yaml", pod("web", images: ["nginx:latest"]))
        let res = try r.audit("--no-color")
        #expect(res.stdout.hasSuffix("\n\n1 error, 0 warnings, 0 notes in 1 file (1 document, 1 image, 0 markers)\n"), "\(res.stdout.suffix(120))")
        let md = try r.audit("--format", "markdown")
        #expect(md.stdout.contains("**1 error, 0 warnings, 0 notes** in 1 file."), "\(md.stdout)")
    }

    @Test func helmChartTemplatesAreNotLintedAsYAML() throws {
        let r = try TempRepo()
        try r.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n")
        try r.write("charts/web/values.yaml", "image:\n  repository: nginx\n  tag: latest\n")
        try r.write("charts/web/templates/deployment.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Release.Name }}
        spec:
          template:
            spec:
              containers:
                - name: web
                  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
                  resources: {{ toYaml .Values.resources | nindent 12 }}

        """)
        try r.write("charts/web/templates/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n")
        try r.write("apps/web.yaml", pod("web", images: ["nginx:latest"]))
        try r.commitAll("a chart")
        for args in [["--format", "json"], ["--rev", "HEAD", "--format", "json"]] {
            let res = try tagwarden(["audit"] + args, in: r.path)
            #expect(res.findings == ["image-latest-tag apps/web.yaml:8:14", "file-skipped charts/web/Chart.yaml:1:1"], "\(res.findings)")
            #expect(res.findingObjects.last?["message"] as? String
                    == "skipped: the chart's templates (2 files under charts/web/templates/) are Helm templates, not YAML: not linted")
        }
    }

    @Test func headerNamesWhereTheTagRulesComeFrom() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\nenvironments:\n  - name: production\n    aliases: [prod, live]\n    tagPrefix: live-\n")
        try r.write("app.yaml", pod("web", images: ["nginx:1.25.3"]))
        let res = try r.audit("--no-color")
        #expect(res.stdout.hasPrefix("""
        tagwarden 0.1.0: worktree \(r.path)
        environments: config .tagwarden.yaml over the strict profile
          development: prefix develop- (strict profile in .tagwarden.yaml)
          staging: prefix staging- (strict profile in .tagwarden.yaml)
          production: prefix live-, tag pattern, digests required, review required (.tagwarden.yaml:5; strict profile in .tagwarden.yaml)

        """), "\(res.stdout)")
    }

    @Test func aPathWithNothingToLintSaysWhy() throws {
        let r = try TempRepo()
        try r.write(".gitignore", "secret/\n")
        try r.write("secret/app.yaml", pod("web", images: ["nginx:latest"]))
        try r.write("docs/notes.md", "notes\n")
        let ignored = try r.audit("secret/app.yaml", "--no-color")
        #expect(ignored.code == 0 && ignored.stderr == "tagwarden: note: secret/app.yaml is ignored by git and not tracked, so it is not linted\n")
        #expect(try r.audit("secret").stderr == "tagwarden: note: secret is ignored by git and not tracked, so it is not linted\n")
        #expect(try r.audit("docs").stderr == "tagwarden: note: no *.yaml, *.yml or Kustomization file under docs\n")
        #expect(try r.audit("docs/notes.md").stderr == "tagwarden: note: docs/notes.md is not a *.yaml, *.yml or Kustomization file\n")
        #expect(try r.audit("docs", "--quiet").stderr == "")
    }

    @Test func colourOnlyOnATerminal() throws {
        let r = try imageRuleRepo()
        let cmd = "\(binary) audit --fail-on never"
        let tty = try run("/usr/bin/script", ["-qec", cmd, "/dev/null"], cwd: r.path)
        #expect(tty.stdout.contains("\u{1B}[1;31merror\u{1B}[0m"))
        let noColor = try run("/usr/bin/script", ["-qec", cmd, "/dev/null"], cwd: r.path, env: ["NO_COLOR": "1"])
        #expect(!noColor.stdout.contains("\u{1B}["))
        let flag = try run("/usr/bin/script", ["-qec", cmd + " --no-color", "/dev/null"], cwd: r.path)
        #expect(!flag.stdout.contains("\u{1B}["))
    }

    @Test func githubAnnotations() throws {
        let r = try imageRuleRepo()
        let res = try r.audit("--format", "github")
        let lines = res.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == imageRuleFindings.count)
        #expect(lines.contains("::error file=apps/staging/app.yaml,line=8,col=14,endLine=8,endColumn=26,title=tagwarden image-latest-tag::image 'nginx:latest' uses the tag 'latest', which moves with every push: pin a version or a digest"))
        #expect(lines.contains { $0.hasPrefix("::warning file=apps/staging/app.yaml,line=12,col=14,") })
        // past ten of a kind GitHub drops annotations silently: the log says so after them
        try r.write("many.yaml", pod("m", images: Array(repeating: "nginx:latest", count: 11)))
        let many = try r.audit("--format", "github").stdout.split(separator: "\n").map(String.init)
        #expect(many.filter { $0.hasPrefix("::") }.count == imageRuleFindings.count + 11)
        #expect(many.last?.hasPrefix("tagwarden: ") == true && many.last?.contains("GitHub shows the first 10 of each kind of a step as annotations") == true)
    }

    @Test func markdownTable() throws {
        let r = try imageRuleRepo()
        let res = try r.audit("--format", "markdown")
        #expect(res.stdout.contains("| 🔴 error | `image-latest-tag` | apps/staging/app.yaml:8:14 |"))
    }

    @Test func markdownFitsAPullRequestComment() throws {
        // warnings first in the file, then more errors than a PR comment holds: the errors are shown, the rest counted
        let r = try warningsThenErrors(1_000)
        let out = try r.audit("--format", "markdown").stdout
        #expect(out.utf8.count <= 60_000)
        let rows = out.split(separator: "\n").filter { $0.hasPrefix("| 🔴") || $0.hasPrefix("| 🟡") }
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasPrefix("| 🔴 error | `image-latest-tag`") })
        let tail = try #require(out.split(separator: "\n").last)
        #expect(tail == "… and \(1_010 - rows.count) more findings not shown (\(1_000 - rows.count) errors, 10 warnings), to fit a PR comment: the json and sarif reports have them all.")
    }

    @Test func sarifValidatesAgainstTheSchema() throws {
        let r = try imageRuleRepo()
        let res = try r.audit("--format", "sarif", "--output", "out.sarif")
        #expect(res.code == 1 && res.stdout.isEmpty)
        let schema = packageRoot + "/Tests/schemas/sarif-schema-2.1.0.json"   // the official schema, committed unchanged
        try #require(FileManager.default.fileExists(atPath: schema), "the SARIF schema is expected at \(schema)")
        let check = try run("/usr/bin/env", ["python3", "-c", """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
        jsonschema.Draft4Validator(schema).validate(doc)
        run = doc["runs"][0]
        rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
        for r in rules.values():
            assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"], r["id"]
            assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert run["automationDetails"]["id"]
        for res in run["results"]:
            loc = res["locations"][0]["physicalLocation"]
            assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%" and not loc["artifactLocation"]["uri"].startswith("/")
            reg = loc["region"]
            assert all(k in reg for k in ("startLine", "startColumn", "endLine", "endColumn"))
            assert res["partialFingerprints"]["primaryLocationLineHash"]
            assert res["ruleId"] in rules and run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        print(len(run["results"]))
        """, schema, r.path + "/out.sarif"], cwd: r.path)
        #expect(check.code == 0, "\(check.stderr)")
        #expect(check.stdout == "\(imageRuleFindings.count)\n")
        // "-" is standard output, as for most tools, not a file named "-"
        let dash = try r.audit("--format", "sarif", "--output", "-")
        let written = try String(contentsOfFile: r.path + "/out.sarif", encoding: .utf8)
        #expect(dash.code == 1 && dash.stdout == written)
        #expect(!FileManager.default.fileExists(atPath: r.path + "/-"))
    }

    /// One Pod whose first ten containers get warnings (`nginx:edge`), then `errors` containers errors (`nginx:latest`).
    func warningsThenErrors(_ errors: Int) throws -> TempRepo {
        let r = try TempRepo()
        var text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        for _ in 0..<10 { text += "    - {name: a, image: 'nginx:edge'}\n" }
        for _ in 0..<errors { text += "    - {name: a, image: 'nginx:latest'}\n" }
        try r.write("pod.yaml", text)
        return r
    }

    @Test func sarifKeepsTheMostSevereResultsGitHubAccepts() throws {
        // GitHub code scanning rejects a run of more than 25,000 results: ten warnings come first in the file,
        // then 25,000 errors; the run keeps the errors and says what it left out
        let r = try warningsThenErrors(25_000)
        let res = try r.audit("--format", "sarif")
        let run = try #require((res.json["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 25_000)
        #expect(results.allSatisfy { $0["ruleId"] as? String == "image-latest-tag" })
        let notes = (run["invocations"] as? [[String: Any]])?.first?["toolExecutionNotifications"] as? [[String: Any]]
        let message = (notes?.first?["message"] as? [String: Any])?["text"] as? String
        #expect(message == "25010 findings; this run holds the 25000 most severe, as GitHub code scanning accepts no more: left out 10 warnings. The json format has them all.")
    }

    @Test func fingerprintsSurviveInsertedLines() throws {
        let r = try imageRuleRepo()
        let before = try r.audit("--format", "json").findingObjects.map { "\($0["rule"]!) \($0["fingerprint"]!)" }
        let original = try String(contentsOfFile: r.path + "/apps/staging/app.yaml", encoding: .utf8)
        try r.write("apps/staging/app.yaml", "# a comment\n# another\n" + original.replacingOccurrences(of: "spec:\n", with: "spec:\n  restartPolicy: Always\n"))
        let after = try r.audit("--format", "json")
        #expect(after.findings.contains("image-latest-tag apps/staging/app.yaml:11:14"))
        #expect(after.findingObjects.map { "\($0["rule"]!) \($0["fingerprint"]!)" } == before)
    }

    @Test func failOnAndExitCodes() throws {
        let r = try TempRepo()
        try r.write("a.yaml", pod("a", images: ["redis:7"]))  // a warning only
        #expect(try r.audit().code == 0)
        #expect(try r.audit("--fail-on", "warning").code == 1)
        #expect(try r.audit("--fail-on", "never").code == 0)
        let bad = try r.audit("--fail-on", "sometimes")
        #expect(bad.code == 2 && bad.stderr.contains("sometimes"))
        #expect(try r.audit("--format", "yaml").code == 2)
    }

    @Test func ignoredUntrackedAndSymlinkedFiles() throws {
        let r = try TempRepo()
        try r.write(".gitignore", "generated/\n*.local.yaml\n")
        try r.write("tracked.local.yaml", pod("t", images: ["nginx:latest"]))
        try r.git("add", "-f", "tracked.local.yaml")
        try r.write("untracked.local.yaml", pod("u", images: ["nginx:latest"]))
        try r.write("generated/g.yaml", pod("g", images: ["nginx:latest"]))
        try r.write("new/untracked.yaml", pod("n", images: ["nginx:latest"]))
        try r.write("notes.txt", "image: nginx:latest\n")
        let outside = try TempRepo(git: false)
        try outside.write("secret.yaml", pod("s", images: ["nginx:latest"]))
        try FileManager.default.createSymbolicLink(atPath: r.path + "/escape.yaml", withDestinationPath: outside.path + "/secret.yaml")
        try FileManager.default.createSymbolicLink(atPath: r.path + "/linked-dir", withDestinationPath: r.path + "/new")
        try FileManager.default.createSymbolicLink(atPath: r.path + "/inside.yaml", withDestinationPath: "new/untracked.yaml")
        try FileManager.default.createSymbolicLink(atPath: r.path + "/loop.yaml", withDestinationPath: "loop.yaml")
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "file-skipped escape.yaml:1:1",
            "image-latest-tag inside.yaml:8:14",
            "file-skipped loop.yaml:1:1",
            "object-duplicate new/untracked.yaml:2:7",      // inside.yaml links to it: the same Pod twice
            "image-latest-tag new/untracked.yaml:8:14",
            "image-latest-tag tracked.local.yaml:8:14",
        ])
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[0].hasPrefix("skipped: symlink points outside the repository"))
        #expect(messages[2] == "skipped: symlink loop")
        // the same bytes twice: one copy is redundant, nothing is replaced
        #expect(messages[3] == "Pod n is also defined, identically, in inside.yaml:2: one of the two copies is redundant")
        #expect(res.findingObjects[3]["severity"] as? String == "note")
    }

    @Test func kustomizeHelmAndCronJobImages() throws {
        let r = try TempRepo()
        try r.write("base/kustomization.yaml", """
        resources: [cron.yaml]
        images:
          - name: app
            newName: ghcr.io/acme/app
            newTag: latest
          - name: side
            digest: sha256:123

        """)
        try r.write("base/cron.yaml", """
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: c
        spec:
          jobTemplate:
            spec:
              template:
                spec:
                  containers:
                    - name: a
                      image: app
                  ephemeralContainers:
                    - name: dbg
                      image: busybox:edge

        """)
        try r.write("flux/ks.yaml", """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: apps
        spec:
          images:
            - name: web
              newTag: main

        """)
        try r.write("helm/hr.yaml", """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata:
          name: h
        spec:
          chart:
            spec:
              version: 1.10
          values:
            deep:
              list:
                - image: quay.io/x/y
            other:
              registry: docker.io
              repository: bitnami/redis
              tag: latest
            chartDefault:
              repository: ghcr.io/acme/side
              tag: ""
          postRenderers:
            - kustomize:
                images:
                  - name: ghcr.io/acme/side
                    newTag: latest

        """)
        try r.write("compose/docker-compose.yaml", "services:\n  a:\n    image: nginx:latest\n")
        try r.write("list/list.yaml", """
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: Pod
            metadata: {name: p}
            spec:
              containers:
                - {name: a, image: "redis:latest"}

        """)
        try r.write("rollout/r.yaml", """
        apiVersion: argoproj.io/v1alpha1
        kind: Rollout
        metadata:
          name: r
        spec:
          template:
            spec:
              containers:
                - name: a
                  image: nginx:latest
        ---
        apiVersion: argoproj.io/v1alpha1
        kind: Workflow
        metadata:
          name: w
        spec:
          template:
            spec:
              containers:
                - name: a
                  image: nginx:latest

        """)
        try r.write("crds/workloads.yaml", """
        apiVersion: serving.knative.dev/v1
        kind: Service
        metadata: {name: k}
        spec:
          template:
            spec:
              containers:
                - image: ghcr.io/acme/k:latest
        ---
        apiVersion: apps.kruise.io/v1alpha1
        kind: CloneSet
        metadata: {name: c}
        spec:
          template:
            spec:
              initContainers:
                - {name: i, image: "busybox"}
        ---
        apiVersion: keda.sh/v1alpha1
        kind: ScaledJob
        metadata: {name: j}
        spec:
          jobTargetRef:
            template:
              spec:
                containers:
                  - {name: w, image: "ghcr.io/acme/worker:main"}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: plain}
        spec:
          template:
            spec:
              containers:
                - image: nginx:latest

        """)
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            // `image: app` leaves the build as ghcr.io/acme/app:latest: the entry that says so is reported, not the base
            "image-floating-tag base/cron.yaml:15:22",
            "image-latest-tag base/kustomization.yaml:5:13",
            "image-entry-unmatched base/kustomization.yaml:6:11",   // no container of the build is 'side'
            "image-invalid-reference base/kustomization.yaml:6:11",
            "image-latest-tag crds/workloads.yaml:8:18",
            "image-missing-tag crds/workloads.yaml:17:28",
            "image-floating-tag crds/workloads.yaml:27:30",
            "image-floating-tag flux/ks.yaml:8:15",
            "image-tag-not-string helm/hr.yaml:8:16",
            "image-missing-tag helm/hr.yaml:12:18",
            "image-latest-tag helm/hr.yaml:16:12",
            "image-latest-tag helm/hr.yaml:24:21",
            "image-latest-tag list/list.yaml:9:28",
            "image-latest-tag rollout/r.yaml:10:18",
        ])
    }

    /// Renovate pins charts' images as `tag: v1.60.0@sha256:…`: the chart renders `repository:tag`, a reference with
    /// both, so the image is pinned and its tag is the part before `@`.
    @Test func aTagFieldThatCarriesTheDigestPinsTheImage() throws {
        let r = try TempRepo()
        let sha = "sha256:" + String(repeating: "5f", count: 32)
        try r.write("apps/production/hr.yaml", """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: production}
        spec:
          values:
            app:
              image:
                repository: ghcr.io/acme/web
                tag: v1.60.0@\(sha)
            proxy:
              image: {repository: ghcr.io/acme/proxy, tag: "latest@\(sha)"}
            worker:
              image: {repository: ghcr.io/acme/worker, tag: "1.0.0@sha256:5f5f"}
            job:
              image: {repository: ghcr.io/acme/job, tag: "1.0.0"}

        """)
        try r.write("apps/production/db.yaml", pod("db", images: ["ghcr.io/acme/db"]))
        try r.write("apps/production/kustomization.yaml", """
        resources: [hr.yaml, db.yaml]
        images:
          - {name: ghcr.io/acme/db, newTag: "16.2@\(sha)"}

        """)
        let res = try r.audit("--profile", "strict", "--format", "json")
        #expect(res.findings == [
            "image-invalid-reference apps/production/hr.yaml:13:27",
            "image-not-pinned apps/production/hr.yaml:15:27",
        ])
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[1] == "production requires digests: give the chart the digest of 'ghcr.io/acme/job:1.0.0': a `digest: sha256:<digest>` value "
                + "beside the tag where the chart reads one, else `tag: 1.0.0@sha256:<digest>`")
    }

    @Test func anImagesEntryThatMatchesNothingIsReported() throws {
        let r = try TempRepo()
        try r.write("base/kustomization.yaml", """
        resources: [app.yaml, crd.yaml]
        images:
          - {name: web, newName: ghcr.io/acme/web}

        """)
        try r.write("base/app.yaml", pod("app", images: ["web", "nginx:1.25.3"]))
        try r.write("base/crd.yaml", "apiVersion: acme.io/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  runner:\n    containers:\n      - image: ghcr.io/acme/runner:1.0.0\n")
        try r.write("overlays/production/kustomization.yaml", """
        resources: [../../base]
        images:
          - {name: ghcr.io/acme/wbe, newTag: 1.4.1}
          - {name: ghcr.io/acme/web, newTag: 1.4.1}
          - {name: docker.io/library/nginx, newTag: 1.25.4}
          - {name: ghcr.io/acme/runner, newTag: 1.0.1}
          - {name: ghcr.io/acme/gone, newTag: 1.0.0}

        """)
        // `bases:` is the older name of `resources:`
        try r.write("legacy/kustomization.yaml", "bases: [../base]\nimages:\n  - {name: ghcr.io/acme/web, newTag: 1.4.1}\n")
        // what cannot be known is not judged: a chart kustomize inflates, a remote base, a path the repository lacks
        try r.write("charts/kustomization.yaml", "helmCharts:\n  - {name: podinfo, repo: https://stefanprodan.github.io/podinfo}\nimages:\n  - {name: ghcr.io/x/y, newTag: 1.0.0}\n")
        try r.write("remote/kustomization.yaml", "resources: [github.com/acme/base//app?ref=v1]\nimages:\n  - {name: ghcr.io/x/y, newTag: 1.0.0}\n")
        try r.write("missing/kustomization.yaml", "resources: [../nowhere]\nimages:\n  - {name: ghcr.io/x/y, newTag: 1.0.0}\n")
        // a Flux Kustomization's spec.images apply to what its path builds
        try r.write("clusters/apps.yaml", fluxApps("./base", "  images:\n    - {name: ghcr.io/acme/web, newTag: 1.0.0}\n    - {name: ghcr.io/acme/api, newTag: 1.0.0}\n"))
        // the cluster applies the other builds too (what no Flux Kustomization applies is not deployed)
        try r.write("clusters/others.yaml", fluxKustomizations([("production", "./overlays/production"), ("legacy", "./legacy"), ("charts", "./charts"),
                                                                ("remote", "./remote"), ("missing", "./missing")]))
        let res = try r.audit("--format", "json")
        let unmatched = res.findingObjects.filter { $0["rule"] as? String == "image-entry-unmatched" }
        #expect(unmatched.map { "\($0["file"]!):\($0["line"]!):\($0["column"]!)" } == [
            "clusters/apps.yaml:8:14", "overlays/production/kustomization.yaml:3:12", "overlays/production/kustomization.yaml:5:12",
            "overlays/production/kustomization.yaml:7:12",
        ])
        #expect(unmatched.map { $0["message"] as? String ?? "" } == [
            "images: entry 'ghcr.io/acme/api' matches no image of the build of Flux Kustomization flux-system/apps, so kustomize leaves "
                + "the images as they are (its images include 'ghcr.io/acme/web', 'nginx', 'web')",
            "images: entry 'ghcr.io/acme/wbe' matches no image of this kustomization's build, so kustomize leaves the images as they are: "
                + "did you mean 'ghcr.io/acme/web'?",
            "images: entry 'docker.io/library/nginx' matches no image of this kustomization's build, so kustomize leaves the images as "
                + "they are: kustomize compares names as written, and the build writes this image 'nginx'",
            "images: entry 'ghcr.io/acme/gone' matches no image of this kustomization's build, so kustomize leaves the images as they are "
                + "(its images include 'ghcr.io/acme/web', 'nginx', 'web')",
        ])
    }

    /// kustomize applies `images:` entries one after another, a Component's before the kustomization's own: an entry
    /// for a name that an earlier `newName` changed misses, and the base's tag runs (found by
    /// scripts/kustomize-vs-tagwarden against `kubectl kustomize`).
    @Test func anEntryForANameAnEarlierEntryRenamedMisses() throws {
        let r = try TempRepo()
        try r.write("base/kustomization.yaml", "resources: [app.yaml]\n")
        try r.write("base/app.yaml", pod("app", images: ["ghcr.io/acme/web:latest", "ghcr.io/acme/api:latest", "ghcr.io/acme/job:latest"]))
        try r.write("components/mirror/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        images:
          - {name: ghcr.io/acme/api, newName: mirror.acme.io/api}

        """)
        try r.write("overlay/kustomization.yaml", """
        resources: [../base]
        components: [../components/mirror]
        images:
          - {name: ghcr.io/acme/web, newName: mirror.acme.io/web}
          - {name: ghcr.io/acme/web, newTag: 1.0.0}
          - {name: ghcr.io/acme/api, newTag: 1.0.0}
          - {name: ghcr.io/acme/job, newName: mirror.acme.io/job}
          - {name: mirror.acme.io/job, newTag: 1.0.0}

        """)
        // web and api keep `latest` (their retag comes after a rename); job's retag follows its new name
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag base/app.yaml:8:14", "image-latest-tag base/app.yaml:10:14"])
    }

    /// The kustomize base/overlay layout: a base leaves the tag to the overlays' `images:`; what runs is the
    /// overlays' tag, judged where they write it, and the base is reported only where a build deploys its own.
    @Test func aBaseWhoseOverlaysSetTheTagIsJudgedByTheOverlays() throws {
        let r = try TempRepo()
        try r.write("base/kustomization.yaml", "resources: [app.yaml]\n")
        try r.write("base/app.yaml", pod("app", images: ["ghcr.io/acme/web", "ghcr.io/acme/api:latest", "ghcr.io/acme/worker:main"]))
        try r.write("overlays/staging/kustomization.yaml", """
        resources: [../../base]
        images:
          - {name: ghcr.io/acme/web, newTag: 1.0.0}
          - {name: ghcr.io/acme/api, newTag: latest}
          - {name: ghcr.io/acme/worker, newName: ghcr.io/acme/worker2}

        """)
        try r.write("overlays/production/kustomization.yaml", """
        bases: [../../base]
        components: [../../components/tags]
        images:
          - name: ghcr.io/acme/web
            digest: sha256:\(String(repeating: "a", count: 64))

        """)
        try r.write("components/tags/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        images:
          - {name: ghcr.io/acme/api, newTag: 2.0.0}

        """)
        // the overlays are applied by the cluster
        try r.write("clusters/overlays.yaml", fluxKustomizations([("staging", "./overlays/staging"), ("production", "./overlays/production")]))
        // built by Flux Kustomizations: one that sets the tag, one that does not
        try r.write("flux-base/kustomization.yaml", "resources: [app.yaml]\n")
        try r.write("flux-base/app.yaml", pod("flux-app", images: ["ghcr.io/acme/flux-app", "ghcr.io/acme/flux-tool"]))
        try r.write("clusters/flux.yaml", """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: a, namespace: flux-system}
        spec:
          path: ./flux-base
          images:
            - {name: ghcr.io/acme/flux-app, newTag: 1.0.0}
            - {name: ghcr.io/acme/flux-tool, newTag: 1.0.0}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: b, namespace: flux-system}
        spec:
          path: ./flux-base
          images:
            - {name: ghcr.io/acme/flux-app, newTag: 1.0.0}

        """)
        let res = try r.audit("--format", "json")
        // web: every overlay sets it; api: staging's own entry and production's Component set it (staging's
        // `latest` is what runs there, reported where it is written)
        #expect(res.findings == [
            "image-floating-tag base/app.yaml:12:14",        // worker: the staging overlay renames it and keeps 'main'
            "image-missing-tag flux-base/app.yaml:10:14",    // flux-tool: Kustomization b deploys it untagged
            "image-latest-tag overlays/staging/kustomization.yaml:4:38",
        ])
        // a Flux Kustomization that builds the base itself deploys what the base writes
        try r.write("clusters/base.yaml", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: c, namespace: flux-system}\nspec:\n  path: ./base\n")
        #expect(try r.audit("--format", "json").findings == [
            "image-missing-tag base/app.yaml:8:14",
            "image-latest-tag base/app.yaml:10:14",
            "image-floating-tag base/app.yaml:12:14",
            "image-missing-tag flux-base/app.yaml:10:14",
            "image-latest-tag overlays/staging/kustomization.yaml:4:38",
        ])
    }

    @Test func jsonPatchesThatWriteContainerImages() throws {
        let r = try TempRepo()
        try r.write("apps/production/patch.yaml", """
        - op: replace
          path: /spec/template/spec/containers/0/image
          value: nginx:latest
        - op: add
          path: /spec/template/spec/containers/-
          value: {name: side, image: busybox}
        - op: add
          path: /spec/jobTemplate/spec/template/spec/initContainers
          value:
            - {name: init, image: "alpine:edge"}
        - op: test
          path: /spec/template/spec/containers/0/image
          value: redis:latest
        - op: replace
          path: /spec/image
          value: ghcr.io/acme/web
        - op: remove
          path: /spec/template/spec/containers/1/image

        """)
        // a test compares without writing; /spec/image is no container's (an ImageRepository's repository)
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "image-latest-tag apps/production/patch.yaml:3:10",
            "image-missing-tag apps/production/patch.yaml:6:30",
            "image-floating-tag apps/production/patch.yaml:10:27",
        ], "\(res.findings)")
    }

    @Test func inlinePatchesAreReadWhereTheyStand() throws {
        let r = try TempRepo()
        // CRLF line ends and a blank line inside the block: positions are the file's all the same
        try r.write("apps/production/kustomization.yaml", [
            "apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization", "patches:",
            "  - target: {kind: Deployment}", "    patch: |-", "      - op: replace", "        path: /spec/template/spec/containers/0/image",
            "        value: nginx:latest", "  - patch: |", "      apiVersion: apps/v1", "      kind: Deployment", "      metadata: {name: web}",
            "      spec:", "        template:", "          spec:", "            containers:", "", "              - name: web",
            "                image: \"ghcr.io/acme/web:main\"",
            "  - patch: \"- op: replace\\n  path: /spec/template/spec/containers/0/image\\n  value: busybox\"",
            "patchesStrategicMerge:", "  - |-", "    apiVersion: v1", "    kind: Pod", "    metadata: {name: p}", "    spec:",
            "      containers:", "        - {name: a, image: redis}",
            "  - patch: |", "      apiVersion: helm.toolkit.fluxcd.io/v2", "      kind: HelmRelease", "      metadata: {name: podinfo}",
            "      spec:", "        values:", "          image: {repository: ghcr.io/stefanprodan/podinfo, tag: latest}", "",
        ].joined(separator: "\r\n"))
        try r.write("clusters/production/apps.yaml", """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: apps, namespace: flux-system}
        spec:
          path: ./apps/production
          patches:
            - patch: |
                - op: add
                  path: /spec/template/spec/initContainers
                  value: [{name: init, image: "alpine:edge"}]
        ---
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: podinfo, namespace: podinfo}
        spec:
          postRenderers:
            - kustomize:
                patches:
                  - patch: |
                      - op: replace
                        path: /spec/template/spec/containers/0/image
                        value: ghcr.io/stefanprodan/podinfo:latest

        """)
        // a patch in a quoted string (busybox) is not read: its positions do not map back to the file
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "image-latest-tag apps/production/kustomization.yaml:8:16",
            "image-floating-tag apps/production/kustomization.yaml:19:24",
            "image-missing-tag apps/production/kustomization.yaml:28:28",
            "image-latest-tag apps/production/kustomization.yaml:35:66",
            "image-floating-tag clusters/production/apps.yaml:10:39",
            "image-latest-tag clusters/production/apps.yaml:22:24",
        ], "\(res.findings)")
    }

    @Test func partsWithVariablesAreNotJudged() throws {
        // a tag, digest or registry written with ${…} or {{ … }} is filled in later: no invalid reference
        let r = try TempRepo()
        try r.write("kustomization.yaml", """
        resources: [pod.yaml]
        images:
          - {name: ghcr.io/acme/web, newTag: "${WEB_TAG}"}
          - {name: ghcr.io/acme/api, digest: "{{ .Digest }}"}
          - {name: ghcr.io/acme/ok, newTag: "1.0.0"}
          - {name: ghcr.io/acme/bad, newTag: "latest"}

        """)
        try r.write("hr.yaml", """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: x}
        spec:
          values:
            a: {image: {repository: ghcr.io/acme/x, tag: "${X_TAG}"}}
            b: {image: {registry: "${REGISTRY}", repository: acme/z, tag: "1.0"}}
            c: {image: {repository: ghcr.io/acme/y, tag: latest}}

        """)
        try r.write("pod.yaml", pod("p", images: ["ghcr.io/acme/web", "ghcr.io/acme/api", "ghcr.io/acme/ok", "ghcr.io/acme/bad"]))
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag hr.yaml:8:50", "image-latest-tag kustomization.yaml:6:38"], "\(res.findings)")
    }

    @Test func anchorsAliasesAndMergeKeysAreFollowed() throws {
        let r = try TempRepo()
        try r.write("d.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: d
          annotations: {example.com/image: &img ghcr.io/o/a:latest}
        spec:
          template:
            spec:
              containers:
                - &base
                  name: a
                  image: ghcr.io/o/a:1.2.3
                - <<: *base
                  name: b
                - <<: [{name: c}, *base]
                  image: ghcr.io/o/c:1.2.3
                - name: d
                  image: *img
              initContainers:
                - {<<: *base, name: i}
        ---
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: h}
        spec:
          values:
            a: {image: &h "redis:latest"}
            b: {image: *h}

        """)
        try r.write("e.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: e}\nspec:\n  containers:\n    - {name: a, image: *nope}\n")
        // an image given through an alias is reported once, at the anchored value (where the fix goes); an alias
        // naming no anchor is what kubectl refuses
        #expect(try r.audit("--format", "json").findings == [
            "image-latest-tag d.yaml:5:41", "image-latest-tag d.yaml:27:19", "yaml-syntax e.yaml:6:24",
        ])
    }

    @Test func kustomizeComponents() throws {
        let r = try TempRepo()
        // a Component is a kustomization: its images are kustomize images, and the namespace of the
        // kustomization that pulls it in with `components:` reaches the resources it lists
        try r.write("components/img/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        resources: [policy.yaml]
        images:
          - name: ghcr.io/acme/web
            newTag: latest
            digest: sha256:64d2a1ebcab622e8defe3e4a8a316205912a85d5d16306e6ad587ee38854d489
          - name: ghcr.io/acme/api
            newTag: main # {"$imagepolicy": "flux-system:api:tag"}

        """)
        try r.write("components/img/policy.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata:
          name: api
        spec:
          imageRepositoryRef: {name: api}
          policy: {semver: {range: ">=1.0.0"}}

        """)
        try r.write("components/img/repo.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata:
          name: api
          namespace: apps
        spec:
          image: ghcr.io/acme/api

        """)
        try r.write("overlay/kustomization.yaml", """
        namespace: apps
        components: [../components/img]
        resources: [../components/img/repo.yaml]

        """)
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "image-entry-unmatched components/img/kustomization.yaml:5:11",   // the overlay has no web container
            "image-floating-tag components/img/kustomization.yaml:9:13",
            "marker-unknown-policy components/img/kustomization.yaml:9:18",
            "policy-unused components/img/policy.yaml:2:7",
        ])
        #expect(res.json["summary"].flatMap { ($0 as? [String: Any])?["images"] as? Int } == 2)
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[0] == "images: entry 'ghcr.io/acme/web' matches no image of the builds that include this Component, "
                + "so kustomize leaves the images as they are (it has no container images)")
        #expect(messages[2] == "no ImagePolicy flux-system/api in the repository, so Flux never updates this field: did you mean 'apps:api'?")
        #expect(messages[3].hasPrefix("no $imagepolicy marker uses policy apps/api"))
    }

    @Test func namespaceFromFluxKustomizationTargets() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\npromotedImages: [\"ghcr.io/acme/*\"]\n")
        func target(_ dir: String, _ ns: String) throws {
            try r.write("clusters/\(dir)/apps.yaml", """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata:
              name: apps-\(ns)
              namespace: flux-system
            spec:
              path: ./apps/base
              targetNamespace: \(ns)

            """)
        }
        try r.write("apps/base/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.2.3-abcdef0-1700000000"]))
        try target("aa", "production")
        // one Flux Kustomization deploys the base into production: production's rules apply
        #expect(try r.audit("--format", "json").findings == ["image-env-prefix apps/base/web.yaml:8:14", "image-not-pinned apps/base/web.yaml:8:14"])
        // another deploys it into staging too: the namespace is open, as when kustomize overlays disagree
        try target("zz", "staging")
        let open = try r.audit("--format", "json")
        #expect(open.findings == [], "\(open.findings)")
        // a Kustomization whose path is an overlay that includes the base deploys the base too
        try r.remove("clusters/zz/apps.yaml")
        try r.write("apps/overlay/kustomization.yaml", "resources:\n  - ../base\n")
        try r.write("clusters/aa/apps.yaml", """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: apps, namespace: flux-system}
        spec:
          path: ./apps/overlay
          targetNamespace: production

        """)
        #expect(try r.audit("--format", "json").findings == ["image-env-prefix apps/base/web.yaml:8:14", "image-not-pinned apps/base/web.yaml:8:14"])
    }

    @Test func suppressions() throws {
        let r = try TempRepo()
        try r.write("a.yaml", """
        apiVersion: v1
        kind: Pod
        metadata:
          name: a
        spec:
          containers:
            - name: a
              image: nginx:latest # tagwarden:ignore image-latest-tag vendor ships no versions
            - name: b
              # tagwarden:ignore image-latest-tag,image-floating-tag one comment, two rules
              image: redis:latest
            - name: c
              image: redis:edge # tagwarden:ignore image-latest-tag wrong rule
            # tagwarden:ignore image-latst-tag typo

        """)
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "suppression-unused a.yaml:10:7",
            "image-floating-tag a.yaml:13:14",
            "suppression-unused a.yaml:13:25",
            "suppression-unused a.yaml:14:5",
        ])
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[0] == "tagwarden:ignore image-floating-tag suppresses nothing on this line or the next: remove it")
        #expect(messages[3] == "tagwarden:ignore names an unknown rule 'image-latst-tag' (did you mean 'image-latest-tag'?)")
    }

    @Test func configSeverityAndDisabledRules() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "rules:\n  image-floating-tag: {severity: error}\n  image-latest-tag: {enabled: false}\nignore: [\"vendor/**\"]\n")
        try r.write("a.yaml", pod("a", images: ["nginx:latest", "redis:7"]))
        try r.write("vendor/b.yaml", pod("b", images: ["nginx"]))
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-floating-tag a.yaml:10:14"])
        #expect(res.findingObjects.first?["severity"] as? String == "error")
        #expect(res.code == 1)
    }

    /// Sets the modification time of a directory of the repository to a fixed time in the past.
    func age(_ r: TempRepo, _ rel: String) throws {
        try run("/usr/bin/touch", ["-m", "-d", "2020-01-01 00:00:00", r.path + "/" + rel], cwd: r.path)
    }

    @Test func directoryListingsAreCachedWhileTheirDirectoriesAreUnchanged() throws {
        let r = try TempRepo()
        try r.write("apps/a.yaml", pod("a", images: ["nginx:latest"]))
        try r.commitAll("a")
        for d in [".", "apps"] { try age(r, d) }
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14"])
        let path = r.path + "/.git/tagwarden/listings"
        let cache = try String(contentsOfFile: path, encoding: .utf8)
        #expect(cache.hasPrefix("tagwarden-listings 3\nD\t"))
        #expect(cache.contains("\tapps\n8\ta.yaml\n"))

        // proof that an unchanged directory is not read again: a listing without a.yaml is believed
        try r.write(".git/tagwarden/listings", cache.replacingOccurrences(of: "\tapps\n8\ta.yaml\n", with: "\tapps\n"))
        let open = try r.audit("--format", "json")
        #expect(open.findings == [], "\(open.findings)")
        // a new file changes the directory's mtime: it is read again, and both files are found
        try r.write("apps/b.yaml", pod("b", images: ["redis:latest"]))
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14", "image-latest-tag apps/b.yaml:8:14"])
        // so is a directory whose change time differs, though its mtime does not (here: its mode changed)
        try age(r, "apps")
        #expect(try r.audit("--format", "json").findings.count == 2)
        let relisted = try String(contentsOfFile: path, encoding: .utf8)
        let withoutB = relisted.replacingOccurrences(of: "8\tb.yaml\n", with: "")
        #expect(withoutB != relisted)
        try r.write(".git/tagwarden/listings", withoutB)
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14"])
        try r.write(".git/tagwarden/listings", withoutB)
        try run("/bin/chmod", ["700", r.path + "/apps"], cwd: r.path)
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14", "image-latest-tag apps/b.yaml:8:14"])
        // --rev never uses it
        #expect(try r.audit("--rev", "HEAD", "--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14"])
    }

    @Test func aDirectoryChangedAroundItsListingIsNotTrusted() throws {
        let r = try TempRepo()
        try r.write("a.yaml", pod("a", images: ["nginx:1.25.3"]))
        // a modification time that is not at least two seconds before the listing (as when a change lands in the
        // same clock tick as the listing): the listing is kept, but not believed
        try run("/usr/bin/touch", ["-m", "-d", "1 hour", r.path], cwd: r.path)
        let open = try r.audit("--format", "json")
        #expect(open.findings == [], "\(open.findings)")
        let cache = try String(contentsOfFile: r.path + "/.git/tagwarden/listings", encoding: .utf8)
        #expect(cache.contains("\t\n4\t.git\n8\ta.yaml\n"))
        try r.write(".git/tagwarden/listings", cache.replacingOccurrences(of: "\n8\ta.yaml\n", with: "\n"))
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag a.yaml:8:14"])
    }

    @Test func aDamagedListingCacheIsIgnored() throws {
        let r = try TempRepo()
        try r.write("apps/a.yaml", pod("a", images: ["nginx:latest"]))
        try r.write(".git/tagwarden/listings", "tagwarden-listings 1\nD\tnot a number\n")
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14"])
        try r.write(".git/tagwarden/listings", Data([0xFF, 0x00, 0x12]))
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/a.yaml:8:14"])
    }
}

