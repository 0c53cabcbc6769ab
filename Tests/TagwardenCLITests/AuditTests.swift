import TagwardenFixtures
import Foundation
import Testing

let digest = "sha256:" + String(repeating: "ab", count: 32)

/// A repository that triggers every image rule once or more, with the strict profile.
func imageRuleRepo() throws -> TempRepo {
    let r = try TempRepo()
    // the promotion rules have tests of their own (with history)
    try r.declareOneCluster("""
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

/// `tagwarden audit` end to end: the reports and their formats, exit codes, what it reads from the working tree, a
/// revision and its caches. How the image rules judge what kustomize, Helm and Flux build is in ImageRuleTests.
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
                                    + "which moves to every new minor and patch release: pin the full version (assuming '7' names a series, not a release "
                                    + "of its own; if the image's releases are numbered so, list it under shortVersionReleases in .tagwarden.yaml)\n"))
        #expect(res.stdout.contains("apps/staging/db.yaml:9:12: warning[image-floating-tag]: image 'mariadb:10.10' uses the partial version '10.10', "
                                    + "which moves to every new patch release: pin the full version (assuming '10.10' names a series, not a release "
                                    + "of its own; if the image's releases are numbered so, list it under shortVersionReleases in .tagwarden.yaml)\n"))
        #expect(res.stdout.hasPrefix("tagwarden 0.1.0: worktree \(r.path)\nenvironments: "))
        #expect(res.stdout.hasSuffix("\n\n7 errors, 3 warnings, 0 notes in 4 files (3 documents, 8 images, 0 markers)\n"), "\(res.stdout.suffix(200))")
        #expect(!res.stdout.contains("\u{1B}["))
        let quiet = try r.audit("--quiet")
        #expect(quiet.stdout.hasPrefix("apps/production/web.yaml:8:14: error[image-env-prefix]"))
    }

    @Test func summaryCountsInTheSingular() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
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

    /// GitLab's Code Quality report, field by field as GitLab documents it (docs.gitlab.com/ci/testing/code_quality,
    /// "Code Quality report format"): an array of objects with a string `description`, `check_name` and `fingerprint`
    /// (unique: GitLab shows one issue per fingerprint), a `severity` of info, minor, major, critical or blocker, and a
    /// `location` with a relative `path` and `lines.begin`, and nothing GitLab does not read.
    @Test func gitlabCodeQualityReport() throws {
        let r = try imageRuleRepo()
        let res = try r.audit("--format", "gitlab", "--output", "gl-code-quality.json")
        #expect(res.code == 1 && res.stdout.isEmpty, "\(res.described)")
        let issues = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: r.path + "/gl-code-quality.json")))
                                  as? [[String: Any]])
        let json = try r.audit("--format", "json")
        let findings = json.findingObjects
        #expect(!issues.isEmpty && issues.count == findings.count)
        for (issue, finding) in zip(issues, findings) {
            #expect(Set(issue.keys) == ["description", "check_name", "fingerprint", "severity", "location"], "\(issue)")
            #expect(issue["description"] as? String == finding["message"] as? String)
            #expect(issue["check_name"] as? String == finding["rule"] as? String)
            #expect(issue["fingerprint"] as? String == finding["fingerprint"] as? String)
            let severity = ["error": "critical", "warning": "major", "note": "info"][finding["severity"] as? String ?? ""]
            #expect(issue["severity"] as? String == severity)
            let location = try #require(issue["location"] as? [String: Any])
            #expect(Set(location.keys) == ["path", "lines"])
            #expect(location["path"] as? String == finding["file"] as? String && !(location["path"] as? String ?? "/").hasPrefix("/"))
            #expect((location["lines"] as? [String: Any])?.keys.sorted() == ["begin"])
            #expect((location["lines"] as? [String: Any])?["begin"] as? Int == finding["line"] as? Int)
        }
        #expect(Set(issues.compactMap { $0["fingerprint"] as? String }).count == issues.count, "fingerprints repeat")
        // nothing to report is an empty array, which GitLab reads as no issues
        let clean = try TempRepo()
        try clean.write("apps/web.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n")
        let none = try clean.audit("--format", "gitlab")
        #expect(none.code == 0 && none.stdout == "[]\n", "\(none.described)")
    }

    /// JUnit XML, read back by a real XML parser (Python's ElementTree): one test case per finding, classed by its rule
    /// and named by its place, an error or warning a failure of its severity, a note passing with its text; the counts on
    /// both elements; repository text that XML cannot hold (an escape in a file name) escaped, markup characters too.
    @Test func junitReport() throws {
        let r = try imageRuleRepo()
        try r.write("apps/we<b>&\u{1B}[2J.yaml", pod("odd", images: ["nginx:latest"]))
        let res = try r.audit("--format", "junit", "--output", "junit.xml")
        #expect(res.code == 1 && res.stdout.isEmpty, "\(res.described)")
        let read = try run("/usr/bin/env", ["python3", "-c", """
            import json, sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            suite = root.find('testsuite')
            out = {'root': [root.tag, root.get('tests'), root.get('failures')], 'suite': [suite.get('tests'), suite.get('failures')], 'cases': []}
            for c in suite.findall('testcase'):
                f = c.find('failure')
                out['cases'].append([c.get('classname'), c.get('name'), c.get('file'), c.get('line'),
                                     f.get('type') if f is not None else None, f.get('message') if f is not None else c.find('system-out').text])
            print(json.dumps(out))
            """, r.path + "/junit.xml"], cwd: r.path)
        #expect(read.code == 0, "the report is not XML: \(read.described)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any])
        let findings = try r.audit("--format", "json").findingObjects
        let failures = findings.filter { $0["severity"] as? String != "note" }.count
        #expect(parsed["root"] as? [String] == ["testsuites", "\(findings.count)", "\(failures)"], "\(parsed)")
        #expect(parsed["suite"] as? [String] == ["\(findings.count)", "\(failures)"], "\(parsed)")
        let cases = try #require(parsed["cases"] as? [[Any]])
        #expect(cases.count == findings.count)
        for (c, f) in zip(cases, findings) {
            let file = (f["file"] as? String ?? "").replacingOccurrences(of: "\u{1B}", with: "\\e")
            #expect(c[0] as? String == "tagwarden.\(f["rule"]!)")
            #expect(c[1] as? String == "\(file):\(f["line"]!):\(f["column"]!)" && c[2] as? String == file && c[3] as? String == "\(f["line"]!)")
            let note = f["severity"] as? String == "note"
            #expect(c[4] as? String == (note ? nil : f["severity"] as? String), "\(c)")
            let message = (f["message"] as? String ?? "").replacingOccurrences(of: "\u{1B}", with: "\\e")
            #expect(note ? (c[5] as? String ?? "").hasSuffix(message) : c[5] as? String == message, "\(c)")
        }
        #expect(cases.contains { ($0[2] as? String) == "apps/we<b>&\\e[2J.yaml" }, "\(cases)")
        // nothing to report is one passing case: a report that is never empty
        let clean = try TempRepo()
        try clean.write("apps/web.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n")
        let none = try clean.audit("--format", "junit")
        #expect(none.code == 0 && none.stdout == """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="tagwarden" tests="1" failures="0" errors="0">
              <testsuite name="tagwarden" tests="1" failures="0" errors="0" skipped="0">
                <testcase classname="tagwarden" name="audit">
                  <system-out>no findings in 1 file (0 images, 0 markers)</system-out>
                </testcase>
              </testsuite>
            </testsuites>

            """, "\(none.described)")
    }

    @Test func sarifValidatesAgainstTheSchema() throws {
        let r = try imageRuleRepo()
        let res = try r.audit("--format", "sarif", "--output", "out.sarif")
        #expect(res.code == 1 && res.stdout.isEmpty)
        let schema = packageRoot + "/Tests/schemas/sarif-schema-2.1.0.json"   // the official schema, committed unchanged
        try #require(FileManager.default.fileExists(atPath: schema), "the SARIF schema is expected at \(schema)")
        let check = try run("/usr/bin/env", ["python3", "-c", """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2])); docs = open(sys.argv[3]).read()
        jsonschema.Draft4Validator(schema).validate(doc)
        run = doc["runs"][0]
        rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
        for r in rules.values():
            assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"], r["id"]
            # each rule's help is its section of docs/rules.md
            assert r["helpUri"] == "https://github.com/tagwarden/tagwarden/blob/main/docs/rules.md#" + r["id"], r["helpUri"]
            assert "\\n## " + r["id"] + "\\n" in docs, r["id"]
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
        """, schema, r.path + "/out.sarif", packageRoot + "/docs/rules.md"], cwd: r.path)
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
        try r.declareOneCluster()
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
        let run = try #require((res.sarif["runs"] as? [[String: Any]])?.first)
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
        // (redundant whether or not one cluster applies both: no premise of that)
        #expect(messages[3] == "Pod n is also defined, identically, in inside.yaml:2: one of the two copies is redundant "
                + "(no cluster in this repository applies this file)")
        #expect(res.findingObjects[3]["severity"] as? String == "note")
    }

    /// The walk lists the top two levels on one thread and each directory below them on another: what those find is
    /// judged as at the top (ignored, untracked, symlinked, another repository inside) and put back in the one walk's
    /// order, which decides which of two copies is reported as the later one. The expectations are what the walk
    /// gave on one thread (1d5f58a), cold and with the listing cache of a first run.
    @Test func theWalksDeeperDirectoriesAreJudgedAndOrderedAsTheTop() throws {
        let r = try TempRepo()
        try r.write(".gitignore", "generated/\n*.local.yaml\n")
        try r.write("a/a.yaml", pod("first", images: ["busybox:latest"]))
        // a/b is walked on its own; its copy comes before a/c.yaml's in the one walk's order, so a/c.yaml's is the later
        try r.write("a/b/c/dup.yaml", pod("same", images: ["nginx:latest"]))
        try r.write("a/b/tracked.local.yaml", pod("t", images: ["nginx:latest"]))
        try r.write("a/b/untracked.local.yaml", pod("u", images: ["nginx:latest"]))
        try r.write("a/b/generated/g.yaml", pod("g", images: ["nginx:latest"]))
        try r.write("a/b/new/untracked.yaml", pod("n", images: ["redis:latest"]))
        try r.write("a/c.yaml", pod("same", images: ["nginx:latest"]))
        try r.write("z/y/deep.yaml", pod("deep", images: ["busybox:latest"]))
        let outside = try TempRepo(git: false)
        try outside.write("secret.yaml", pod("s", images: ["nginx:latest"]))
        try FileManager.default.createSymbolicLink(atPath: r.path + "/a/b/escape.yaml", withDestinationPath: outside.path + "/secret.yaml")
        try FileManager.default.createSymbolicLink(atPath: r.path + "/a/b/loop.yaml", withDestinationPath: "loop.yaml")
        try FileManager.default.createSymbolicLink(atPath: r.path + "/a/b/inside.yaml", withDestinationPath: "new/untracked.yaml")
        try r.git("init", "-q", "a/sub")
        try r.write("a/sub/x.yaml", pod("nested", images: ["nginx:latest"]))
        try r.git("add", ".gitignore", "a/a.yaml", "a/c.yaml", "z/y/deep.yaml", "a/b/c/dup.yaml")
        try r.git("add", "-f", "a/b/tracked.local.yaml")
        try r.git("commit", "-q", "-m", "init")   // (not `add -A`: the rest stays untracked)
        for run in ["cold", "warm"] {
            let res = try r.audit("--format", "json")
            #expect(res.findings == [
                "image-latest-tag a/a.yaml:8:14",
                "image-latest-tag a/b/c/dup.yaml:8:14",
                "file-skipped a/b/escape.yaml:1:1",
                "image-latest-tag a/b/inside.yaml:8:14",
                "file-skipped a/b/loop.yaml:1:1",
                "object-duplicate a/b/new/untracked.yaml:2:7",
                "image-latest-tag a/b/new/untracked.yaml:8:14",
                "image-latest-tag a/b/tracked.local.yaml:8:14",
                "object-duplicate a/c.yaml:2:7",
                "image-latest-tag a/c.yaml:8:14",
                "image-latest-tag z/y/deep.yaml:8:14",
            ], "\(run)")
            let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
            #expect(messages[2].hasPrefix("skipped: symlink points outside the repository"), "\(run)")
            #expect(messages[4] == "skipped: symlink loop", "\(run)")
            #expect(messages[5].hasPrefix("Pod n is also defined, identically, in a/b/inside.yaml:2:"), "\(run)")
            #expect(messages[8].hasPrefix("Pod same is also defined, identically, in a/b/c/dup.yaml:2:"), "\(run)")
        }
        #expect(FileManager.default.fileExists(atPath: r.path + "/.git/tagwarden/listings"))
    }

    @Test func configSeverityAndDisabledRules() throws {
        let r = try TempRepo()
        try r.declareOneCluster("rules:\n  image-floating-tag: {severity: error}\n  image-latest-tag: {enabled: false}\nignore: [\"vendor/**\"]\n")
        try r.write("a.yaml", pod("a", images: ["nginx:latest", "redis:main", "redis:7"]))
        try r.write("vendor/b.yaml", pod("b", images: ["nginx"]))
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-floating-tag a.yaml:10:14", "image-floating-tag a.yaml:12:14"])
        // a branch name moves: an error, as the config says; that `7` is a series is an assumption: at most a warning
        #expect(res.findingObjects.map { $0["severity"] as? String } == ["error", "warning"])
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

