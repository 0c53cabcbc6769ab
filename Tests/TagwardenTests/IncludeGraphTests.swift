import Testing
@testable import TagwardenModel

/// The one walk up the kustomizations' chains: its cycle and depth policy, and what the walks built on it give.
@Suite struct IncludeGraphTests {
    func model(_ files: [String: String]) throws -> Model {
        try Model.build(files.sorted { $0.key < $1.key }.map { SourceFile(path: $0.key, bytes: Array($0.value.utf8)) }, config: Config(), profile: nil)
    }

    static let configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"

    /// Each directory includes the next; the top one sets the namespace, which reaches the bottom's object.
    func chain(_ n: Int) -> [String: String] {
        var files = ["d0/kustomization.yaml": "namespace: shop\nresources: [../d1]\n"]
        for i in 1..<n { files["d\(i)/kustomization.yaml"] = "resources: [../d\(i + 1)]\n" }
        files["d\(n)/kustomization.yaml"] = "resources: [cm.yaml]\n"
        files["d\(n)/cm.yaml"] = Self.configMap
        return files
    }

    @Test func aChainPassesTheNamespaceDown() throws {
        let m = try model(chain(10))
        let cm = m.objects.indices.first { m.objects[$0].kind == "ConfigMap" }!
        #expect(m.objectNamespace[cm] == "shop")
        #expect(m.graph.includers(of: "d10/cm.yaml") == m.objects.indices.filter { m.path(m.objects[$0].file) == "d10/kustomization.yaml" })
    }

    /// One walk goes at most `maxDepth` kustomizations up (the stack stays bounded); the values the walks from the
    /// kustomizations above made are reused, so a longer chain still passes its namespace down.
    @Test func aChainLongerThanTheDepthIsWalkedInParts() throws {
        let m = try model(chain(IncludeGraph.maxDepth + 10))
        let cm = m.objects.indices.first { m.objects[$0].kind == "ConfigMap" }!
        #expect(m.objectNamespace[cm] == "shop")
        let k = m.graph.includers(of: "d\(IncludeGraph.maxDepth + 10)/cm.yaml")[0]
        #expect(m.graph.parents(of: k, depth: IncludeGraph.maxDepth) == [])
        #expect(m.graph.parents(of: k, depth: 0).count == 1)
    }

    /// The tops of the builds that take a file: two overlays of one base are its two tops, each once; a cycle above
    /// adds none.
    @Test func theTopsOfAFilesBuildsAreTheKustomizationsNothingIncludes() throws {
        var files = chain(3)
        files["e0/kustomization.yaml"] = "resources: [../d2]\n"
        files["c1/kustomization.yaml"] = "resources: [../c2, ../d1]\n"
        files["c2/kustomization.yaml"] = "resources: [../c1]\n"
        let m = try model(files)
        let tops = m.graph.tops(of: "d3/cm.yaml", memo: IncludeGraph.Memo(cycle: [])).map { m.path(m.objects[$0].file) }
        #expect(tops.sorted() == ["d0/kustomization.yaml", "e0/kustomization.yaml"])
    }

    /// Two kustomizations that include each other (kustomize refuses the cycle): the walks end, and the cycle adds no
    /// namespace of its own.
    @Test func aCycleAddsNothing() throws {
        let m = try model(["a/kustomization.yaml": "namespace: shop\nresources: [../b, cm.yaml]\n",
                       "b/kustomization.yaml": "resources: [../a]\n", "a/cm.yaml": Self.configMap])
        let cm = m.objects.indices.first { m.objects[$0].kind == "ConfigMap" }!
        #expect(m.objectNamespace[cm] == "shop")
    }

    @Test func theMemoGivesACycleItsValue() {
        let memo = IncludeGraph.Memo<Int, Int>(cycle: -1)
        func depth(_ k: Int) -> Int { memo.value(k) { k == 0 ? 0 : 1 + depth(k == 3 ? 3 : k - 1) } }
        #expect(depth(2) == 2)
        #expect(depth(3) == 0)   // 3 → 3 is a cycle: 1 + (-1)
    }

    /// `FluxIndex.pathsHoldingFiles` finds each path by bisection of the files in byte order: a file itself, the root,
    /// directories at every depth, paths that hold nothing, a name that is only a prefix of a directory's, and a file
    /// that sorts between a directory's name and its files (`a/b-x.yaml` between `a/b` and `a/b/`); in whatever order the
    /// files come.
    @Test func pathsHoldingFilesFindsDirectoriesAndFiles() {
        let files = ["a/b-x.yaml", "a/b/c.yaml", "a/b/d.yaml", "a/bx/e.yaml", "f.yaml", "g/h/i/j.yaml"]
        let candidates = ["", "a", "a/b", "a/b/c.yaml", "a/bx", "a/b/c", "g", "g/h", "g/h/i", "g/h/i/j.yaml", "f.yaml", "x", "a/", "g/h/i/j",
                          "a/b-", "a/b-x.yaml/"]
        let expected: Set<String> = ["", "a", "a/b", "a/b/c.yaml", "a/bx", "g", "g/h", "g/h/i", "g/h/i/j.yaml", "f.yaml"]
        #expect(FluxIndex.pathsHoldingFiles(among: Set(candidates), files) == expected)
        #expect(FluxIndex.pathsHoldingFiles(among: Set(candidates), files.reversed()) == expected)
        #expect(FluxIndex.pathsHoldingFiles(among: Set(candidates + (0..<20).map { "none/\($0)" }), files) == expected)
        #expect(FluxIndex.pathsHoldingFiles(among: ["a"], []).isEmpty)
    }
}
