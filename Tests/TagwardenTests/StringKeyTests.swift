import Testing
@testable import TagwardenBasics

/// `StringKey`: strings compared and hashed by their UTF-8 bytes, as Go compares the paths and names Flux matches.
@Suite struct StringKeyTests {
    /// Every length around the eight-byte steps and the overlapping last word, small strings and heap ones.
    static let strings: [String] = (0...40).map { String(repeating: "a", count: $0) }
        + (0...40).map { String("clusters/production/apps/web/kustomization.yaml".prefix($0)) }
        + ["é", "e\u{301}", "ü/ä", "apps/𝒲eb", "a\u{0}b", "a\u{0}c"]

    @Test func equalKeysHashAlikeAndDistinctKeysDiffer() {
        var hashes: [Int: String] = [:]
        for s in Self.strings {
            let k = StringKey(s)
            #expect(k == StringKey(String(decoding: Array(s.utf8), as: UTF8.self)))
            #expect(k._rawHashValue(seed: 7) == StringKey(String(decoding: Array(s.utf8), as: UTF8.self))._rawHashValue(seed: 7))
            // the table's seed changes the hash
            #expect(k._rawHashValue(seed: 7) != k._rawHashValue(seed: 8))
            if let other = hashes[k._rawHashValue(seed: 0)] { #expect(StringKey(other) == k, "\(other) and \(s) collide") }
            hashes[k._rawHashValue(seed: 0)] = s
        }
        // the bytes decide, not Unicode's canonical equivalence: é precomposed and decomposed are two names (Swift's
        // String calls them equal)
        #expect("é" == "e\u{301}")
        #expect(StringKey("é") != StringKey("e\u{301}"))
        #expect(StringKey("a\u{0}b") != StringKey("a\u{0}c"))
    }

    @Test func orderIsByteOrder() {
        let sorted = Self.strings.map(StringKey.init).sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            #expect(!Array(b.string.utf8).lexicographicallyPrecedes(Array(a.string.utf8)), "\(a) before \(b)")
        }
    }

    @Test func mapsAndSetsActAsDictionariesAndSetsOfStrings() {
        var map = StringMap<Int>()
        var dict: [String: Int] = [:]
        var set = StringSet()
        // (but the two spellings of é, which a dictionary of Strings takes for one)
        for (i, s) in (Self.strings + Self.strings.reversed()).enumerated() where s != "é" && s != "e\u{301}" {
            map[s, default: 0] += i
            dict[s, default: 0] += i
            let had = set.contains(s)
            #expect(set.insert(s).inserted == !had)
        }
        #expect(map.count == dict.count && set.count == dict.count)
        for (k, v) in dict {
            #expect(map[k] == v)
            #expect(set.contains(k))
        }
        #expect(Set(map.keys) == Set(dict.keys))
        #expect(map.removeValue(forKey: "a") == dict["a"])
        #expect(map["a"] == nil)
        #expect(set.remove("a") == "a" && !set.contains("a"))
    }
}
