import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct SuggestTests {
    /// Levenshtein distance over UTF-8 bytes, the full table.
    func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        var prev = Array(0...y.count)
        for i in x.indices {
            var cur = [i + 1]
            for j in y.indices { cur.append(min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (x[i] == y[j] ? 0 : 1))) }
            prev = cur
        }
        return prev[y.count]
    }

    /// The plain definition: the closest candidate within the limit, ties broken by name.
    func bruteForce(_ word: String, _ candidates: [String]) -> String? {
        let limit = max(2, word.count / 3)
        return candidates.map { (distance(word, $0), $0) }.filter { $0.0 <= limit }.min { $0 < $1 }?.1
    }

    @Test func pruningFindsWhatTheFullDistanceFinds() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("ab-:xyzé")
        func word() -> String { String((0..<Int.random(in: 0...14, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }) }
        for _ in 0..<300 {
            let candidates = (0..<Int.random(in: 0...40, using: &rng)).map { _ in word() }
            let s = Suggester(candidates)
            for _ in 0..<10 {
                let w = word()
                #expect(s.nearest(w) == bruteForce(w, candidates), "\(w) in \(candidates)")
            }
        }
    }

    @Test func examples() {
        #expect(Suggest.nearest("flux-system:web-prod", in: ["flux-system:web-production", "flux-system:web-staging", "flux-system:api-prod"])
                == "flux-system:api-prod")
        #expect(Suggest.nearest("image-latest", in: ["image-latest-tag", "image-missing-tag"]) == "image-latest-tag")
        #expect(Suggest.nearest("zzzz", in: ["image-latest-tag"]) == nil)
        #expect(Suggest.nearest("ab", in: ["ba", "ab"]) == "ab")
        #expect(Suggest.nearest("ab", in: ["ba", "bb"]) == "bb")   // one edit against two: the nearer wins, not the first
    }
}
