import TagwardenFixtures
import Foundation
import Testing

/// The harness fails loudly: output that is not the report a test reads, and a process that died, are test failures,
/// never an empty list of findings.
@Suite struct RunResultTests {
    let r: TempRepo

    init() throws {
        r = try TempRepo(git: false)
        try r.declareOneCluster()
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
    }

    @Test func aJSONReportIsReadSilently() throws {
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag a.yaml:8:14"])
        #expect(res.findingObjects.first?["severity"] as? String == "error")
    }

    @Test func anotherFormatIsNoJSONReport() throws {
        let text = try r.audit("--no-color")
        withKnownIssue {
            #expect(text.findings == [])
        } matching: { issue in
            "\(issue)".contains("not a JSON object holding a 'findings' array: exit code 1\nstdout: tagwarden 0.1.0")
        }
        // a SARIF log holds runs, not findings; a JSON report no runs
        let sarif = try r.audit("--format", "sarif")
        #expect((sarif.sarif["runs"] as? [Any])?.count == 1)
        withKnownIssue { _ = sarif.findingObjects }
        withKnownIssue { _ = try r.audit("--format", "json").sarif }
    }

    @Test func anErrorIsNoJSONReport() throws {
        let res = try r.audit("--format", "json", "--fail-on", "sometimes")
        #expect(res.code == 2)
        withKnownIssue {
            #expect(res.findings.isEmpty)
        } matching: { issue in
            "\(issue)".contains("exit code 2") && "\(issue)".contains("stderr: ") && "\(issue)".contains("sometimes")
        }
    }

    @Test func aProcessKilledByASignalIsAFailure() throws {
        let res = try run("/bin/sh", ["-c", "kill -SEGV $$"], cwd: r.path)
        #expect(res.signalled && res.code == 11)
        withKnownIssue {
            recordDeath(of: res, running: ["audit"])
        } matching: { issue in
            "\(issue)".contains("tagwarden audit died: killed by signal 11")
        }
        withKnownIssue { _ = res.json }
    }
}
