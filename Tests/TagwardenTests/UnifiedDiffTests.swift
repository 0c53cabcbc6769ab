import Testing
import Foundation
@testable import TagwardenUpdate

/// The diff `update --dry-run` prints, held to git's own: the same hunks as `git diff --no-index`.
@Suite struct UnifiedDiffTests {
    func gitDiff(_ a: [UInt8], _ b: [UInt8]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tw-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(a).write(to: dir.appendingPathComponent("a"))
        try Data(b).write(to: dir.appendingPathComponent("b"))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        p.arguments = ["-c", "core.autocrlf=false", "diff", "--no-index", "--no-color", "--diff-algorithm=myers", "-U3", "a", "b"]
        p.currentDirectoryURL = dir
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        // from the first hunk on: git's header names the two files and their blobs
        let text = String(decoding: data, as: UTF8.self)
        guard let at = text.range(of: "\n@@") else { return "" }
        return String(text[text.index(after: at.lowerBound)...])
    }

    func ours(_ a: [UInt8], _ b: [UInt8]) -> String {
        let text = UnifiedDiff.render(path: "f", before: a, after: b)
        guard let at = text.range(of: "\n@@") else { return "" }
        return String(text[text.index(after: at.lowerBound)...])
    }

    @Test func hunksAreGits() throws {
        // files of 60 lines, a few lines changed (as an update changes them), some far apart and some close
        var rng = SystemRandomNumberGenerator()
        for round in 0..<40 {
            let lines = (0..<60).map { "line \($0) of \(round)\(round % 5 == 0 ? "\r" : "")\n" }
            var changed = lines
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                let i = Int.random(in: 0..<60, using: &rng)
                changed[i] = "changed \(i)\n"
            }
            let a = Array(lines.joined().utf8)
            var b = Array(changed.joined().utf8)
            if round % 7 == 0 { b.removeLast() }   // no newline at the end
            let (mine, gits) = (ours(a, b), try gitDiff(a, b))
            #expect(mine == gits, "round \(round)\nours:\n\(mine)\ngit:\n\(gits)")
        }
    }

    @Test func noChangeNoDiff() {
        #expect(UnifiedDiff.render(path: "f", before: Array("a\n".utf8), after: Array("a\n".utf8)) == "")
    }

    @Test func headerAndColours() {
        let d = UnifiedDiff.render(path: "apps/x.yaml", before: Array("a: 1\n".utf8), after: Array("a: 2\n".utf8), color: true)
        #expect(d == "\u{1B}[1m--- a/apps/x.yaml\u{1B}[0m\n\u{1B}[1m+++ b/apps/x.yaml\u{1B}[0m\n\u{1B}[36m@@ -1 +1 @@\u{1B}[0m\n"
                + "\u{1B}[31m-a: 1\u{1B}[0m\n\u{1B}[32m+a: 2\u{1B}[0m\n")
    }
}
