import TagwardenBasics
import CYAML

/// Translates libyaml marks, which count characters (a BOM not counted), into byte offsets with one
/// forward cursor; all-ASCII files take the fast path.
///
/// libyaml also counts a lone CR, U+0085, U+2028 and U+2029 as line breaks, which git, GitHub and editors' line
/// numbers do not: in a file with one of them, lines and columns come from the byte offset and the file's LF lines.
struct MarkTranslator {
    let bytes: UnsafeBufferPointer<UInt8>
    let base: Int
    let ascii: Bool
    let irregularBreaks: Bool
    var char = 0
    var byte: Int
    /// The same bytes as an array, and their LF lines, made when first needed.
    let source: [UInt8]
    var lines: LineIndex?

    init(_ bytes: UnsafeBufferPointer<UInt8>, source: [UInt8]) {
        self.bytes = bytes
        self.source = source
        base = (bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF) ? 3 : 0
        ascii = MarkTranslator.isASCII(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[base...])))
        irregularBreaks = MarkTranslator.hasIrregularBreaks(bytes, ascii: ascii)
        byte = base
    }

    /// A lone CR, or (outside ASCII) NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR.
    static func hasIrregularBreaks(_ b: UnsafeBufferPointer<UInt8>, ascii: Bool) -> Bool {
        guard let start = b.baseAddress else { return false }
        var i = 0
        while i < b.count, let p = memchr(start + i, 13, b.count - i) {
            let at = start.distance(to: p.assumingMemoryBound(to: UInt8.self))
            if at + 1 >= b.count || b[at + 1] != 10 { return true }
            i = at + 2
        }
        if ascii { return false }
        i = 0
        while i + 1 < b.count {
            if b[i] == 0xC2, b[i + 1] == 0x85 { return true }
            if b[i] == 0xE2, i + 2 < b.count, b[i + 1] == 0x80, b[i + 2] == 0xA8 || b[i + 2] == 0xA9 { return true }
            i += 1
        }
        return false
    }

    /// No byte ≥ 0x80: 32 bytes at a time (four words or'ed, one test: every file's bytes pass here), then eight.
    static func isASCII(_ b: UnsafeRawBufferPointer) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i &+ 32 <= b.count {
            let words = b.loadUnaligned(fromByteOffset: i, as: UInt64.self) | b.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)
                | b.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self) | b.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self)
            if words & high != 0 { return false }
            i &+= 32
        }
        while i + 8 <= b.count {
            if b.loadUnaligned(fromByteOffset: i, as: UInt64.self) & high != 0 { return false }
            i += 8
        }
        while i < b.count {
            if b[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    mutating func offset(_ charIndex: Int) -> Int {
        if ascii { return min(base + charIndex, bytes.count) }
        while char < charIndex, byte < bytes.count {
            let lead = bytes[byte]
            let len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            byte = min(byte + len, bytes.count)
            char += 1
        }
        while char > charIndex, byte > base {
            byte -= 1
            while byte > base, bytes[byte] & 0xC0 == 0x80 { byte -= 1 }
            char -= 1
        }
        return byte
    }

    mutating func position(_ mark: yaml_mark_t) -> SourcePosition {
        let at = offset(Int(mark.index))
        guard irregularBreaks else { return SourcePosition(offset: at, line: Int(mark.line) + 1, column: Int(mark.column) + 1) }
        if lines == nil { lines = LineIndex(source) }
        return lines!.position(source, offset: at)
    }
}

extension YAMLFile {
    /// Parses every document of `bytes` with libyaml's event API into a node tree.
    public init(parsing bytes: [UInt8], maxDepth: Int = YAMLFile.defaultMaxDepth) {
        reparse(bytes, maxDepth: maxDepth)
        treeStorage = nil   // (kept only by a value parsed into again)
    }

    /// Parses `bytes` into this value in place of what it held, keeping its arrays' capacity: a worker that
    /// parses file after file into one value allocates its node arrays once, and writes to memory its cache
    /// already holds instead of to fresh heap.
    public mutating func reparse(_ bytes: [UInt8], maxDepth: Int = YAMLFile.defaultMaxDepth) {
        self.bytes = bytes
        clearTree()
        tabbedComments.removeAll()
        // nodes keep positions in 32 bits
        if bytes.count >= Int(Int32.max) / 2 {
            error = YAMLError(message: "the file is too large to parse (\(ByteCount.formatSize(bytes.count)); at most 1 GiB)",
                              position: SourcePosition(offset: 0, line: 1, column: 1))
            return
        }
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
            error = YAMLError(message: "UTF-16 encoded files are not supported; save the file as UTF-8",
                              position: SourcePosition(offset: 0, line: 1, column: 1))
            return
        }
        bytes.withUnsafeBufferPointer { buf in
            parseEvents(buf, maxDepth: maxDepth)
        }
        if error != nil { readTabbedComments(maxDepth: maxDepth) }
        judgeForGo()
    }

    private mutating func clearTree() {
        nodes.removeAll()
        children.removeAll(keepingCapacity: true)
        documents.removeAll(keepingCapacity: true)
        commented.removeAll(keepingCapacity: true)
        arenaUsed = 0
        duplicateKeys.removeAll()
        aliasTargets.removeAll()
        goRefusals.removeAll()
        duplicateMergeKeys.removeAll()
        error = nil
    }

    /// Where libyaml refused a tab that go-yaml v3 reads as the indentation of a comment line (`TabbedComments`),
    /// parses the file again with those tabs read as spaces: the same length, so every offset, line and column holds,
    /// and no value changes (they are comments). Each block of such lines is kept in `tabbedComments`; an error the
    /// file has past them is the one go-yaml meets too. At most 64 blocks (a parse each).
    private mutating func readTabbedComments(maxDepth: Int) {
        var patched = bytes
        for _ in 0..<64 {
            guard let e = error, e.message.hasPrefix("found character that cannot start any token"),
                  let run = TabbedComments.run(patched, tabAt: e.position.offset) else { return }
            var attempt = patched
            for t in run.tabs { attempt[t] = UInt8(ascii: " ") }
            let refused = self
            clearTree()
            attempt.withUnsafeBufferPointer { buf in
                parseEvents(buf, maxDepth: maxDepth)
            }
            if let dash = run.entry, nodes.contains(where: { $0.kind == .scalar && $0.span.start.offset < dash && dash < $0.span.end.offset }) {
                // the `-` ends a plain scalar continued on its line: the comment after it is a line comment, after
                // which go-yaml refuses the tab as libyaml does
                self = refused
                return
            }
            patched = attempt
            tabbedComments.append(SourceSpan(start: SourceText.position(bytes, offset: run.span.lowerBound),
                                             end: SourceText.position(bytes, offset: run.span.upperBound)))
            if error == nil { return }
        }
    }

    private mutating func parseEvents(_ buf: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        var marks = MarkTranslator(buf, source: bytes)
        var event = yaml_event_t()
        // about two nodes per line in block YAML (a key and its value): a large file gets room for that at once rather
        // than growing by doubling, which holds the old buffer and the new at its peak
        var lines = 0
        if buf.count > 1 << 16, let base = buf.baseAddress {
            var at = 0
            while at < buf.count, let p = memchr(base + at, 10, buf.count - at) {
                lines += 1
                at = base.distance(to: p.assumingMemoryBound(to: UInt8.self)) + 1
            }
        }
        let expected = max(min(buf.count / 6, 1 << 14), 2 * lines) + 8, values = buf.count / 2 + 16
        if !isKnownUniquelyReferenced(&treeStorage) { treeStorage = TreeStorage(nodes: expected, arena: values) }
        guard let parser = treeStorage!.readyParser() else {
            error = YAMLError(message: "cannot initialise the YAML parser", position: SourcePosition(offset: 0, line: 1, column: 1))
            return
        }
        // libyaml reads through the pointer during parsing only; `buf` outlives this function's loop.
        yaml_parser_set_input_string(parser, buf.baseAddress, buf.count)
        var tree = TreeBuffers(treeStorage!, nodes: nodes.emptyStorage(capacity: expected), expected: expected, arena: values)
        // (also where the parse stops at an error: the nodes so far are kept, as the tabbed-comment retry reads them)
        defer {
            tree.finish(into: &self)
            tree.release()
        }
        var docRoot = -1
        var docStart = SourcePosition(offset: 0, line: 1, column: 1)
        var anchors: [String: Int] = [:]  // this document's anchors so far: the latest of a name wins
        // the first `#` at or after the last scalar looked at (scalars come in source order): once none is left, no
        // scalar after it has a comment to look for
        var nextHash = -1

        while true {
            guard yaml_parser_parse(parser, &event) == 1 else {
                error = makeError(&parser.pointee, &marks)
                return
            }
            defer { yaml_event_delete(&event) }
            let type = event.type
            if type == YAML_STREAM_END_EVENT { return }
            switch type {
            case YAML_DOCUMENT_START_EVENT:
                docRoot = -1
                docStart = marks.position(event.start_mark)
                if !anchors.isEmpty { anchors.removeAll() }
                if let v = event.data.document_start.version_directive?.pointee, v.major != 1 || v.minor != 1 {
                    // libyaml takes 1.2 as well; go-yaml refuses all but 1.1 ("found incompatible YAML document")
                    goRefusals.append((SourceSpan(start: docStart, end: docStart),
                                       "a %YAML \(v.major).\(v.minor) directive: go-yaml reads YAML 1.1 only and refuses the document, so kustomize and Flux reject the file; remove the directive"))
                }
            case YAML_DOCUMENT_END_EVENT:
                if docRoot >= 0 {
                    documents.append(YAMLDocument(root: docRoot, span: SourceSpan(start: docStart, end: marks.position(event.end_mark))))
                }
            case YAML_SCALAR_EVENT, YAML_ALIAS_EVENT:
                var start = marks.position(event.start_mark)
                let end = marks.position(event.end_mark)
                if type == YAML_SCALAR_EVENT, event.data.scalar.anchor != nil || event.data.scalar.tag != nil {
                    // libyaml starts the scalar at its anchor or tag: the span is the value only
                    start = Self.skipProperties(buf, from: start, limit: end.offset)
                }
                let index = tree.nodeCount
                // (made in place: `node` is valid until the next node is added)
                let node = tree.newNode(YAMLNode(kind: .scalar, style: .plain, isFlow: false, plainImplicit: true,
                                                 span: SourceSpan(start: start, end: end), parent: tree.openParent))
                if type == YAML_ALIAS_EVENT {
                    node.pointee.kind = .alias
                    let a = event.data.alias.anchor
                    let n = a.map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0
                    node.pointee.valueStart = tree.appendArena(a, n)
                    node.pointee.valueCount = n
                    let name = a.map { String(cString: $0) } ?? ""
                    guard let target = anchors[name] else {
                        // libyaml's event parser lets it pass; Go's YAML (kubectl, Flux) refuses the file
                        error = YAMLError(message: "unknown anchor '\(name)' referenced by an alias", position: start)
                        return
                    }
                    aliasTargets[index] = target
                } else {
                    let s = event.data.scalar
                    node.pointee.valueStart = tree.appendArena(s.value, s.length)
                    node.pointee.valueCount = s.length
                    node.pointee.plainImplicit = s.plain_implicit == 1
                    if let t = s.tag {
                        let n = strlen(UnsafeRawPointer(t).assumingMemoryBound(to: CChar.self))
                        node.pointee.tagStart = tree.appendArena(t, n)
                        node.pointee.tagCount = n
                    }
                    switch s.style {
                    case YAML_SINGLE_QUOTED_SCALAR_STYLE: node.pointee.style = .singleQuoted
                    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: node.pointee.style = .doubleQuoted
                    case YAML_LITERAL_SCALAR_STYLE: node.pointee.style = .literal
                    case YAML_FOLDED_SCALAR_STYLE: node.pointee.style = .folded
                    default: break
                    }
                    let from = node.pointee.style.isBlock ? start.offset : end.offset
                    if nextHash < from, let base = buf.baseAddress {
                        nextHash = from < buf.count ? memchr(base + from, Int32(UInt8(ascii: "#")), buf.count - from)
                            .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? buf.count : buf.count
                    }
                    if nextHash < buf.count {
                        let (cs, ce) = Self.trailingComment(buf, node: node.pointee, inFlow: tree.openIsFlow)
                        node.pointee.commentStart = cs
                        node.pointee.commentEnd = ce
                        if cs >= 0 { commented.append(index) }
                    }
                    if let name = s.anchor { anchors[String(cString: name)] = index }
                }
                tree.attach(index, root: &docRoot)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                let start = marks.position(event.start_mark)
                if tree.openCount >= maxDepth {
                    error = YAMLError(message: "nesting is deeper than \(maxDepth) levels", position: start)
                    return
                }
                let isMapping = type == YAML_MAPPING_START_EVENT
                let flow = isMapping ? event.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                                     : event.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                let index = tree.nodeCount
                let node = tree.newNode(YAMLNode(kind: isMapping ? .mapping : .sequence, style: .plain, isFlow: flow, plainImplicit: false,
                                                 span: SourceSpan(start: start, end: start), parent: tree.openParent))
                if let t = isMapping ? event.data.mapping_start.tag : event.data.sequence_start.tag {
                    let n = strlen(UnsafeRawPointer(t).assumingMemoryBound(to: CChar.self))
                    node.pointee.tagStart = tree.appendArena(t, n)
                    node.pointee.tagCount = n
                }
                if let name = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor {
                    anchors[String(cString: name)] = index
                }
                tree.attach(index, root: &docRoot)
                tree.open(index, isMapping: isMapping, isFlow: flow)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                tree.close(end: marks.position(event.end_mark))
            default:
                break
            }
        }
    }

    /// Records, for each mapping of `mappings` in turn, its scalar keys that repeat an earlier key of it (merge keys aside,
    /// `isMergeKey`): each key compared with the earlier ones by length and bytes, past 32 keys by hashing.
    fileprivate mutating func findDuplicateKeys(in mappings: UnsafeBufferPointer<Int>) {
        var found: [(key: Int, first: Int)] = []
        nodes.withUnsafeBufferPointer { nodes in
            children.withUnsafeBufferPointer { children in
                arena.withUnsafeBufferPointer { arena in
                    /// Whether scalar `n` is a merge key (a value `<<` first, which `isMergeKey` judges by style and tag).
                    func merges(_ n: Int) -> Bool {
                        nodes[n].valueCount == 2 && arena[nodes[n].valueStart] == 60 && arena[nodes[n].valueStart + 1] == 60 && isMergeKey(n)
                    }
                    for m in mappings {
                        let pairs = UnsafeBufferPointer(rebasing: children[nodes[m].childStart..<(nodes[m].childStart + nodes[m].childCount)])
                        guard pairs.count / 2 > 1 else { continue }
                        if pairs.count / 2 > 32 {
                            var first: [ArraySlice<UInt8>: Int] = [:]
                            for j in stride(from: 0, to: pairs.count, by: 2) where nodes[pairs[j]].kind == .scalar && !merges(pairs[j]) {
                                let b = nodes[pairs[j]]
                                let v = self.arena[b.valueStart..<(b.valueStart + b.valueCount)]
                                if let a = first[v] { found.append((pairs[j], a)) } else { first[v] = pairs[j] }
                            }
                            continue
                        }
                        var j = 2
                        while j < pairs.count {
                            let b = nodes[pairs[j]]
                            if b.kind == .scalar, !merges(pairs[j]) {
                                var i = 0
                                while i < j {
                                    let a = nodes[pairs[i]]
                                    if a.kind == .scalar, a.valueCount == b.valueCount,
                                       b.valueCount == 0 || memcmp(arena.baseAddress! + a.valueStart, arena.baseAddress! + b.valueStart, b.valueCount) == 0,
                                       !merges(pairs[i]) {
                                        found.append((pairs[j], pairs[i]))
                                        break
                                    }
                                    i += 2
                                }
                            }
                            j += 2
                        }
                    }
                }
            }
        }
        if !found.isEmpty { duplicateKeys += found }
    }

    /// The position after a node's properties (`&anchor`, `!tag`) and the blanks, line breaks and comments
    /// between them and the value, at most `limit`.
    static func skipProperties(_ buf: UnsafeBufferPointer<UInt8>, from p: SourcePosition, limit: Int) -> SourcePosition {
        var pos = p
        var i = p.offset
        func step() {
            let c = buf[i]
            if c == 10 {
                pos.line += 1
                pos.column = 1
            } else if !(c == 13 && i + 1 < buf.count && buf[i + 1] == 10), c & 0xC0 != 0x80 {
                pos.column += 1
            }
            i += 1
        }
        while i < limit {
            switch buf[i] {
            case UInt8(ascii: "&"):
                // libyaml's anchor is letters, digits, `-` and `_`: `&a:b` is the anchor `a` and the value `:b`
                step()
                while i < limit, Self.isAnchorByte(buf[i]) { step() }
            case UInt8(ascii: "!"):
                while i < limit, buf[i] != 32, buf[i] != 9, breakWidth(buf, at: i, limit: limit) == 0 { step() }
            case 32, 9, 10, 13:
                step()
            case 0xC2 where breakWidth(buf, at: i, limit: limit) > 0, 0xE2 where breakWidth(buf, at: i, limit: limit) > 0:
                for _ in 0..<breakWidth(buf, at: i, limit: limit) { step() }
            case UInt8(ascii: "#"):
                while i < limit, breakWidth(buf, at: i, limit: limit) == 0 { step() }
            case 0xEF where i + 2 < limit && buf[i + 1] == 0xBB && buf[i + 2] == 0xBF && startsLine(buf, at: i):
                // libyaml skips a byte order mark at the start of any line before a token
                step(); step(); step()
            default:
                pos.offset = i
                return pos
            }
        }
        pos.offset = i
        return pos
    }

    /// The width of the line break at `i` as libyaml reads breaks: LF or CR (1), NEL (2), LINE or PARAGRAPH
    /// SEPARATOR (3); 0 where none starts. A tag or comment ends at any of them.
    static func breakWidth(_ buf: UnsafeBufferPointer<UInt8>, at i: Int, limit: Int) -> Int {
        switch buf[i] {
        case 10, 13: return 1
        case 0xC2 where i + 1 < limit && buf[i + 1] == 0x85: return 2
        case 0xE2 where i + 2 < limit && buf[i + 1] == 0x80 && (buf[i + 2] == 0xA8 || buf[i + 2] == 0xA9): return 3
        default: return 0
        }
    }

    /// Whether `i` is the first byte of a line, after any of libyaml's line breaks.
    package static func startsLine(_ buf: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        if i == 0 || buf[i - 1] == 10 || buf[i - 1] == 13 { return true }
        if i >= 2, buf[i - 2] == 0xC2, buf[i - 1] == 0x85 { return true }
        return i >= 3 && buf[i - 3] == 0xE2 && buf[i - 2] == 0x80 && (buf[i - 1] == 0xA8 || buf[i - 1] == 0xA9)
    }

    static func isAnchorByte(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

    /// The comment that follows a scalar on the same line: skip blanks after its end, a `#` starts it.
    /// For block scalars the comment sits on the header line after the `|`/`>` indicators. In a flow collection the
    /// comment may follow the `,` after the item (`[a, # …`), where go-yaml, and so Flux, gives it to the item.
    static func trailingComment(_ buf: UnsafeBufferPointer<UInt8>, node: YAMLNode, inFlow: Bool = false) -> (Int, Int) {
        var i: Int
        if node.style.isBlock {
            i = node.span.start.offset
            while i < buf.count, [UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(buf[i])
                || (buf[i] >= 48 && buf[i] <= 57) { i += 1 }
        } else {
            i = node.span.end.offset
        }
        let afterValue = i
        while i < buf.count, buf[i] == 32 || buf[i] == 9 { i += 1 }
        var afterComma = false   // the scanner takes a `#` right after a flow `,` as a comment: `[a,# c`
        if inFlow, i < buf.count, buf[i] == UInt8(ascii: ",") {
            i += 1
            afterComma = true
            while i < buf.count, buf[i] == 32 || buf[i] == 9 { i += 1 }
        }
        guard i < buf.count, buf[i] == UInt8(ascii: "#") else { return (-1, -1) }
        // A comment needs whitespace before it (or must start the line).
        if !afterComma, i == afterValue, i > 0, buf[i - 1] != 10, buf[i - 1] != 13 { return (-1, -1) }
        var end = i
        while end < buf.count, breakWidth(buf, at: end, limit: buf.count) == 0 { end += 1 }
        return (i, end)
    }

    private func makeError(_ parser: inout yaml_parser_t, _ marks: inout MarkTranslator) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        if parser.error == YAML_READER_ERROR {
            var message = problem
            if parser.problem_value != -1 {
                message += " (0x" + String(parser.problem_value, radix: 16, uppercase: true) + ")"
            }
            var offset = Int(parser.problem_offset)
            if problem.contains("trailing"), offset > 0, offset <= bytes.count {
                // point at the start of the broken sequence, not at its bad continuation byte
                var k = offset - 1
                while k > 0, bytes[k] & 0xC0 == 0x80 { k -= 1 }
                if bytes[k] >= 0xC0 { offset = k }
            }
            return YAMLError(message: message, position: SourceText.position(bytes, offset: offset))
        }
        if parser.error == YAML_MEMORY_ERROR {
            return YAMLError(message: "out of memory while parsing", position: SourcePosition(offset: 0, line: 1, column: 1))
        }
        var message = problem
        if let ctx = parser.context {
            message += " " + String(cString: ctx)
            if parser.context_mark.line != parser.problem_mark.line || parser.context_mark.column != parser.problem_mark.column {
                let started = marks.position(parser.context_mark)
                message += " started at line \(started.line), column \(started.column)"
            }
        }
        if problem == "found unexpected ':'" {
            // libyaml's only use of it: a ':' right before `,` `?` `[` `]` `{` `}` in a flow collection (`[a:]`), which
            // go-yaml reads as part of the value before `,` `]` `}`
            message += "; quote the value (Go's YAML reads `[a:]` as the text 'a:', libyaml does not)"
        }
        let position = marks.position(parser.problem_mark)
        // a byte-order mark at the start of a later line (files joined end to end): libyaml refuses it, go-yaml skips
        // it, and libyaml's error comes later and says nothing of it
        if let at = SourceText.occurrences(of: "\n\u{FEFF}", in: bytes).first, at + 1 <= position.offset {
            let mark = SourceText.position(bytes, offset: at + 1)
            return YAMLError(message: "a byte-order mark (U+FEFF) starts line \(mark.line): libyaml refuses it after the first line "
                                 + "(Go's YAML skips it), and the parse fails at line \(position.line) (\(message)); remove it",
                             position: mark)
        }
        return YAMLError(message: message, position: position)
    }
}

/// The buffers a parse builds its node tree in, besides the nodes (`TreeBuffers`), kept by the `YAMLFile` parsed into
/// for its next parse (a worker's scratch file parses file after file): their memory is then already in the cache, where
/// buffers fresh from the allocator for each file were not (a tenth more first-level cache misses on the bench fleet).
/// They only grow, to the largest file's tree. A parse uses them only while no other value holds them.
final class TreeStorage: @unchecked Sendable {
    // (one parse at a time uses them, which `YAMLFile` sees to: no access of one is checked against another)
    @exclusivity(unchecked) var pending: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) var pendingCapacity: Int
    @exclusivity(unchecked) var children: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) var childCapacity: Int
    @exclusivity(unchecked) var arena: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) var arenaCapacity: Int
    @exclusivity(unchecked) var open: UnsafeMutablePointer<TreeBuffers.Open>
    @exclusivity(unchecked) var openCapacity: Int
    @exclusivity(unchecked) var mappings: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) var mappingCapacity: Int

    /// The libyaml parser of the parses into this storage, made at the first (`readyParser`).
    @exclusivity(unchecked) private var parser: UnsafeMutablePointer<yaml_parser_t>?

    init(nodes: Int, arena: Int) {
        pendingCapacity = 64
        pending = .allocate(capacity: pendingCapacity)
        childCapacity = nodes
        children = .allocate(capacity: nodes)
        arenaCapacity = arena
        self.arena = .allocate(capacity: arena)
        openCapacity = 16
        open = .allocate(capacity: openCapacity)
        mappingCapacity = nodes / 4 + 8
        mappings = .allocate(capacity: mappingCapacity)
    }

    deinit {
        if let parser {
            yaml_parser_delete(parser)
            parser.deallocate()
        }
        pending.deallocate()
        children.deallocate()
        arena.deallocate()
        open.deallocate()
        mappings.deallocate()
    }

    /// A libyaml parser as `yaml_parser_initialize` leaves one, at a fixed address (it points to itself once given its
    /// input); nil when libyaml cannot allocate its buffers. The second and later parses get the first's parser with its
    /// buffers kept: initialising and deleting one for each file cost about 1,500 instructions, and the allocator retired
    /// and took back the pages of its two 16 and 48 KB input buffers every time. What `yaml_parser_delete` frees but
    /// these buffers is freed (the tokens still queued where a parse stopped at an error, the `%TAG` directives), then
    /// every field is zeroed and the buffers' bounds set again as `yaml_parser_initialize` sets them.
    func readyParser() -> UnsafeMutablePointer<yaml_parser_t>? {
        guard let p = parser else {
            let p = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            guard yaml_parser_initialize(p) == 1 else {
                p.deallocate()
                return nil
            }
            parser = p
            return p
        }
        while p.pointee.tokens.head != p.pointee.tokens.tail {
            yaml_token_delete(p.pointee.tokens.head)
            p.pointee.tokens.head += 1
        }
        while p.pointee.tag_directives.top != p.pointee.tag_directives.start {
            p.pointee.tag_directives.top -= 1
            free(p.pointee.tag_directives.top.pointee.handle)
            free(p.pointee.tag_directives.top.pointee.prefix)
        }
        let old = p.pointee
        memset(p, 0, MemoryLayout<yaml_parser_t>.size)
        (p.pointee.raw_buffer.start, p.pointee.raw_buffer.end) = (old.raw_buffer.start, old.raw_buffer.end)
        (p.pointee.raw_buffer.pointer, p.pointee.raw_buffer.last) = (old.raw_buffer.start, old.raw_buffer.start)
        (p.pointee.buffer.start, p.pointee.buffer.end) = (old.buffer.start, old.buffer.end)
        (p.pointee.buffer.pointer, p.pointee.buffer.last) = (old.buffer.start, old.buffer.start)
        (p.pointee.tokens.start, p.pointee.tokens.end) = (old.tokens.start, old.tokens.end)
        (p.pointee.tokens.head, p.pointee.tokens.tail) = (old.tokens.start, old.tokens.start)
        (p.pointee.indents.start, p.pointee.indents.end, p.pointee.indents.top) = (old.indents.start, old.indents.end, old.indents.start)
        (p.pointee.simple_keys.start, p.pointee.simple_keys.end, p.pointee.simple_keys.top) =
            (old.simple_keys.start, old.simple_keys.end, old.simple_keys.start)
        (p.pointee.states.start, p.pointee.states.end, p.pointee.states.top) = (old.states.start, old.states.end, old.states.start)
        (p.pointee.marks.start, p.pointee.marks.end, p.pointee.marks.top) = (old.marks.start, old.marks.end, old.marks.start)
        (p.pointee.tag_directives.start, p.pointee.tag_directives.end, p.pointee.tag_directives.top) =
            (old.tag_directives.start, old.tag_directives.end, old.tag_directives.start)
        return p
    }

    /// `p` with room for `need` elements (more than it has), its first `count` kept (trivial types: moved as bytes).
    static func grow<T>(_ p: inout UnsafeMutablePointer<T>, _ capacity: inout Int, count: Int, need: Int) {
        let larger = max(capacity * 2, need)
        let q = UnsafeMutablePointer<T>.allocate(capacity: larger)
        q.moveInitialize(from: p, count: count)
        p.deallocate()
        p = q
        capacity = larger
    }
}

/// The node tree of one parse as it is built: the nodes in place in the file's own table (`NodeTable`), the rest in
/// buffers of its own (`TreeStorage`) rather than in `YAMLFile`'s arrays. An event costs a store or two, where an array
/// append checks the array's uniqueness and capacity and each node's later change another access; the children and
/// values are copied into the file's arrays once, when the parse ends.
struct TreeBuffers {
    /// An open container: its node, and where its children begin in `pending`.
    struct Open {
        var node: Int
        var pendingStart: Int
        var isMapping: Bool
        var isFlow: Bool
    }

    private let storage: TreeStorage
    /// The file's own node storage (`NodeTable.emptyStorage`): the nodes are written where the file reads them.
    private let nodeStorage: NodeTable.Storage
    private(set) var nodes: UnsafeMutablePointer<YAMLNode>
    private(set) var nodeCount = 0
    private var nodeCapacity: Int
    /// The children of every open container so far, in order (`pending[open[k].pendingStart...]` are `open[k]`'s).
    private var pending: UnsafeMutablePointer<Int>
    private var pendingCount = 0, pendingCapacity: Int
    /// The children of closed containers, as `YAMLFile.children` holds them.
    private var children: UnsafeMutablePointer<Int>
    private var childCount = 0, childCapacity: Int
    /// Scalar values, tags and alias names, as `YAMLFile.arena` holds them.
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCount = 0, arenaCapacity: Int
    private var open: UnsafeMutablePointer<Open>
    private(set) var openCount = 0
    private var openCapacity: Int
    /// Mappings in the order they closed, whose keys `finish` compares.
    private var mappings: UnsafeMutablePointer<Int>
    private var mappingCount = 0, mappingCapacity: Int

    /// Buffers from `storage`, the nodes in `nodeStorage`, with room for about `expected` nodes and `bytes` bytes of values.
    init(_ storage: TreeStorage, nodes nodeStorage: NodeTable.Storage, expected: Int, arena bytes: Int) {
        if expected > storage.childCapacity { TreeStorage.grow(&storage.children, &storage.childCapacity, count: 0, need: expected) }
        if bytes > storage.arenaCapacity { TreeStorage.grow(&storage.arena, &storage.arenaCapacity, count: 0, need: bytes) }
        self.storage = storage
        self.nodeStorage = nodeStorage
        (nodes, nodeCapacity) = (nodeStorage.base, nodeStorage.capacity)
        (pending, pendingCapacity) = (storage.pending, storage.pendingCapacity)
        (children, childCapacity) = (storage.children, storage.childCapacity)
        (arena, arenaCapacity) = (storage.arena, storage.arenaCapacity)
        (open, openCapacity) = (storage.open, storage.openCapacity)
        (mappings, mappingCapacity) = (storage.mappings, storage.mappingCapacity)
    }

    /// Hands the buffers, as they grew, back to the storage for the next parse.
    func release() {
        (storage.pending, storage.pendingCapacity) = (pending, pendingCapacity)
        (storage.children, storage.childCapacity) = (children, childCapacity)
        (storage.arena, storage.arenaCapacity) = (arena, arenaCapacity)
        (storage.open, storage.openCapacity) = (open, openCapacity)
        (storage.mappings, storage.mappingCapacity) = (mappings, mappingCapacity)
    }

    /// The innermost open container (-1 at a document's root).
    var openParent: Int { openCount > 0 ? open[openCount - 1].node : -1 }
    var openIsFlow: Bool { openCount > 0 && open[openCount - 1].isFlow }

    /// Copies `count` bytes into the arena; where they start.
    @inline(__always)
    mutating func appendArena(_ ptr: UnsafeMutablePointer<yaml_char_t>?, _ count: Int) -> Int {
        let start = arenaCount
        guard let ptr, count > 0 else { return start }
        if start + count > arenaCapacity { TreeStorage.grow(&arena, &arenaCapacity, count: arenaCount, need: start + count) }
        memcpy(arena + start, ptr, count)
        arenaCount = start + count
        return start
    }

    /// Adds `node`, to be completed through the pointer (valid until the next node is added) and then attached.
    @inline(__always)
    mutating func newNode(_ node: YAMLNode) -> UnsafeMutablePointer<YAMLNode> {
        if nodeCount == nodeCapacity {
            nodeStorage.count = nodeCount
            nodeStorage.grow(to: nodeCount + 1)
            (nodes, nodeCapacity) = (nodeStorage.base, nodeStorage.capacity)
        }
        let p = nodes + nodeCount
        p.initialize(to: node)
        nodeCount += 1
        return p
    }

    /// Makes node `index` the next child of the innermost open container (a mapping's key or value by its place), or
    /// the document's root.
    @inline(__always)
    mutating func attach(_ index: Int, root: inout Int) {
        guard openCount > 0 else {
            root = index
            return
        }
        let parent = open[openCount - 1]
        if parent.isMapping, (pendingCount - parent.pendingStart) % 2 == 0 { nodes[index].isKey = true }
        if pendingCount == pendingCapacity { TreeStorage.grow(&pending, &pendingCapacity, count: pendingCount, need: pendingCount + 1) }
        pending[pendingCount] = index
        pendingCount += 1
    }

    /// Opens container `node` (added and attached).
    mutating func open(_ node: Int, isMapping: Bool, isFlow: Bool) {
        if openCount == openCapacity { TreeStorage.grow(&open, &openCapacity, count: openCount, need: openCount + 1) }
        open[openCount] = Open(node: node, pendingStart: pendingCount, isMapping: isMapping, isFlow: isFlow)
        openCount += 1
    }

    /// Closes the innermost open container at `end`: its children move from `pending` to `children`.
    mutating func close(end: SourcePosition) {
        guard openCount > 0 else { return }
        openCount -= 1
        let closed = open[openCount]
        let count = pendingCount - closed.pendingStart
        nodes[closed.node].span.end = end
        nodes[closed.node].childStart = childCount
        nodes[closed.node].childCount = count
        if childCount + count > childCapacity { TreeStorage.grow(&children, &childCapacity, count: childCount, need: childCount + count) }
        (children + childCount).update(from: pending + closed.pendingStart, count: count)
        childCount += count
        pendingCount = closed.pendingStart
        if closed.isMapping, count > 2 {
            if mappingCount == mappingCapacity { TreeStorage.grow(&mappings, &mappingCapacity, count: mappingCount, need: mappingCount + 1) }
            mappings[mappingCount] = closed.node
            mappingCount += 1
        }
    }

    /// Ends the file's node table at the last node, copies the children and values into `file`'s arrays (cleared before
    /// the parse, their storage kept), and records the keys of each closed mapping that repeat an earlier key of it (in
    /// the order the mappings closed).
    func finish(into file: inout YAMLFile) {
        nodeStorage.count = nodeCount   // (the file's own: the nodes are in place)
        file.children.append(contentsOf: UnsafeBufferPointer(start: children, count: childCount))
        // (the arena's bytes past `arenaUsed` are left as they are: it is only ever read below it)
        if file.arena.count < arenaCount { file.arena.append(contentsOf: repeatElement(0, count: arenaCount - file.arena.count)) }
        file.arena.withUnsafeMutableBufferPointer { a in _ = memcpy(a.baseAddress!, arena, arenaCount) }
        file.arenaUsed = arenaCount
        file.findDuplicateKeys(in: UnsafeBufferPointer(start: mappings, count: mappingCount))
    }
}
