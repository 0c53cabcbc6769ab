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
        "apps/b.yaml": deployment("b", #"ghcr.io/acme/b:1.0.0 # {"$imagepolicy": "flux-system:b"}"#),
        "apps/c.yaml": deployment("c", "ghcr.io/acme/c:1.0.0"),
        "apps/d.yaml": deployment("d", "redis"),
    ]

    /// The second tree: a file added before the others (`a` and `b` move one place down the listing; a file's facts
    /// carry its place), `b` changed, `c` gone (`d` is back in its place).
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

    /// Only a file with the same path, bytes and place is taken: `d` is; `a` (moved by the added file), `b` (changed)
    /// and the added file are not.
    @Test func onlyTheSameFileInTheSamePlaceIsTaken() {
        let shared = SharedExtraction()
        let offered = Model.extractAll(Self.sources(Self.first), sharing: .offer(shared))
        let taken = shared.taken()
        let second = Self.sources(Self.second)
        #expect(second.map(\.path) == ["apps/0.yaml", "apps/a.yaml", "apps/b.yaml", "apps/d.yaml"])
        #expect(second.indices.map { taken.facts(for: second[$0], id: FileID($0)) != nil } == [false, false, false, true])
        // in the first tree's places, `a`, `c` and `d` are the same files; `b` is not
        let firstPlaces = Self.sources(Self.first)
        let same = firstPlaces.indices.map { taken.facts(for: firstPlaces[$0], id: FileID($0))?.objects.first?.name }
        #expect(same == ["a", "b", "c", "d"])
        var changed = firstPlaces
        changed[1] = second[2]
        #expect(taken.facts(for: changed[1], id: FileID(1)) == nil)
        #expect(taken.facts(for: firstPlaces[0], id: FileID(0))?.images.map(\.text) == offered[FileID(0)].images.map(\.text))
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
