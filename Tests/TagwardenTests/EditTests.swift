import Testing
@testable import TagwardenYAML

@Suite struct EditTests {
    func edit(_ range: Range<Int>, _ replacement: String) -> Edit { Edit(range: range, replacement: Array(replacement.utf8)) }

    func apply(_ edits: [Edit], _ text: String) throws -> String {
        String(decoding: try Edit.apply(edits, to: Array(text.utf8)), as: UTF8.self)
    }

    @Test func singleReplacement() throws {
        #expect(try Edit.apply([edit(4..<7, "XYZW")], to: Array("abc def ghi".utf8)) == Array("abc XYZW ghi".utf8))
        #expect(try Edit.apply([edit(4..<7, "XYZW")], to: "abc def ghi") == "abc XYZW ghi")
    }

    @Test func severalGivenInReverseOrder() throws {
        let edits = [edit(8..<11, "3"), edit(4..<7, "two"), edit(0..<3, "1")]
        #expect(try apply(edits, "abc def ghi") == "1 two 3")
    }

    @Test func insertion() throws {
        #expect(try apply([edit(3..<3, "-")], "abcdef") == "abc-def")
        // insertions at one offset in the order given
        #expect(try apply([edit(3..<3, "1"), edit(3..<3, "2"), edit(3..<3, "3")], "abcdef") == "abc123def")
        // an insertion at either end of a replaced range is no overlap, whatever the order given
        #expect(try apply([edit(2..<4, "XX"), edit(4..<4, ">"), edit(2..<2, "<")], "abcdef") == "ab<XX>ef")
    }

    @Test func deletion() throws {
        #expect(try apply([edit(3..<6, "")], "abc   def") == "abcdef")
        #expect(try apply([edit(0..<9, "")], "abc   def") == "")
    }

    @Test func crlfBOMAndNonASCIIBytesAroundTheEditArePreserved() throws {
        // BOM, "é" (2 bytes), CRLF, "😀" (4 bytes), a lone 0xFF: only the bytes of "old" change
        let before: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("k: é\r\nv: old\r\n😀".utf8) + [0xFF]
        let start = try #require(before.firstRange(of: Array("old".utf8))).lowerBound
        let after = try Edit.apply([Edit(range: start..<(start + 3), replacement: Array("ñew".utf8))], to: before)
        #expect(after == [0xEF, 0xBB, 0xBF] + Array("k: é\r\nv: ñew\r\n😀".utf8) + [0xFF])
    }

    @Test func editsAtTheStartAndTheEnd() throws {
        #expect(try apply([edit(0..<0, ">"), edit(6..<6, "<")], "abcdef") == ">abcdef<")
        #expect(try apply([edit(4..<6, "EF"), edit(0..<2, "AB")], "abcdef") == "ABcdEF")
        #expect(try apply([edit(0..<0, "x")], "") == "x")
        #expect(try apply([], "abc") == "abc")
    }

    @Test func overlappingEditsThrow() {
        let a = edit(2..<5, "x"), b = edit(4..<6, "y")
        #expect(throws: EditError.overlapping(a, b)) { try Edit.apply([b, a], to: Array("abcdefgh".utf8)) }
        // one range inside another
        let outer = edit(1..<7, "o"), inner = edit(3..<4, "i")
        #expect(throws: EditError.overlapping(outer, inner)) { try Edit.apply([inner, outer], to: Array("abcdefgh".utf8)) }
        // an insertion strictly inside a replaced range
        let insert = edit(3..<3, "+")
        #expect(throws: EditError.overlapping(a, insert)) { try Edit.apply([a, insert], to: Array("abcdefgh".utf8)) }
        // one range, two different replacements
        let c = edit(2..<5, "z")
        #expect(throws: EditError.overlapping(a, c)) { try Edit.apply([a, c], to: Array("abcdefgh".utf8)) }
        #expect(EditError.overlapping(a, b).description == "edits of bytes 2..<5 and 4..<6 overlap")
    }

    @Test func outOfBoundsThrows() throws {
        let bytes = Array("abc".utf8)
        #expect(throws: EditError.outOfBounds(edit(2..<4, "x"))) { try Edit.apply([edit(0..<1, "y"), edit(2..<4, "x")], to: bytes) }
        #expect(throws: EditError.outOfBounds(edit(4..<4, "x"))) { try Edit.apply([edit(4..<4, "x")], to: bytes) }
        #expect(throws: EditError.outOfBounds(edit(-1..<1, "x"))) { try Edit.apply([edit(-1..<1, "x")], to: bytes) }
        #expect(try Edit.apply([edit(3..<3, "x")], to: bytes) == Array("abcx".utf8))
        #expect(EditError.outOfBounds(edit(2..<4, "x")).description == "edit of bytes 2..<4 lies outside the file")
    }

    @Test func duplicateIdenticalEditsAreAppliedOnce() throws {
        #expect(try apply([edit(4..<7, "new"), edit(0..<3, "A"), edit(4..<7, "new")], "abc old ghi") == "A new ghi")
        #expect(try apply([edit(3..<3, "-"), edit(3..<3, "+"), edit(3..<3, "-")], "abcdef") == "abc-+def")
    }

    @Test func replacingAnImageScalarInRealisticYAML() throws {
        let text = """
            # web tier, managed by Flux
            ---
            apiVersion: apps/v1
            kind: Deployment

            metadata:
              name: web   # the name stays
            spec:
              template:
                spec:
                  containers:
                    - name: app
                      image: ghcr.io/acme/web:1.2.3 # {"$imagepolicy": "flux-system:web"}

                      ports: [80]
            ---
            # second document
            kind: ConfigMap

            """
        let y = YAMLFile(parsing: Array(text.utf8))
        #expect(y.error == nil)
        let root = try #require(y.documents.first?.root)
        let containers = try #require(y.get(root, "spec", "template", "spec", "containers"))
        let container = try #require(y.childNodes(containers).first)
        let image = try #require(y.get(container, "image"))
        #expect(y.value(image) == "ghcr.io/acme/web:1.2.3")
        let result = try Edit.apply([Edit(span: y.nodes[image].span, replacement: "ghcr.io/acme/web:1.3.0")], to: y.bytes)
        #expect(String(decoding: result, as: UTF8.self) == """
            # web tier, managed by Flux
            ---
            apiVersion: apps/v1
            kind: Deployment

            metadata:
              name: web   # the name stays
            spec:
              template:
                spec:
                  containers:
                    - name: app
                      image: ghcr.io/acme/web:1.3.0 # {"$imagepolicy": "flux-system:web"}

                      ports: [80]
            ---
            # second document
            kind: ConfigMap

            """)
    }

    @Test func replacingAScalarInYAMLWithABOMAndCRLF() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("# café\r\nimage: \"nginx:1.0\" # marker\r\n\r\nname: ü\r\n".utf8)
        let y = YAMLFile(parsing: bytes)
        #expect(y.error == nil)
        let root = try #require(y.documents.first?.root)
        let image = try #require(y.get(root, "image"))
        let result = try Edit.apply([Edit(span: y.nodes[image].span, replacement: "\"nginx:1.1\"")], to: bytes)
        #expect(result == [0xEF, 0xBB, 0xBF] + Array("# café\r\nimage: \"nginx:1.1\" # marker\r\n\r\nname: ü\r\n".utf8))
    }
}
