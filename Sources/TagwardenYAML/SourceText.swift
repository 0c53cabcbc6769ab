import TagwardenBasics
#if canImport(Glibc)
import Glibc
#endif

/// Byte-level helpers over a file's raw bytes: lines and positions.
public enum SourceText {
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    public static func hasBOM(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// The 1-based line and column (in Unicode scalars, BOM not counted) of a byte offset.
    public static func position(_ bytes: [UInt8], offset: Int) -> SourcePosition {
        let target = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = hasBOM(bytes) ? 3 : 0
        bytes.withUnsafeBytes { b in
            // line breaks found with memchr
            var i = lineStart
            while i < target, let p = memchr(b.baseAddress! + i, 10, target - i) {
                i = b.baseAddress!.distance(to: UnsafeRawPointer(p)) + 1
                line += 1
                lineStart = i
            }
        }
        return SourcePosition(offset: target, line: line, column: column(bytes, lineStart: lineStart, at: target))
    }

    /// The position of byte `offset` counted from `known`, an earlier position on the same line; nil where a line break
    /// lies between them (then `position(_:offset:)` counts from the file's start).
    public static func position(_ bytes: [UInt8], offset: Int, onLineOf known: SourcePosition) -> SourcePosition? {
        guard known.offset <= offset, offset <= bytes.count, !bytes[known.offset..<offset].contains(10) else { return nil }
        var p = known
        p.offset = offset
        p.column = known.column + column(bytes, lineStart: known.offset, at: offset) - 1
        return p
    }

    /// The 1-based column of byte `target` on the line that starts at `lineStart`: Unicode scalars, not bytes.
    package static func column(_ bytes: [UInt8], lineStart: Int, at target: Int) -> Int {
        var column = 1
        var j = min(lineStart, target)
        while j < target {
            if bytes[j] & 0xC0 != 0x80 { column += 1 }
            j += 1
        }
        return column
    }

    /// The byte offset where a 1-based line starts (BOM skipped), or nil past the end.
    public static func lineStart(_ bytes: [UInt8], line: Int) -> Int? {
        var cur = 1
        var i = hasBOM(bytes) ? 3 : 0
        if line == 1 { return i }
        while i < bytes.count {
            if bytes[i] == 10 {
                cur += 1
                if cur == line { return i + 1 }
            }
            i += 1
        }
        return nil
    }

    /// The byte range of a line's content, without `\n` or `\r\n`.
    public static func lineRange(_ bytes: [UInt8], line: Int) -> Range<Int>? {
        guard let start = lineStart(bytes, line: line) else { return nil }
        return contentRange(bytes, from: start)
    }

    /// From a line's start to its `\n` or `\r\n` (or the end of the bytes).
    static func contentRange(_ bytes: [UInt8], from start: Int) -> Range<Int> {
        var end = start
        while end < bytes.count, bytes[end] != 10 { end += 1 }
        if end > start, bytes[end - 1] == 13 { end -= 1 }
        return start..<end
    }

    public static func lineText(_ bytes: [UInt8], line: Int) -> String {
        guard let r = lineRange(bytes, line: line) else { return "" }
        return String(decoding: bytes[r], as: UTF8.self)
    }

    /// The end of the line containing `offset` (the index of `\r\n`, `\n` or the end of the bytes).
    package static func lineEnd(_ bytes: [UInt8], from offset: Int) -> Int {
        var i = offset
        while i < bytes.count, bytes[i] != 10, bytes[i] != 13 { i += 1 }
        return i
    }

    /// The first occurrence of `n` in `hay` from `from`: memchr for the needle's byte at `pick` (its first, or one that
    /// is rarer in the text searched), then memcmp.
    package static func find(_ hay: UnsafeRawBufferPointer, _ n: UnsafeRawBufferPointer, from: Int, pick: Int = 0) -> Int? {
        guard let h = hay.baseAddress, let nb = n.baseAddress, n.count > 0 else { return nil }
        let byte = Int32(n[pick])
        var i = from + pick
        let last = hay.count - n.count + pick   // the last place the picked byte can be
        while i <= last {
            guard let p = memchr(h + i, byte, last - i + 1) else { return nil }
            let off = h.distance(to: UnsafeRawPointer(p)) - pick
            if memcmp(h + off, nb, n.count) == 0 { return off }
            i = off + pick + 1
        }
        return nil
    }

    /// Byte offsets of every occurrence of `needle`, found by its byte at `pick` (`find`).
    public static func occurrences(of needle: StaticString, in bytes: [UInt8], pick: Int = 0) -> [Int] {
        var out: [Int] = []
        bytes.withUnsafeBytes { hay in
            needle.withUTF8Buffer { n in
                var from = 0
                while let off = find(hay, UnsafeRawBufferPointer(n), from: from, pick: pick) {
                    out.append(off)
                    from = off + 1
                }
            }
        }
        return out
    }

    public static func contains(_ needle: StaticString, in bytes: [UInt8], pick: Int = 0) -> Bool {
        bytes.withUnsafeBytes { hay in needle.withUTF8Buffer { n in find(hay, UnsafeRawBufferPointer(n), from: 0, pick: pick) != nil } }
    }

    public static func contains(_ needle: StaticString, in bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { hay in needle.withUTF8Buffer { n in find(hay, UnsafeRawBufferPointer(n), from: 0) != nil } }
    }

    /// Byte order of the UTF-8 (Go's string comparison, and the order git sorts paths in), with memcmp.
    public static func byteLess(_ a: String, _ b: String) -> Bool {
        if let r = a.utf8.withContiguousStorageIfAvailable({ x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let n = min(x.count, y.count)
                let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return c != 0 ? c < 0 : x.count < y.count
            }
        }), let r { return r }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// The first position of `sorted` (in byte order) whose string is not byte-less than `key`, by bisection.
    public static func firstNotByteLess(_ sorted: [String], _ key: String) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if byteLess(sorted[mid], key) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Whether `bytes` ends with `suffix` (memcmp where the bytes are contiguous).
    public static func hasByteSuffix<C: Collection<UInt8>>(_ bytes: C, _ suffix: [UInt8]) -> Bool {
        suffix.withUnsafeBufferPointer { hasByteSuffix(bytes, $0) }
    }

    public static func hasByteSuffix<C: Collection<UInt8>>(_ bytes: C, _ suffix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= suffix.count else { return false }
        guard let x = suffix.baseAddress, !suffix.isEmpty else { return true }
        if let r = bytes.withContiguousStorageIfAvailable({ b in memcmp(b.baseAddress! + (b.count - suffix.count), x, suffix.count) == 0 }) {
            return r
        }
        return bytes.suffix(suffix.count).elementsEqual(suffix)
    }

    /// Whether `bytes` are `other`'s (memcmp where the bytes are contiguous).
    public static func sameBytes<C: Collection<UInt8>>(_ bytes: C, _ other: [UInt8]) -> Bool {
        bytes.count == other.count && hasByteSuffix(bytes, other)
    }

    /// Whether `s` starts with the bytes of `prefix` (a path under a directory), with memcmp: the generic
    /// `utf8.starts(with:)` costs a thousand instructions a call.
    public static func hasBytePrefix(_ s: String, _ prefix: String) -> Bool {
        if let r = s.utf8.withContiguousStorageIfAvailable({ x in
            prefix.utf8.withContiguousStorageIfAvailable { y -> Bool in
                y.count <= x.count && (y.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, y.count) == 0)
            }
        }), let r { return r }
        return s.utf8.starts(with: prefix.utf8)
    }

    /// Whether `a` and `b` are the same bytes (git compares paths so; Swift's `==` takes NFC and NFD text as equal).
    public static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && hasBytePrefix(a, b)
    }

    /// The offset of the first NUL byte, if any (libc's memchr).
    /// A file that starts with a UTF-32 or UTF-16 byte order mark, as UTF-8 without the mark (YAML parsers, Go's
    /// among them, read these encodings, so kustomize deploys such a file): nil for any other file; `.failure`
    /// with the byte offset of the first unit that is not a character of its encoding.
    /// Where the first YAML document of `bytes` ends: the start of the line of the next document's `---` marker (at
    /// the start of a line, then a blank or the line's end) after some content; nil when there is one document.
    /// A `---` at column 0 always starts a document: it ends any block scalar above it.
    public static func firstDocumentEnd(_ bytes: [UInt8]) -> Int? {
        var lineStart = 0, content = false
        while lineStart < bytes.count {
            let end = bytes[lineStart...].firstIndex(of: 10) ?? bytes.count
            let line = bytes[lineStart..<end]
            let isMarker = line.starts(with: [45, 45, 45] as [UInt8])
                && (line.count == 3 || [32, 9, 13].contains(line[line.startIndex + 3]))
            if isMarker {
                if content { return lineStart }
                content = line.dropFirst(3).contains { $0 != 32 && $0 != 9 && $0 != 13 }   // `--- a: 1`
            } else if let first = line.first(where: { $0 != 32 && $0 != 9 && $0 != 13 }), first != UInt8(ascii: "#"), first != UInt8(ascii: "%") {
                content = true
            }
            lineStart = end + 1
        }
        return nil
    }

    public static func utf8(fromBOMEncoded bytes: [UInt8]) -> Result<[UInt8], DecodingFailure>? {
        func unit32(_ i: Int, big: Bool) -> UInt32 {
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 8 | UInt32(bytes[big ? i + k : i + 3 - k]) }
            return v
        }
        // most files: no such mark, known from the first byte
        guard let first = bytes.first, first == 0xFF || first == 0xFE || first == 0 else { return nil }
        var out: [UInt8] = []
        let head = bytes.prefix(4)
        if head.elementsEqual([0xFF, 0xFE, 0, 0] as [UInt8]) || head.elementsEqual([0, 0, 0xFE, 0xFF] as [UInt8]) {
            let big = bytes[0] == 0
            out.reserveCapacity(bytes.count / 4)
            var i = 4
            while i + 4 <= bytes.count {
                guard let scalar = Unicode.Scalar(unit32(i, big: big)) else { return .failure(DecodingFailure(encoding: "UTF-32", offset: i)) }
                out.append(contentsOf: UTF8.encode(scalar)!)
                i += 4
            }
            if i != bytes.count { return .failure(DecodingFailure(encoding: "UTF-32", offset: i)) }
            return .success(out)
        }
        if head.starts(with: [0xFF, 0xFE] as [UInt8]) || head.starts(with: [0xFE, 0xFF] as [UInt8]) {
            let big = bytes[0] == 0xFE
            let units = stride(from: 2, to: bytes.count - 1, by: 2).lazy.map { i -> UInt16 in
                let (high, low) = big ? (bytes[i], bytes[i + 1]) : (bytes[i + 1], bytes[i])
                return UInt16(high) << 8 | UInt16(low)
            }
            out.reserveCapacity(bytes.count / 2)
            var offset = 2
            var iterator = units.makeIterator()
            var decoder = UTF16()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar):
                    out.append(contentsOf: UTF8.encode(scalar)!)
                    offset += scalar.value > 0xFFFF ? 4 : 2
                case .emptyInput:
                    break loop
                case .error:
                    return .failure(DecodingFailure(encoding: "UTF-16", offset: offset))
                }
            }
            if bytes.count % 2 != 0 { return .failure(DecodingFailure(encoding: "UTF-16", offset: bytes.count - 1)) }
            return .success(out)
        }
        return nil
    }

    public struct DecodingFailure: Error {
        public var encoding: String
        public var offset: Int
    }

    public static func firstNUL(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { b in
            guard let base = b.baseAddress, let p = memchr(base, 0, b.count) else { return nil }
            return base.distance(to: UnsafeRawPointer(p))
        }
    }
}

/// Where each line of a file starts, found once, so that a file with many findings or markers looks up
/// lines and positions by bisection instead of scanning from its first byte each time.
public struct LineIndex: Sendable {
    /// Byte offset of each line's start: line 1 starts after a BOM.
    public let starts: [Int]

    public init(_ bytes: [UInt8]) {
        var starts = [SourceText.hasBOM(bytes) ? 3 : 0]
        starts.reserveCapacity(bytes.count / 24 + 1)
        bytes.withUnsafeBytes { b in
            var i = starts[0]
            while i < b.count, let p = memchr(b.baseAddress! + i, 10, b.count - i) {
                i = b.baseAddress!.distance(to: UnsafeRawPointer(p)) + 1
                starts.append(i)
            }
        }
        self.starts = starts
    }

    /// The 1-based line holding `offset`.
    public func line(_ offset: Int) -> Int {
        var lo = 0, hi = starts.count   // the number of starts at or before offset
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] <= offset { lo = mid + 1 } else { hi = mid }
        }
        return max(lo, 1)
    }

    /// The same as `SourceText.position(bytes, offset:)`.
    public func position(_ bytes: [UInt8], offset: Int) -> SourcePosition {
        let target = min(max(offset, 0), bytes.count)
        let line = self.line(target)
        return SourcePosition(offset: target, line: line, column: SourceText.column(bytes, lineStart: starts[line - 1], at: target))
    }

    /// The same as `SourceText.lineRange(bytes, line:)`.
    public func range(_ bytes: [UInt8], line: Int) -> Range<Int>? {
        guard line >= 1, line <= starts.count, starts[line - 1] <= bytes.count else { return nil }
        return SourceText.contentRange(bytes, from: starts[line - 1])
    }

    /// The same as `SourceText.lineText(bytes, line:)`.
    public func text(_ bytes: [UInt8], line: Int) -> String {
        range(bytes, line: line).map { String(decoding: bytes[$0], as: UTF8.self) } ?? ""
    }
}

extension SourceText {
    /// Where byte `offset` of a scalar's value sits in the source, when the value is the source text itself:
    /// a literal block (`|`, `|-`, `|+`, without an indentation indicator), or a one-line plain or quoted
    /// scalar without escapes. Nil when the mapping is not exact (folded, escaped, multi-line flow scalars):
    /// every answer is checked against the source bytes.
    public static func position(inValue value: String, offset: Int, span: SourceSpan, bytes: [UInt8]) -> SourcePosition? {
        let v = Array(value.utf8)
        guard !v.isEmpty, offset >= 0, offset <= v.count, span.start.offset < span.end.offset, span.end.offset <= bytes.count else { return nil }
        // the end of the value maps to just after its last byte
        let target = offset == v.count ? offset - 1 : offset
        let after = offset == v.count ? 1 : 0
        let s = span.start.offset, e = span.end.offset
        var source: Int?
        switch bytes[s] {
        case UInt8(ascii: "|"):
            var i = s + 1
            while i < e, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            guard i < e, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 || bytes[i] == UInt8(ascii: "#") else { return nil }
            // the content starts on the next line; its indentation is the first non-blank line's
            var lineStart = lineEnd(bytes, from: i)
            if lineStart < e, bytes[lineStart] == 13 { lineStart += 1 }
            if lineStart < e, bytes[lineStart] == 10 { lineStart += 1 }
            var indent: Int?
            var probe = lineStart
            while probe < e, indent == nil {
                var k = probe
                while k < e, bytes[k] == 32 { k += 1 }
                if k < e, bytes[k] != 10, bytes[k] != 13 { indent = k - probe } else { probe = lineEnd(bytes, from: k) + 1 }
            }
            guard let indent else { return nil }
            // the value's line and column of `target`
            var line = 0, col = 0
            for b in v[..<target] {
                if b == 10 { line += 1; col = 0 } else { col += 1 }
            }
            var start = lineStart
            for _ in 0..<line {
                start = lineEnd(bytes, from: start)
                if start < e, bytes[start] == 13 { start += 1 }
                start += 1
            }
            source = start + indent + col
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            let quote = bytes[s]
            let inner = bytes[(s + 1)..<max(s + 1, e - 1)]
            guard !inner.contains(10), !inner.contains(13),
                  quote == UInt8(ascii: "'") ? !inner.contains(quote) : !inner.contains(UInt8(ascii: "\\")) else { return nil }
            source = s + 1 + target
        default:
            guard !bytes[s..<e].contains(10), !bytes[s..<e].contains(13) else { return nil }
            source = s + target
        }
        guard let at = source, at < e, bytes[at] == v[target] else { return nil }
        return position(bytes, offset: at + after)
    }
}
