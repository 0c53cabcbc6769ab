import Testing
@testable import TagwardenBasics
@testable import TagwardenModel
@testable import TagwardenLint

/// A check's second tree takes the first tree's facts of the files both hold (`SharedExtraction`).
@Suite struct SharedExtractionTests {
    static func deployment(_ name: String, _ image: String) -> String {
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: \(name)
        spec:
          template:
            spec:
              containers:
                - name: \(name)
                  image: \(image)

        """
    }

    static let first: [String: String] = [
        "apps/a.yaml": deployment("a", "nginx:latest"),
        "apps/a2.yaml": deployment("a2", #"ghcr.io/acme/a2:1.0.0 # {"$imagepolicy": "flux-system:a2"}"#)
            + "---\n" + deployment("a3", "ghcr.io/acme/a3:${TAG}"),
        "apps/b.yaml": deployment("b", #"ghcr.io/acme/b:1.0.0 # {"$imagepolicy": "flux-system:b"}"#),
        "apps/c.yaml": deployment("c", "ghcr.io/acme/c:1.0.0"),
        "apps/d.yaml": deployment("d", "redis"),
    ]

    /// The second tree: a file added before the others (`a`, `a2` and `b` move one place down the listing; a file's
    /// facts carry its place), `b` changed, `c` gone (`d` is back in its place).
    static var second: [String: String] {
        var s = first
        s["apps/b.yaml"] = deployment("b", #"ghcr.io/acme/b:1.0.1 # {"$imagepolicy": "flux-system:bee"}"#)
        s["apps/c.yaml"] = nil
        s["apps/0.yaml"] = deployment("zero", "busybox:latest")
        return s
    }

    static func sources(_ files: [String: String]) -> [SourceFile] {
        files.keys.sorted().map { SourceFile(path: $0, bytes: Array(files[$0]!.utf8)) }
    }

    /// A file with the same path and bytes is taken, moved to its place in the second listing: `a`, `a2` (moved by
    /// the added file) and `d`; `b` (changed) and the added file are parsed.
    @Test func theSameFileIsTakenAndMovedToItsPlace() {
        let shared = SharedExtraction()
        let offered = Model.extractAll(Self.sources(Self.first), sharing: .offer(shared))
        let taken = shared.taken()
        let second = Self.sources(Self.second)
        #expect(second.map(\.path) == ["apps/0.yaml", "apps/a.yaml", "apps/a2.yaml", "apps/b.yaml", "apps/d.yaml"])
        let facts = second.indices.map { taken.facts(for: second[$0], id: FileID($0)) }
        #expect(facts.map { $0 != nil } == [false, true, true, false, true])
        // everything that says which file it is in says the new place
        for (i, f) in facts.enumerated() {
            guard let f else { continue }
            let places = f.objects.map(\.file) + f.images.map(\.file) + f.substitutable.map(\.file) + f.markers.map(\.file)
            #expect(!places.isEmpty && places.allSatisfy { $0 == FileID(i) }, "\(second[i].path)")
        }
        let a2 = facts[2]!
        #expect((a2.objects.count, a2.images.count, a2.substitutable.count, a2.markers.count) == (2, 1, 1, 1))
        #expect(a2.images.map(\.text) == offered[FileID(1)].images.map(\.text))
        #expect(offered[FileID(1)].markers.map(\.file) == [FileID(1)])   // the offered facts are left as they were
    }

    /// A file that one tree reads for its markers only (`app.yaml.tpl`) and the other as YAML (a build names it) is
    /// extracted anew.
    @Test func aFileReadAnotherWayIsNotTaken() {
        let tpl = SourceFile(path: "apps/a.yaml.tpl", bytes: Array(Self.first["apps/a.yaml"]!.utf8))
        let shared = SharedExtraction()
        _ = Model.extractAll([tpl], sharing: .offer(shared))
        var named = tpl
        named.namedByBuild = true
        #expect(shared.taken().facts(for: tpl, id: FileID(0)) != nil)
        #expect(shared.taken().facts(for: named, id: FileID(0)) == nil)
    }

    /// An audit that takes the other's facts reports exactly what it reports alone, and so does the one that offers.
    @Test func anAuditThatTakesReportsWhatItReportsAlone() throws {
        func audit(_ files: [String: String], _ sharing: SharedExtraction.Role?) throws -> [String] {
            let snapshot = SourceSnapshot(kind: .worktree, root: "/example", rev: nil, files: Self.sources(files), skipped: [])
            return try Linter.audit(AuditRequest(snapshot: snapshot, config: Config(), sharing: sharing)).findings.map { "\($0.rendered) \($0.message)" }
        }
        for (a, b) in [(Self.first, Self.second), (Self.first, Self.first), (Self.second, Self.first)] {
            let shared = SharedExtraction()
            let offering = try audit(a, .offer(shared))
            let taking = try audit(b, .take(shared))
            #expect(offering == (try audit(a, nil)))
            #expect(taking == (try audit(b, nil)))
            #expect(!taking.isEmpty)
        }
    }

    /// A withdrawal (the first audit stopped before it extracted) ends the second's wait, which then extracts all.
    @Test func aWithdrawalEndsTheWait() {
        let shared = SharedExtraction()
        let waiting = Started { shared.taken().byPath.count }
        shared.withdraw()
        shared.offer(Self.sources(Self.first), Model.extractAll(Self.sources(Self.first)))   // too late: no effect
        #expect(waiting.value == 0)
        #expect(shared.taken().byPath.isEmpty)
    }
}
