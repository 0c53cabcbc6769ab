import TagwardenFixtures
import Foundation
import Testing

/// Bad input ends in a finding or a clear message with the right exit code, never a crash.
@Suite struct BadInputTests {
    func single(_ name: String, _ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> (RunResult, TempRepo) {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write(name, data)
        return (try r.audit("--format", "json", sourceLocation: sourceLocation), r)
    }

    func message(_ res: RunResult) -> String { res.findingObjects.first?["message"] as? String ?? "" }

    @Test func truncatedYAML() throws {
        let (res, _) = try single("t.yaml", Data("apiVersion: v1\nkind: Pod\nmetadata:\n  name: 'unterminated\n".utf8))
        #expect(res.code == 1)
        #expect(res.findings == ["yaml-syntax t.yaml:5:1"])
        #expect(message(res).contains("quoted scalar"))
    }

    @Test func tabIndentation() throws {
        let (res, _) = try single("t.yaml", Data("apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n".utf8))
        #expect(res.findings == ["yaml-syntax t.yaml:4:1"])
        #expect(message(res).contains("cannot start any token"))
    }

    @Test func invalidUTF8() throws {
        let (res, _) = try single("u.yaml", Data([0x61, 0x3A, 0x20, 0x62, 0x0A, 0x63, 0x3A, 0x20, 0xE2, 0x28, 0xA1, 0x0A]))
        #expect(res.findings == ["yaml-syntax u.yaml:2:4"])
        #expect(message(res).contains("UTF-8"))
    }

    @Test func tenThousandDeepNesting() throws {
        let deep = "a: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        let (res, r) = try single("deep.yaml", Data(deep.utf8))
        #expect(res.findings == ["yaml-syntax deep.yaml:1:259"])
        #expect(message(res) == "YAML syntax error: nesting is deeper than 256 levels")
        // the text report shows a 200-column window of the 20,003-character line around the span, not all of it
        let text = try r.audit("--no-color")
        #expect(text.stdout.contains(" 1 | …" + String(repeating: "[", count: 200) + "…\n   | " + String(repeating: " ", count: 41) + "^\n"))
        let block = (0..<300).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n") + " v\n"
        let (res2, _) = try single("block.yaml", Data(block.utf8))
        #expect(res2.findings == ["yaml-syntax block.yaml:257:257"])
    }

    @Test func aliasBomb() throws {
        var text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for i in 1...9 { text += "  a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 9).joined(separator: ", ") + "]\n" }
        let (res, _) = try single("bomb.yaml", Data(text.utf8))
        // kept as references, it costs nothing here; Go's reader stops expanding it and refuses the file
        #expect(res.code == 1)
        #expect(res.findings == ["yaml-syntax bomb.yaml:9:32"])
        #expect(message(res).hasPrefix("alias '*a2' expands the document past go-yaml's limit (excessive aliasing)"))
    }

    @Test func aByteOrderMarkInsideTheFileIsNamed() throws {
        // two files joined end to end, each with its BOM: Go's YAML skips the second, libyaml refuses it
        let one = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
        let (res, _) = try single("joined.yaml", Data(("\u{FEFF}" + one + "---\n\u{FEFF}" + one).utf8))
        #expect(res.code == 1)
        #expect(res.findings == ["yaml-syntax joined.yaml:6:1"])
        #expect(message(res) == "YAML syntax error: a byte-order mark (U+FEFF) starts line 6: libyaml refuses it after the first line (Go's YAML skips it), "
            + "and the parse fails at line 7 (did not find expected <document start>); remove it")
    }

    @Test func documentsGoRefusesAreReportedWhereTheProblemIs() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/web.yaml", """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              namespace: prod
              labels:
                ~: web
            spec:
              replicas: !!int three
              template:
                spec:
                  containers:
                    - name: web
                      image: ghcr.io/acme/web:1.2.3
            """)
        // a second merge key: kustomize refuses it, Helm (reading a chart's own values) does not
        let values = "base: &base {pullPolicy: IfNotPresent}\nextra: &extra {tag: 1.2.3}\nimage:\n  <<: *base\n  <<: *extra\n"
        try r.write("apps/values.yaml", values)
        try r.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n")
        try r.write("charts/web/values.yaml", values)
        let res = try r.audit("--format", "json")
        #expect(res.code == 1)
        #expect(res.findings == ["yaml-syntax apps/values.yaml:5:3", "yaml-syntax apps/web.yaml:7:5", "yaml-syntax apps/web.yaml:9:19"])
        #expect(res.findingObjects.map { $0["message"] as? String ?? "" } == [
            "a second merge key '<<' in one mapping (first at line 4): kustomize, which Flux's kustomize-controller runs, refuses the file; merge a list instead, `<<: [*a, *b]`",
            "a null key ('~'): JSON keys are strings, and kubectl, Helm and Flux's controllers reject the file; quote it for a string",
            "'!!int three' is a !!str, not a !!int: kubectl, Helm and Flux's controllers reject the file",
        ])
    }

    @Test func binaryFileAndNULByte() throws {
        let r = try TempRepo()
        try r.write("image.yaml", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D]))
        try r.write("nul.yaml", Data("a: 1\nb: x\u{0}y\n".utf8))
        let res = try r.audit("--format", "json")
        #expect(res.code == 0)  // notes do not fail the run
        #expect(res.findings == ["file-skipped image.yaml:1:1", "file-skipped nul.yaml:1:1"])
        #expect(res.findingObjects.map { $0["message"] as? String ?? "" } == [
            "skipped: binary content (a NUL byte at offset 8)", "skipped: binary content (a NUL byte at offset 9)",
        ])
        #expect(res.findingObjects.first?["severity"] as? String == "note")
    }

    @Test func fiftyMegabyteFile() throws {
        let r = try TempRepo()
        let line = Data("- image: nginx:latest\n".utf8)
        var big = Data(capacity: 50 << 20)
        while big.count < 50 << 20 { big.append(line) }
        try r.write("big.yaml", big)
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["file-skipped big.yaml:1:1"])
        #expect(message(res) == "skipped: larger than the 10 MiB limit (50 MiB)")
        // the limit is configurable
        let small = try r.audit("--format", "json", "--max-file-size", "1KiB")
        #expect(small.findings == ["file-skipped big.yaml:1:1"])
        #expect((small.findingObjects.first?["message"] as? String)?.contains("1 KiB limit") == true)
        // but not past 1 GiB, where positions would no longer fit their 32 bits
        let huge = try r.audit("--format", "json", "--max-file-size", "2G")
        #expect(huge.code == 2 && huge.stderr.contains("--max-file-size can be at most 1GiB: Tagwarden reads no larger file"), "\(huge.described)")
    }

    @Test func crlfAndBOMKeepColumns() throws {
        let r = try TempRepo()
        let text = "\u{FEFF}apiVersion: v1\r\nkind: Pod\r\nmetadata:\r\n  name: é\r\nspec:\r\n  containers:\r\n    - name: ü\r\n      image: nginx:latest # ¡\r\n"
        try r.write("crlf.yaml", Data(text.utf8))
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag crlf.yaml:8:14"])
        #expect(res.findingObjects.first?["endColumn"] as? Int == 26)
        let textReport = try r.audit("--no-color")
        #expect(textReport.stdout.contains(" 8 |       image: nginx:latest # ¡\n   |              ^~~~~~~~~~~~\n"))
    }

    @Test func controlCharactersNeverReachTheTerminal() throws {
        // a double-quoted YAML string can hold an escape character: the text report shows it as U+FFFD
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("esc.yaml", Data("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: a\n      image: \"nginx\\e[31m:1\"\n".utf8))
        let res = try r.audit("--no-color")
        #expect(res.code == 1)
        #expect(!res.stdout.contains("\u{1B}"))
        #expect(res.stdout.contains("esc.yaml:8:14: error[image-invalid-reference]: 'nginx\u{FFFD}[31m:1' is not a valid image reference: repository path 'nginx\u{FFFD}[31m' contains '\u{FFFD}'"))
    }

    @Test func unreadableFile() throws {
        let r = try TempRepo()
        try r.write("ok.yaml", pod("a", images: ["nginx:1.25.3"]))
        if getuid() == 0 {
            // root reads any file: a FIFO named .yaml is the unreadable case here (opening it must not block)
            #expect(mkfifo(r.path + "/fifo.yaml", 0o644) == 0)
            let res = try r.audit("--format", "json")
            #expect(res.findings == ["file-skipped fifo.yaml:1:1"])
            #expect(message(res) == "skipped: not a regular file")
        } else {
            try r.write("secret.yaml", "a: 1\n")
            #expect(chmod(r.path + "/secret.yaml", 0) == 0)
            let res = try r.audit("--format", "json")
            #expect(res.findings == ["file-skipped secret.yaml:1:1"])
            #expect(message(res).contains("Permission denied"))
        }
    }

    @Test func missingRevision() throws {
        let r = try TempRepo()
        try r.write("a.yaml", "a: 1\n")
        try r.commitAll("one")
        let res = try r.audit("--rev", "no-such-branch")
        #expect(res.code == 2)
        #expect(res.stderr.hasPrefix("tagwarden: error: unknown revision 'no-such-branch'"))
        #expect(!res.stderr.contains("Fatal"))
        let unborn = try TempRepo()
        let res2 = try unborn.audit("--rev", "HEAD")
        #expect(res2.code == 2 && res2.stderr == "tagwarden: error: unknown revision 'HEAD': the repository has no commits yet\n", "\(res2.stderr)")
        let res3 = try tagwarden(["check", "--base", "main"], in: unborn.path)
        #expect(res3.code == 2 && res3.stderr == "tagwarden: error: unknown revision 'main': the repository has no commits yet\n", "\(res3.stderr)")
    }

    @Test func pathOutsideAnyRepository() throws {
        let plain = try TempRepo(git: false)
        try plain.declareOneCluster()
        try plain.write("apps/a.yaml", pod("a", images: ["nginx:latest"]))
        let res = try plain.audit("--format", "json")
        #expect(res.code == 1)
        #expect(res.findings == ["image-latest-tag apps/a.yaml:8:14"])
        #expect((res.json["source"] as? [String: Any])?["rev"] is NSNull)
        let rev = try plain.audit("--rev", "HEAD")
        #expect(rev.code == 2 && rev.stderr.contains("--rev needs a git repository"))
        let missing = try tagwarden(["audit", "/nonexistent/path"], in: plain.path)
        #expect(missing.code == 2)
        #expect(missing.stderr == "tagwarden: error: /nonexistent/path: No such file or directory\n")
    }

    @Test func invalidConfig() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\nenvironments:\n  - name: production\n    tagPrefix: [production-]\n")
        let res = try r.audit()
        #expect(res.code == 2)
        #expect(res.stderr == "tagwarden: error: .tagwarden.yaml:4:16: tagPrefix must be a string\n")
        let bad = try tagwarden(["audit", "--config", "nope.yaml"], in: r.path)
        #expect(bad.code == 2 && bad.stderr.contains("nope.yaml: cannot be read: No such file or directory"))
    }
}
