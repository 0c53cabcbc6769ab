@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport
import Testing

/// The backtracker (short ASCII inputs) and the Pike VM (everything else) must give the same leftmost-first
/// match with the same submatches, for any pattern: thousands of generated patterns and subjects, seeded.
@Suite struct EngineAgreementTests {
    struct SplitMix {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }

    static func pattern(_ r: inout SplitMix, depth: Int = 0) -> String {
        let atoms = ["a", "b", "-", ".", "[ab]", "[^a]", #"\d"#, #"\w"#, "0", "^", "$", #"\b"#, #"\B"#, "(?i:A)", "x"]
        var out = ""
        for _ in 0..<(1 + r.next(4)) {
            var piece: String
            if depth < 3, r.next(4) == 0 {
                let inner = pattern(&r, depth: depth + 1)
                let alt = r.next(3) == 0 ? "|" + pattern(&r, depth: depth + 1) : ""
                piece = ["(", "(?:", "(?P<g\(depth)\(r.next(9))>"][r.next(3)] + inner + alt + ")"
            } else {
                piece = atoms[r.next(atoms.count)]
            }
            if piece != "^", piece != "$", !piece.hasPrefix(#"\b"#), !piece.hasPrefix(#"\B"#) {
                piece += ["", "", "*", "+", "?", "{0,2}", "{2}", "*?", "+?", "??", "{1,3}?"][r.next(11)]
            }
            out += piece
        }
        return out
    }

    @Test func backtrackerAndPikeVMAgree() {
        var r = SplitMix(state: 20261122)
        var compared = 0, matched = 0
        for _ in 0..<3000 {
            let p = EngineAgreementTests.pattern(&r)
            guard let re = try? GoRegex(p), Backtracker.fits(re.program, length: 16) else { continue }
            for _ in 0..<12 {
                let subject = (0..<r.next(14)).map { _ in ["a", "b", "0", "1", "-", ".", "x", "A", "_"][r.next(9)] }.joined()
                let bytes = Array(subject.utf8)
                let (pike, back, bare) = bytes.withUnsafeBufferPointer { b -> ([Int]?, [Int]?, [Int]?) in
                    var steps = 0
                    let backtracker = Backtracker(prog: re.program)
                    return (PikeVM(prog: re.program).pikeOnly(b), backtracker.run(b, steps: &steps), backtracker.run(b, captures: false, steps: &steps))
                }
                #expect(pike == back, "pattern \(p) subject '\(subject)': Pike VM \(String(describing: pike)), backtracker \(String(describing: back))")
                #expect((bare != nil) == (pike != nil) && bare?.isEmpty != false, "pattern \(p) subject '\(subject)': without captures \(String(describing: bare))")
                if pike != back { return }
                compared += 1
                if pike != nil { matched += 1 }
            }
        }
        #expect(compared > 20_000 && matched > 5_000, "\(compared) compared, \(matched) matched")
    }

    /// Long subjects stack more jobs than the backtracker's first, shallow stack holds: the search that runs again with
    /// room for them all gives the Pike VM's answer, and counts its steps once.
    @Test func deepJobStacksAgree() throws {
        for p in ["(a|b)*c?", "^(?P<v>[ab]+?)(x|a)*$", "(a*)*b", "((a|ab)(c|bcd))*(d*)"] {
            let re = try GoRegex(p)
            for subject in [String(repeating: "ab", count: 150), String(repeating: "a", count: 299) + "b", String(repeating: "abcd", count: 60)] {
                let bytes = Array(subject.utf8)
                guard Backtracker.fits(re.program, length: bytes.count) else { continue }
                let (pike, back, steps) = bytes.withUnsafeBufferPointer { b -> ([Int]?, [Int]?, Int) in
                    var steps = 0
                    return (PikeVM(prog: re.program).pikeOnly(b), Backtracker(prog: re.program).run(b, steps: &steps), steps)
                }
                #expect(pike == back, "pattern \(p) subject '\(subject)'")
                #expect(steps <= re.program.insts.count * (bytes.count + 1), "pattern \(p): \(steps) steps")
            }
        }
    }
}
