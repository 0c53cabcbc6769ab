import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct YAMLTests {
    func parse(_ s: String) -> YAMLFile { YAMLFile(parsing: Array(s.utf8)) }

    func scalar(_ y: YAMLFile, _ value: String) -> YAMLNode? {
        y.nodes.indices.first { y.nodes[$0].kind == .scalar && y.value($0) == value }.map { y.nodes[$0] }
    }

    @Test func spansLinesColumnsAndStyles() throws {
        let y = parse("a: plain\nb: 'single'\nc: \"dq\"\nd: |\n  lit\ne: >-\n  fold\n")
        #expect(y.error == nil)
        let p = try #require(scalar(y, "plain"))
        #expect(p.span.start == SourcePosition(offset: 3, line: 1, column: 4))
        #expect(p.span.end.offset == 8)
        #expect(p.style == .plain)
        let s = try #require(scalar(y, "single"))
        #expect(s.style == .singleQuoted)
        #expect(s.span.start.offset == 12 && s.span.end.offset == 20)  // quotes included
        #expect(try #require(scalar(y, "dq")).style == .doubleQuoted)
        let lit = try #require(scalar(y, "lit\n"))
        #expect(lit.style == .literal && lit.span.start.line == 4 && lit.span.start.column == 4)
        #expect(try #require(scalar(y, "fold")).style == .folded)
    }

    /// Where byte N of a scalar's value sits in the file: exact for literal blocks and one-line scalars without
    /// escapes, nil otherwise.
    @Test func positionsInsideValues() throws {
        let text = "a: pl{ain\nb: 'q{x'\nc: \"d\\n{\"\nd: |\n  one\n\n  é{x\r\n  end\ne: |2\n   x{\nf: >\n  g{\n  h\ni: 'it''s{'\n"
        let bytes = Array(text.utf8)
        let y = YAMLFile(parsing: bytes)
        #expect(y.error == nil)
        func at(_ key: StaticString, _ needle: Character = "{") throws -> SourcePosition? {
            let root = try #require(y.documents.first?.root)
            let n = try #require(y.get(root, key))
            let value = y.value(n)
            let offset = value.utf8.distance(from: value.utf8.startIndex, to: try #require(value.firstIndex(of: needle)).samePosition(in: value.utf8)!)
            return SourceText.position(inValue: value, offset: offset, span: y.nodes[n].span, bytes: bytes)
        }
        #expect(try at("a") == SourcePosition(offset: 5, line: 1, column: 6))
        #expect(try at("b")?.line == 2 && at("b")?.column == 6)
        #expect(try at("c") == nil)                                   // an escape: the value is not the source
        #expect(try at("d")?.line == 7 && at("d")?.column == 4)       // after a blank line, "é" one column, CRLF line
        #expect(try at("e") == nil)                                   // an indentation indicator
        #expect(try at("f") == nil)                                   // folded
        #expect(try at("i") == nil)                                   // '' stands for one quote
        // the end of the value: just after its last byte
        let root = try #require(y.documents.first?.root)
        let a = try #require(y.get(root, "a"))
        #expect(SourceText.position(inValue: "pl{ain", offset: 6, span: y.nodes[a].span, bytes: bytes)?.column == 10)
    }

    @Test func theFirstDocumentEndsAtTheNextMarkerLine() {
        func end(_ s: String) -> Int? { SourceText.firstDocumentEnd(Array(s.utf8)) }
        #expect(end("a: 1\n") == nil)
        #expect(end("---\na: 1\n") == nil)
        #expect(end("# c\n%YAML 1.1\n---\na: 1\n---\nb: 2\n") == 23)
        #expect(end("a: |\n  ---\n  x\n---\nb: 2\n") == 15)
        #expect(end("--- a\n--- b\n") == 6)
        #expect(end("a: 1\n----\nb: 2\n") == nil)
        #expect(end("a: 1\r\n---\r\nb: 2\r\n") == 6)
    }

    @Test func duplicateKeysAreFoundInSmallAndLargeMappings() {
        // a plain and a quoted spelling of one key are the same key; `<<` may repeat
        let small = parse("a: 1\nm:\n  <<: {x: 1}\n  <<: {y: 1}\n  k: 1\n  'k': 2\n  j: 1\na: 3\n")
        #expect(small.duplicateKeys.map { "\(small.nodes[$0.key].span.start.line)>\(small.nodes[$0.first].span.start.line)" } == ["6>5", "8>1"])
        // past 32 keys a mapping is checked by hashing
        var text = ""
        for i in 0..<40 { text += "k\(i): v\n" }
        text += "k3: again\nk39: again\n"
        let large = parse(text)
        #expect(large.duplicateKeys.map { "\(large.nodes[$0.key].span.start.line)>\(large.nodes[$0.first].span.start.line)" } == ["41>4", "42>40"])
        #expect(parse("a: {b: 1}\nc: {b: 1}\n").duplicateKeys.isEmpty)
    }

    @Test func multiByteUTF8GivesByteOffsetsAndCharacterColumns() throws {
        // "é" is 2 bytes, "😀" 4 bytes: libyaml counts characters; spans must be bytes.
        let text = "x: é😀\nimage: nginx:1.0 # {\"$imagepolicy\": \"ns:p\"}\n"
        let y = parse(text)
        let n = try #require(y.nodes.indices.first { y.value($0) == "nginx:1.0" })
        let node = y.nodes[n]
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[node.span.start.offset..<node.span.end.offset], as: UTF8.self) == "nginx:1.0")
        #expect(node.span.start.line == 2 && node.span.start.column == 8)
        #expect(y.comment(n) == "# {\"$imagepolicy\": \"ns:p\"}")
        let e = try #require(y.nodes.indices.first { y.value($0) == "é😀" })
        #expect(y.nodes[e].span.start.column == 4 && y.nodes[e].span.end.column == 6)
        #expect(y.nodes[e].span.end.offset == 9)
    }

    /// go-yaml v3 reads a comment line indented with tabs that goes on from a block of comments, within 512 bytes of
    /// the block's last line (held to go-yaml itself by scripts/yaml-vs-go/tabbed-comments); libyaml refuses the tab.
    @Test func tabIndentedCommentsGoOnFromABlockAsGoReadsThem() throws {
        let block = parse("a:\n  # one\n\t\t# two\n\n \t# three\n  b: v\n")
        #expect(block.error == nil)
        #expect(block.tabbedComments.map(\.start) == [SourcePosition(offset: 11, line: 3, column: 1)])
        #expect(try #require(scalar(block, "v")).span.start == SourcePosition(offset: 35, line: 6, column: 6))
        #expect(block.bytes.filter { $0 == 9 }.count == 3)   // the file's bytes are kept as they are
        // after a lone `-` entry and after `---`, and two blocks each with its own tabs
        let entry = parse("l:\n  - # c\n  \t# d\n    a: 1\n--- # e\n\t# f\nb: 2\n")
        #expect(entry.error == nil && entry.tabbedComments.map(\.start.line) == [3, 6] && entry.documents.count == 2)
        // refused as go-yaml refuses them: after a value's line comment, first in the file, past 512 bytes, after a `-`
        // that ends a plain scalar continued on its line
        for refused in ["a: 1 # c\n\t# d\n", "\t# d\na: 1\n", "# c\n" + String(repeating: "\n", count: 510) + "\t# d\n",
                        "  text\n  - # c\n  \t# d\n"] {
            let y = parse(refused)
            #expect(y.error?.message == "found character that cannot start any token while scanning for the next token", "\(refused.prefix(20))")
            #expect(y.tabbedComments.isEmpty)
        }
        #expect(parse("# c\n" + String(repeating: "\n", count: 509) + "\t# d\na: 1\n").error == nil)
        // an error past the block is the one go-yaml meets too
        let later = parse("# c\n\t# d\na: [\n")
        #expect(later.tabbedComments.count == 1 && later.error?.position.line == 4)
    }

    @Test func bomAndCRLF() throws {
        let text = "\u{FEFF}a: 1\r\nimage: web:2\r\n"
        let y = parse(text)
        #expect(y.error == nil)
        let n = try #require(y.nodes.indices.first { y.value($0) == "web:2" })
        #expect(y.nodes[n].span.start == SourcePosition(offset: 16, line: 2, column: 8))
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[y.nodes[n].span.start.offset..<y.nodes[n].span.end.offset], as: UTF8.self) == "web:2")
        #expect(SourceText.lineText(bytes, line: 1) == "a: 1")
    }

    /// libyaml breaks lines at a lone CR, NEL, U+2028 and U+2029; git, GitHub and editors number lines by LF.
    @Test func linesAreCountedByLineFeedsAlone() throws {
        for odd in ["\u{2028}", "\u{2029}", "\u{85}", "\r"] {
            let text = "a: 'x\(odd) y'\nb: &k !!str é # \(odd)\nimage: web:2\nc: [\n"
            let y = parse(text)
            let bytes = Array(text.utf8)
            let n = try #require(y.nodes.indices.first { y.value($0) == "web:2" }, "\(odd.unicodeScalars.first!.value)")
            let at = bytes.indices.first { bytes[$0...].starts(with: "web:2".utf8) }!
            #expect(y.nodes[n].span.start == SourcePosition(offset: at, line: 3, column: 8), "\(odd.unicodeScalars.first!.value)")
            // past a node's properties too, and inside the parser's own message
            let e = try #require(y.nodes.indices.first { y.nodes[$0].kind == .scalar && y.value($0).hasPrefix("é") })
            #expect(y.nodes[e].span.start.line == 2 && y.nodes[e].span.start.column == 13)
            #expect(y.error?.position.line == 5 && y.error?.position.column == 1)
        }
        let y = parse("x: 1\u{2028}\nb: \"abc\n\n")
        #expect(y.error?.message.hasSuffix("started at line 2, column 4") == true, "\(y.error?.message ?? "")")
        #expect(y.error?.position.line == 4 && y.error?.position.column == 1)
    }

    @Test func anchorsAndTagsAreNotPartOfTheValueSpan() throws {
        let text = "a: &x nginx:1.0 # c\nb: !!str 1.10\ncé: &z !!str\n  # why\n  'q'\nd: &y |\n  t\ne: !!str\n"
        let y = parse(text)
        #expect(y.error == nil)
        let bytes = Array(text.utf8)
        func offset(of s: String) -> Int { bytes.indices.first { bytes[$0...].starts(with: s.utf8) }! }
        func shown(_ v: String) throws -> (String, SourcePosition) {
            let n = try #require(y.nodes.indices.first { y.nodes[$0].kind == .scalar && y.value($0) == v })
            let sp = y.nodes[n].span
            return (String(decoding: bytes[sp.start.offset..<sp.end.offset], as: UTF8.self), sp.start)
        }
        #expect(try shown("nginx:1.0") == ("nginx:1.0", SourcePosition(offset: 6, line: 1, column: 7)))
        #expect(y.comment(try #require(y.nodes.indices.first { y.value($0) == "nginx:1.0" })) == "# c")
        #expect(try shown("1.10") == ("1.10", SourcePosition(offset: offset(of: "1.10"), line: 2, column: 10)))
        // after a multi-byte key, the value two lines down after a comment
        #expect(try shown("q") == ("'q'", SourcePosition(offset: offset(of: "'q'"), line: 5, column: 3)))
        #expect(try shown("t\n").1 == SourcePosition(offset: offset(of: "|"), line: 6, column: 7))
        // a tag with no value: an empty span where the value would be
        let e = try shown("")
        #expect(e.0 == "" && e.1.line == 8)
        // an anchor is letters, digits, `-` and `_` only, as libyaml scans it: `&n:p` is the anchor `n` and the value
        // `:p` (scripts/fuzz found the span that began after the first blank instead)
        let anchored = parse("k: &n:p:tag/- 'x\n")
        let value = try #require(anchored.nodes.indices.first { anchored.value($0) == ":p:tag/- 'x" })
        #expect(anchored.nodes[value].span.start == SourcePosition(offset: 5, line: 1, column: 6))
        // a byte order mark at the start of a line before the value is skipped, as libyaml skips it
        let marked = parse("k: !\n\u{FEFF}m\u{FEFF}p\n")
        let m = try #require(marked.nodes.indices.first { marked.value($0) == "m\u{FEFF}p" })
        #expect(marked.nodes[m].span.start == SourcePosition(offset: 8, line: 2, column: 2))
        // a tag and a comment end at any line break libyaml reads: NEL, U+2028, U+2029 (scripts/fuzz found the span
        // that began on the next LF line instead)
        for odd in ["\u{85}", "\u{2028}", "\u{2029}"] {
            let tagged = parse("!t\(odd)v\n\n w\n")
            #expect(tagged.error == nil && tagged.nodes.count == 1 && tagged.value(0) == "v\nw")
            #expect(tagged.nodes[0].span.start.offset == 2 + odd.utf8.count, "\(odd.unicodeScalars.first!.value)")
            let commented = parse("n: w # c\(odd) x\n")
            let w = try #require(commented.nodes.indices.first { commented.value($0) == "w" })
            #expect(commented.comment(w) == "# c", "\(odd.unicodeScalars.first!.value)")
        }
    }

    @Test func lineIndexAgreesWithTheScanningLookups() {
        for text in ["", "a", "\u{FEFF}a: é😀\r\nb: 2\n\n  c: x", "x\n", "\n\n\n", "\u{FEFF}\n"] {
            let bytes = Array(text.utf8)
            let index = LineIndex(bytes)
            for offset in 0...bytes.count {
                #expect(index.position(bytes, offset: offset) == SourceText.position(bytes, offset: offset), "\(text.debugDescription) @\(offset)")
            }
            for line in 0...(index.starts.count + 1) {
                #expect(index.text(bytes, line: line) == SourceText.lineText(bytes, line: line), "\(text.debugDescription) line \(line)")
            }
        }
    }

    @Test func multipleDocuments() {
        let y = parse("a: 1\n---\nb: 2\n---\n- c\n")
        #expect(y.documents.count == 3)
        #expect(y.documents[2].span.start.line == 4)
    }

    @Test func commentsAttachOnlyAfterScalarsOnTheirLine() throws {
        let y = parse("a: x#y\nb: \"q\" # c1\nc: # c2\n  d\ne: |  # c3\n  t\n")
        let a = try #require(y.nodes.indices.first { y.value($0) == "x#y" })
        #expect(y.comment(a) == nil)
        let q = try #require(y.nodes.indices.first { y.value($0) == "q" })
        #expect(y.comment(q) == "# c1")
        let d = try #require(y.nodes.indices.first { y.value($0) == "d" })
        #expect(y.comment(d) == nil)
        let t = try #require(y.nodes.indices.first { y.value($0) == "t\n" })
        #expect(y.comment(t) == "# c3")
    }

    @Test func inAFlowCollectionTheCommentAfterAnItemsCommaIsTheItems() throws {
        // as go-yaml v3 (kyaml, Flux) places them: held to it by scripts/markers-vs-go
        let y = parse("x: [\n  a, # c1\n  b , # c2\n  c # c3\n  , d,# c4\n  e]\ny: {k: v,   # c5\n  }\nz: [f, g] # c6\n")
        let comments = ["a", "b", "c", "d", "e", "v", "f", "g"].map { v in y.nodes.indices.first { y.value($0) == v }.flatMap { y.comment($0) } }
        // `,#` starts one too (the scanner is between tokens there); after a collection's closing bracket it is no item's
        #expect(comments == ["# c1", "# c2", "# c3", "# c4", nil, "# c5", nil, nil])
    }

    @Test func aliasesAreNotExpanded() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1..<30 { text += "a\(i): &a\(i) [*a\(i-1), *a\(i-1), *a\(i-1), *a\(i-1), *a\(i-1), *a\(i-1), *a\(i-1), *a\(i-1), *a\(i-1), *a\(i-1)]\n" }
        let y = parse(text)
        #expect(y.error == nil)
        #expect(y.nodes.count < 1000)
        #expect(y.nodes.contains { $0.kind == .alias })
    }

    @Test func aliasesAndMergeKeysReadAsKubernetesReadsThem() throws {
        let y = parse("""
            base: &base {image: &img a:1, name: b}
            x: *img
            m: {<<: *base, name: m}
            l: {<<: [{image: c:3}, *base]}
            o: {<<: *base, image: d:4}
            loop: &l {<<: *l}
            ---
            again: &img e:5
            y: *img
            """)
        #expect(y.error == nil)
        let doc1 = y.documents[0].root, doc2 = y.documents[1].root
        func value(_ n: Int?) -> String? { n.map { y.value($0) } }
        #expect(value(y.get(doc1, "x")) == "a:1")
        #expect(y.nodes[try #require(y.get(doc1, "x"))].span.start.line == 1)  // the anchored scalar itself
        #expect(value(y.get(doc1, "m", "image")) == "a:1")
        #expect(value(y.get(doc1, "m", "name")) == "m")
        #expect(value(y.get(doc1, "l", "image")) == "c:3")
        #expect(value(y.get(doc1, "l", "name")) == "b")
        #expect(value(y.get(doc1, "o", "image")) == "d:4")
        #expect(y.get(doc1, "loop", "image") == nil)
        #expect(value(y.get(doc2, "y")) == "e:5")  // the anchor of its own document
        let unknown = parse("a: &x 1\n---\nb: *x\n")
        let e = try #require(unknown.error)
        #expect(e.message == "unknown anchor 'x' referenced by an alias" && e.position.line == 3 && e.position.column == 4, "\(e)")
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let y = parse(text)
        let e = try #require(y.error)
        #expect(e.message.contains("deeper than 256"))
        #expect(e.position.line == 1 && e.position.column == 257)
    }

    @Test func aColonBeforeAFlowIndicatorSaysToQuote() throws {
        let e = try #require(parse("args: [--flag=a:]\n").error)
        #expect(e.message == "found unexpected ':' while scanning a plain scalar started at line 1, column 8; quote the value (Go's YAML reads `[a:]` as the text 'a:', libyaml does not)")
        #expect(e.position.line == 1 && e.position.column == 16)
    }

    @Test func syntaxErrorsHavePositions() throws {
        let tab = parse("a:\n\tb: 1\n")
        #expect(try #require(tab.error).position.line == 2)
        let bad = YAMLFile(parsing: [0x61, 0x3A, 0x20, 0xC3, 0x28, 0x0A])  // invalid UTF-8
        let e = try #require(bad.error)
        #expect(e.message.contains("UTF-8"))
        #expect(e.position.line == 1 && e.position.column == 4, "\(e)")
        let truncated = parse("a: [1, 2\nb: 'x")
        #expect(truncated.error != nil)
    }

    /// As go-yaml reads them (scripts/yaml-vs-go/run holds the whole to go-yaml itself).
    @Test func scalarTypesFollowGoYAML() {
        #expect(ScalarType.resolvePlain("1.10") == .float)
        #expect(ScalarType.resolvePlain("16") == .int)
        #expect(ScalarType.resolvePlain("1e3") == .float)
        #expect(ScalarType.resolvePlain("yes") == .bool && ScalarType.resolvePlain("True") == .bool)
        #expect(ScalarType.resolvePlain("08") == .float)                   // no octal number, so Go's ParseFloat's
        #expect(ScalarType.resolvePlain("017") == .int && ScalarType.resolvePlain("0o17") == .int)
        #expect(ScalarType.resolvePlain("+_5") == .int)                    // underscores go before ParseInt
        #expect(ScalarType.resolvePlain("1:30") == .string)                // no base-60 numbers
        #expect(ScalarType.resolvePlain("99999999999999999999") == .float && ScalarType.resolvePlain("1e400") == .string)
        #expect(ScalarType.resolvePlain("18446744073709551615") == .int)
        #expect(ScalarType.resolvePlain("0b-101") == .int && ScalarType.resolvePlain("0x") == .string)
        #expect(ScalarType.resolvePlain("1.2.3") == .string)
        #expect(ScalarType.resolvePlain("v1") == .string)
        #expect(ScalarType.resolvePlain("0x1F") == .int)
        #expect(ScalarType.resolvePlain("~") == .null)
        let y = parse("a: !!str 1.10\nb: '1.10'\nc: 1.10\n")
        let types = y.nodes.indices.filter { !y.nodes[$0].isKey && y.nodes[$0].kind == .scalar }.map { y.resolvedType($0) }
        #expect(types == [.string, .string, .float])
    }

    /// Each document's refusals as `line:column message-start`.
    func refusals(_ text: String) -> [String] {
        let y = parse(text)
        return y.goRefusals.map { "\($0.span.start.line):\($0.span.start.column) \($0.message)" }
    }

    @Test func whatGoRefusesAlthoughLibyamlParsesIt() {
        // verdicts and messages as go-yaml v2 and sigs.k8s.io/yaml give them (scripts/documents-vs-go/run)
        let cases: [(String, String)] = [
            ("a: !!int abc\n", "1:10 '!!int abc' is a !!str, not a !!int"),
            ("a: !!bool maybe\n", "1:11 '!!bool maybe' is a !!str, not a !!bool"),
            ("a: !!float 0x8000000000000000\n", "1:12 '!!float 0x8000000000000000' is a !!int, not a !!float"),
            ("a: !!null foo\n", "1:11 '!!null foo' is a !!str, not a !!null"),
            ("a: !!int 08\n", "1:10 '!!int 08' is a !!float, not a !!int"),
            ("a: !<tag:yaml.org,2002:int> z\n", "1:29 '!!int z' is a !!str, not a !!int"),
            ("%TAG !y! tag:yaml.org,2002:\n---\na: !y!bool 3\n", "3:12 '!!bool 3' is a !!int, not a !!bool"),
            ("a: !!timestamp 2023-02-29\n", "1:16 '!!timestamp 2023-02-29' is a !!str, not a !!timestamp"),
            ("a: !!binary Zm9\n", "1:13 '!!binary Zm9' is not base64"),
            ("a: {b: 1}\nc:\n  <<: 3\n", "3:7 the merge key '<<' takes a mapping or a list of mappings"),
            ("a: &s [1]\nc:\n  <<: [{b: 1}, *s]\n", "3:7 the merge key '<<' takes a mapping or a list of mappings"),
            ("? [a, b]\n: 1\n", "1:3 a list as a key"),
            ("x: {{a: 1}: 1}\n", "1:5 a mapping as a key"),
            ("a: &m {b: 1}\n*m : 2\n", "2:1 alias '*m' as a key names a mapping"),
            ("~: x\n", "1:1 a null key ('~')"),
            ("a:\n  NULL: x\n", "2:3 a null key ('NULL')"),
            ("a:\n  ?\n  : x\n", "2:4 a null key ('')"),
            ("0xFFFFFFFFFFFFFFFF: x\n", "1:1 the key 0xFFFFFFFFFFFFFFFF is an integer beyond 64 signed bits"),
            ("a: &n null\n*n : x\n", "2:1 alias '*n' as a key names a null"),
            ("a: .inf\n", "1:4 '.inf' is a float JSON cannot hold"),
            ("a: [-.Inf]\n", "1:5 '-.Inf' is a float JSON cannot hold"),
            ("a: !!float .NaN\n", "1:12 '!!float .NaN' is a float JSON cannot hold"),
            (".nan: &v .nan\n", "1:10 '.nan' is a float JSON cannot hold"),
            ("a: &x [*x]\n", "1:8 alias '*x' lies inside its own anchor's value, a cycle"),
            ("args: [--url=http://x/y?q=1]\n", "1:8 '--url=http://x/y?q=1' has a '?', which ends a plain value inside [ ] or { } for Go's YAML"),
            ("a: {x: [y], z: a?}\n", "1:16 'a?' has a '?', which ends a plain value inside [ ] or { } for Go's YAML"),
            ("a: [a,\n  !foo b?c]\n", "2:8 'b?c' has a '?', which ends a plain value inside [ ] or { } for Go's YAML"),
            ("%YAML 1.2\n---\na: 1\n", "1:1 a %YAML 1.2 directive"),
            ("a: 1\n---\nb: 2\n...\n%YAML 1.2\n---\nc: 3\n", "5:1 a %YAML 1.2 directive"),
        ]
        for (text, want) in cases {
            let got = refusals(text)
            #expect(got.count == 1 && got[0].hasPrefix(want + ":"), "\(text): \(got)")
        }
        // what Go reads: strings however written, tags their values satisfy, merges of mappings, null and NaN
        // elsewhere, numbers within 64 signed bits as keys
        let fine = ["'~': x\n", "\"null\": x\n", "!!str ~: x\n", "a: !!int \"12\"\n", "a: !!float 1\n", "a: !!bool yes\n",
                    "a: !!int 0x1F\n", "a: !!timestamp 2024-02-29\n", "a: !!binary |\n  Zm9v\n  YmFy\n", "a: !foo bar\n",
                    "a: !!merge x\n", "a: ! 12\n", "a: &a {x: 1}\nb: &b {y: 1}\nc:\n  <<: [*a, *b]\n  <<: *a\n", "a: ~\nb:\n",
                    ".nan: 1\n", "9223372036854775807: x\n", "18446744073709551615x: y\n", "a: '.inf'\n", "a: !!str .inf\n",
                    "a: &x [1]\nb: [*x, *x]\n", "nameless: 1\nnull_ish: 2\nnone: 3\n",
                    "a: why?\nb: [\"a?b\", 'c?']\nc: [?d]\n", "? e\n: f\n", "%YAML 1.1\n---\na: 1\n"]
        for text in fine {
            #expect(refusals(text).isEmpty, "\(text): \(refusals(text))")
        }
        // a second merge key in one mapping: go-yaml takes it, kustomize does not (reported by the engine)
        let merges = parse("a: &a {x: 1}\nb:\n  <<: *a\n  k: 1\n  <<: {y: 2}\n")
        #expect(merges.duplicateMergeKeys.map { "\(merges.nodes[$0.key].span.start.line)>\(merges.nodes[$0.first].span.start.line)" } == ["5>3"])
        #expect(parse("a: {'<<': 1, '<<': 2}\n").duplicateMergeKeys.isEmpty)   // quoted: not merge keys
        #expect(parse("a: {'<<': 1, '<<': 2}\n").duplicateKeys.count == 1)     // but one key given twice
        // lookups take the same merge keys as Go: `!!str <<` is a key named "<<", `!!merge "<<"` merges
        let tagged = parse("b: &b {image: x}\ns: {!!str <<: *b}\nm: {!!merge \"<<\": *b}\n")
        let root = tagged.documents[0].root
        #expect(tagged.get(root, "s", "image") == nil && tagged.get(root, "m", "image") != nil)
    }

    @Test func aliasExpansionStopsWhereGoYAMLStops() {
        // a list of `width` aliases to a list of ten, nested: go-yaml refuses once aliases make more than 99% of
        // the nodes decoded past the first thousand (and more than 100 of them)
        func bomb(_ width: Int, _ depth: Int) -> String {
            var t = "a0: &a0 [" + Array(repeating: "x", count: 10).joined(separator: ", ") + "]\n"
            for d in 1...depth { t += "a\(d): &a\(d) [" + Array(repeating: "*a\(d - 1)", count: width).joined(separator: ", ") + "]\n" }
            return t
        }
        #expect(refusals(bomb(9, 2)).isEmpty)
        #expect(refusals(bomb(9, 9)) == ["4:25 alias '*a2' expands the document past go-yaml's limit (excessive aliasing): kubectl, Helm and Flux's controllers reject the file"])
        // a large document may repeat a small anchor many times: 400 aliases of a list of ten, 4,400 nodes decoded
        #expect(refusals("a: &a [" + Array(repeating: "x", count: 10).joined(separator: ", ") + "]\nb: [" + Array(repeating: "*a", count: 400).joined(separator: ", ") + "]\n").isEmpty)
    }

    @Test func timestampsAndBase64AsGoReadsThem() {
        // go-yaml v2 with Go's time.Parse and base64.StdEncoding (Go 1.19)
        let timestamps: [(String, Bool)] = [
            ("2020-1-2", true), ("2020-12-31T23:59:59Z", true), ("2020-12-31t1:2:3.5+01:00", true), ("2020-1-2 3:4:5", true),
            ("2020-1-2  3:4:5.123456789", true), ("2024-02-29", true), ("2023-02-29", false), ("1900-02-29", false),
            ("2000-02-29", true), ("2020-1-2T3:4:5,5Z", true), ("2020-1-2T3:4:5+-1:00", true), ("2020-1-2 3:4:5.1234567891", false),
            ("2020-13-01", false), ("2020-0-1", false), ("2020-1-0", false), ("2020-1-2T24:00:00Z", false), ("2020-1-2T23:60:00Z", false),
            ("2020-1-2T23:59:60Z", false), ("2020-1-2T3:4:5", false), ("2020-1-2T3:4:5+0100", false), ("2020-1-2T3:4:5z", false),
            ("2020-1-2 3:4:5Z", false), ("2020-1-2T3:4:5+99:99", true), ("2020-1-2T3:4:5.Z", false), ("20200-1-2", false),
            ("2020-001-2", false), ("2020-1-2 ", false), ("2020-1-2T03:04:05.123456789Z", true), ("2020-1-2T3:4:5.1234567890Z", false),
        ]
        for (t, ok) in timestamps { #expect(GoYAML.timestamp(Array(t.utf8)) == ok, "\(t)") }
        let base64: [(String, Bool)] = [
            ("", true), ("aGk=", true), ("YQ==", true), ("YQ=", false), ("Y===", false), ("Zm9v", true), ("Zm9v\n", true),
            ("Zm\n9v", true), ("Zm9", false), ("a+/=", true), ("a+/", false), ("####", false), ("aGVsbG8", false),
            ("YQ==YQ==", false), ("Y Q==", false), ("YQ=\n=", true), ("\r\nYQ==\r\n", true),
        ]
        for (b, ok) in base64 { #expect(GoYAML.base64(Array(b.utf8)) == ok, "\(b.debugDescription)") }
    }

    @Test func keysEqualOnceGoReadsThem() {
        // sigs.k8s.io/yaml's JSON keys: what it printed for each, one key where two were written
        func duplicates(_ text: String) -> [String] {
            let y = parse(text)
            return y.duplicateKeys.map { "\(y.nodes[$0.key].span.start.line)>\(y.nodes[$0.first].span.start.line)" }
        }
        let one = ["on: 1\ntrue: 2\n", "1: a\n01: b\n", "1.0: a\n1: b\n", "0x10: a\n16: b\n", "a: &k name\n*k : x\nname: y\n",
                   "yes: a\n\"true\": b\n", "1e3: a\n1000: b\n", "1e6: a\n\"1e+06\": b\n", "0.1: a\n\"0.1\": b\n",
                   "1234567.0: a\n\"1.234567e+06\": b\n", "0.00001: a\n\"1e-05\": b\n", "-0.0: a\n\"-0\": b\n", "1e40: a\n.inf: b\n",
                   "!!float 0o1: a\n0b1: b\n", "-0.0: a\n!!float 0: b\n", "1_0: a\n!!float 012: b\n", "0: a\n!!float -0: b\n"]
        for text in one {
            let d = duplicates(text)
            #expect(d == (text.hasPrefix("a:") ? ["3>2"] : ["2>1"]), "\(text): \(d)")
        }
        let two = ["1: a\n\"01\": b\n", "16777217: a\n16777217.0: b\n", "name: a\nnone: b\nno: c\n", "y: a\nyes!: b\n",
                   "off: a\n\"off\": b\n", "1e40: a\n\"1e40\": b\n", "!!str yes: a\nyes: b\n", "1_0: a\n'1_0': b\n",
                   "1e-50: a\n-0.0: b\n"]
        for text in two { #expect(duplicates(text).isEmpty, "\(text): \(duplicates(text))") }
        #expect(GoYAML.float32Key(16777217) == "1.6777216e+07" && GoYAML.float32Key(100000) == "100000" && GoYAML.float32Key(0.0001) == "0.0001")
    }

    /// Every node as text: kind, span, value, tag, children, comment, parent, key flag; then the documents, repeated keys
    /// and the error. (What two parses of one text must agree on.)
    func tree(_ y: YAMLFile) -> [String] {
        y.nodes.indices.map { i in
            let n = y.nodes[i]
            return "\(n.kind) \(n.span.start.offset)-\(n.span.end.offset) \(n.span.start.line):\(n.span.start.column) \(y.value(i)) "
                + "\(y.tag(i) ?? "-") \(Array(y.childNodes(i))) \(n.commentStart)-\(n.commentEnd) \(n.parent) \(n.isKey)"
        } + y.documents.map { "doc \($0.root) \($0.span.start.offset)-\($0.span.end.offset)" }
            + y.duplicateKeys.map { "dup \($0.key) \($0.first)" } + [y.error.map { "error \($0.message) \($0.position.offset)" } ?? "-"]
    }

    /// A file parsed into again and again (an extraction worker's scratch) builds each tree in the buffers the last parse
    /// grew, or in new ones where a copy of the value still holds them: each tree is the one a fresh parse builds.
    @Test func aFileParsedIntoAgainBuildsTheTreeAFreshParseBuilds() {
        let small = "a: [1, 2] # c\nb: {x: &y !!str z, w: *y}\na: again\n"
        let large = (0..<2_000).map { "k\($0):\n  - v\($0)\n  - {n: \($0)} # m\n" }.joined() + "k1: again\n"
        let broken = "a:\n  - b\n c: [\n"
        // (for the libyaml parser the parses share: an error with tokens still queued, `%TAG` directives kept by the
        // parser, a byte-order mark and UTF-8 for its decoder, documents, a tab the tabbed-comment retry parses again)
        let queued = "a: {b: c, d: e, f: [g, h, i], j: k}\n  x: ]\n"
        let tagged = "%TAG !e! tag:example.com,2000:\n---\na: !e!thing b\n...\n%TAG !f! tag:other,2001:\n---\nc: !f!x d\n"
        let taggedBroken = "%TAG !e! tag:example.com,2000:\n--- !e!m\na: [b, {c: d\n"
        let unicode = "\u{FEFF}name: café\nlist: [ü, \"ß\"]\n---\nother: 日本 # コメント\n"
        let tabbed = "a: 1\n\t# tabbed comment\nb: 2\n"
        var scratch = YAMLFile()
        scratch.reparse(Array(small.utf8))
        let kept = scratch   // holds the buffers: the next parse into `scratch` takes buffers of its own
        for text in [large, small, broken, large, "", small, queued, tagged, small, taggedBroken, tagged, unicode, broken, tabbed,
                     unicode, queued, large] {
            scratch.reparse(Array(text.utf8))
            #expect(tree(scratch) == tree(parse(text)), "\(text.prefix(40))")
        }
        #expect(tree(kept) == tree(parse(small)))
        #expect(parse(large).duplicateKeys.map { "\($0.key) \($0.first)" } == ["12001 7"])   // the last `k1` repeats the second key
    }

}
