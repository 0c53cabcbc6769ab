@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport
import Testing

/// The automaton analysis against brute force: for generated patterns, every tag of one and two characters is tried
/// in byte order with the matcher; the witness must be the first that both languages accept, or, when none is that
/// short, longer and accepted by both (or none at all).
@Suite struct WitnessAgreementTests {
    @Test func witnessesAreTheFirstTagsBruteForceFinds() throws {
        var r = EngineAgreementTests.SplitMix(state: 4_2026_1122)
        let alphabet = Array("-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz").map(String.init)
        var short: [String] = alphabet.filter { $0 != "-" && $0 != "." }   // a tag starts with neither
        for a in alphabet where a != "-" && a != "." { for b in alphabet { short.append(a + b) } }
        short.sort { $0.utf8.count != $1.utf8.count ? $0.utf8.count < $1.utf8.count : $0 < $1 }
        var decided = 0, found = 0
        for _ in 0..<300 {
            guard let a = try? GoRegex(EngineAgreementTests.pattern(&r)) else { continue }
            let others: [(TagLanguage, (String) -> Bool)] = [(.any, { _ in true }), (.prefix("a"), { $0.hasPrefix("a") })]
                + ((try? GoRegex(EngineAgreementTests.pattern(&r))).map { b in [(.matching(b), { b.matches($0) })] } ?? [])
            for (other, accepts) in others {
                let expected = short.first { a.matches($0) && accepts($0) }
                switch TagLanguage.search([.matching(a), other]) {
                case .witness(let w):
                    decided += 1
                    found += 1
                    if let expected { #expect(w == expected, "\(a.pattern)") } else {
                        #expect(w.utf8.count > 2 && a.matches(w) && accepts(w), "\(a.pattern): \(w)")
                    }
                case .none:
                    decided += 1
                    #expect(expected == nil, "\(a.pattern): brute force found \(expected ?? "")")
                case .undecided:
                    break
                }
            }
        }
        #expect(decided > 600 && found > 300, "\(decided) decided, \(found) with a witness")
    }
}
