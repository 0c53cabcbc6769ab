import Foundation
import Testing
@testable import TagwardenCore

@Suite struct TmpSemverDiff {
    @Test func againstGo() throws {
        let text = try String(contentsOfFile: "/tmp/semdiff/cases.tsv", encoding: .utf8)
        var bad = 0
        var kinds: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
            let pair = try JSONSerialization.jsonObject(with: Data(parts[0].utf8)) as! [String]
            let want = String(parts[1])
            var got: String
            do {
                let c = try SemverConstraint(pair[0])
                if let v = SemVersion.parse(pair[1]) { got = c.check(v, flux: .legacy) ? "true" : "false" } else { got = "VERSION-ERR" }
            } catch { got = "RANGE-ERR" }
            if got != want {
                bad += 1
                kinds["\(want)->\(got)", default: 0] += 1
                if bad < 40 { print("DIFF", pair, "go", want, "ours", got) }
            }
        }
        print("diffs", bad, kinds)
    }
}
