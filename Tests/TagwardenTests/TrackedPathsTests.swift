import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct TrackedPathsTests {
    @Test func pathsAreNormalisedAsKustomizeJoinsThem() {
        let cases: [(String, String?)] = [
            ("apps/base", "apps/base"), ("apps/production/web/../../base/web", "apps/base/web"), ("a/./b/../c", "a/c"),
            ("./apps", "apps"), ("/apps/", "apps"), ("a//b", "a/b"), ("a/..", ""), ("", ""), (".../a", ".../a"),
            ("a/..b/c", "a/..b/c"), ("a/b/../../c/./d", "c/d"), ("../x", nil), ("a/../..", nil), ("é/./ü", "é/ü"),
        ]
        for (path, normal) in cases { #expect(Model.normalizePath(path) == normal, "\(path)") }
    }

    @Test func knowsTrackedFilesAndTheDirectoriesThatHoldThem() {
        // out of byte order, as an index written with core.ignoreCase is, and a directory's files apart
        let t = Sources.TrackedPaths(["b/x.yaml", "A/y.yaml", "a/b/c.yaml", "a/b.yaml", "a-b/z.yaml", "top.yaml", "a/b/d/e/f.yaml", "b/w.yaml"])
        #expect(t.contains("a/b.yaml") && t.contains("b/x.yaml") && t.contains("A/y.yaml") && t.contains("top.yaml"))
        #expect(!t.contains("a/b") && !t.contains("a/c.yaml") && !t.contains("c.yaml"))
        #expect(t.containsDirectory("a") && t.containsDirectory("a/b") && t.containsDirectory("a-b") && t.containsDirectory("A"))
        #expect(t.containsDirectory("a/b/d") && t.containsDirectory("a/b/d/e") && t.containsDirectory("b"))
        #expect(!t.containsDirectory("a/b.yaml") && !t.containsDirectory("a/c") && !t.containsDirectory("c") && !t.containsDirectory("b/x"))
        #expect(!t.containsDirectory("") && !t.containsDirectory("a/") && !t.containsDirectory("top.yaml") && !t.containsDirectory("a/b/d/e/f.yaml"))
    }

    @Test func aFileIsDirectlyInItsOwnDirectoryOnly() {
        let cases: [(String, String, Bool)] = [
            ("apps/web.yaml", "apps", true), ("apps/web/deploy.yaml", "apps", false), ("apps2/web.yaml", "apps", false),
            ("web.yaml", "", true), ("apps/web.yaml", "", false), ("apps", "apps", false), ("apps/", "apps", false),
            ("a/b/c.yaml", "a/b", true), ("a/bc/d.yaml", "a/b", false),
        ]
        for (path, dir, want) in cases { #expect(Path.isDirectlyIn(path, dir) == want, "\(path) in \(dir)") }
    }

    @Test func aPathIsBelowADirectoryByItsBytesAsGoComparesThem() {
        let cases: [(String, String, Bool)] = [
            ("apps/web.yaml", "apps", true), ("apps/web/deploy.yaml", "apps", true), ("apps2/web.yaml", "apps", false),
            ("apps", "apps", false), ("apps/", "apps", true), ("web.yaml", "", true), ("a", "", true), ("", "", true),
            ("app", "apps", false), ("apps/x", "apps/", false), ("apps//x", "apps/", true),
            // precomposed and decomposed é are two names, as for Go's strings.HasPrefix (Swift's hasPrefix equates them)
            ("caf\u{E9}/x.yaml", "cafe\u{301}", false), ("cafe\u{301}/x.yaml", "cafe\u{301}", true),
        ]
        for (path, dir, want) in cases { #expect(Path.isBelow(path, dir) == want, "\(path) below \(dir)") }
    }

    @Test func pathsAreComparedAsBytesAsGitComparesThem() {
        // "é" composed (NFC) and decomposed (NFD): one string to Swift, two paths to git and the file system
        let composed = "apps/caf\u{E9}.yaml", decomposed = "apps/cafe\u{301}.yaml"
        #expect(composed == decomposed)
        let one = Sources.TrackedPaths([composed])
        #expect(one.contains(composed) && !one.contains(decomposed))
        let both = Sources.TrackedPaths([composed, decomposed])
        #expect(both.contains(composed) && both.contains(decomposed))
    }
}
