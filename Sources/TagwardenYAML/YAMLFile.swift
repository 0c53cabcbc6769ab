import TagwardenBasics
import CYAML
#if canImport(Glibc)
import Glibc
#endif

/// How a scalar was written in the source.
public enum ScalarStyle: UInt8, Sendable {
    case plain, singleQuoted, doubleQuoted, literal, folded
    public var isBlock: Bool { self == .literal || self == .folded }
}

public enum NodeKind: UInt8, Sendable {
    case scalar, mapping, sequence, alias
}

/// A position in a file: a byte offset plus the 1-based line and column people see.
/// Columns count Unicode scalars (a UTF-8 BOM is not counted), like editors do.
/// Kept in 32 bits, as the nodes' are (the parser takes no file of 1 GiB or more): a span is 24 bytes, not 48, and the model
/// holds one or more for every object, image, marker and located value.
public struct SourcePosition: Sendable, Hashable {
    private var offset32: Int32
    private var line32: Int32
    private var column32: Int32
    public var offset: Int {
        get { Int(offset32) }
        set { offset32 = Int32(truncatingIfNeeded: newValue) }
    }
    public var line: Int {
        get { Int(line32) }
        set { line32 = Int32(truncatingIfNeeded: newValue) }
    }
    public var column: Int {
        get { Int(column32) }
        set { column32 = Int32(truncatingIfNeeded: newValue) }
    }
    public init(offset: Int, line: Int, column: Int) {
        offset32 = Int32(truncatingIfNeeded: offset)
        line32 = Int32(truncatingIfNeeded: line)
        column32 = Int32(truncatingIfNeeded: column)
    }
}

/// A half-open byte range `[start, end)` with the positions of both ends.
public struct SourceSpan: Sendable, Hashable {
    public var start: SourcePosition
    public var end: SourcePosition
    public init(start: SourcePosition, end: SourcePosition) {
        self.start = start
        self.end = end
    }
}

/// One node of a parsed YAML document. Nodes live in `YAMLFile.nodes`; children are indices.
/// Positions and indices are kept in 32 bits (a file is read only below 2 GiB): a node is 68 bytes, not 136, and a
/// 10 MB file of short lines has a million of them.
public struct YAMLNode: Sendable {
    public var kind: NodeKind
    public var style: ScalarStyle
    public var isFlow: Bool
    /// The scalar was written without an explicit tag (`!!str 1.10` is not implicit).
    public var plainImplicit: Bool
    /// A mapping key (not a value).
    public var isKey = false
    private var startOffset: Int32, startLine: Int32, startColumn: Int32
    private var endOffset: Int32, endLine: Int32, endColumn: Int32
    private var value: (start: Int32, count: Int32)
    private var tagRange: (start: Int32, count: Int32)
    private var childRange: (start: Int32, count: Int32)
    private var commentRange: (start: Int32, end: Int32)
    private var parentIndex: Int32

    init(kind: NodeKind, style: ScalarStyle, isFlow: Bool, plainImplicit: Bool, span: SourceSpan, parent: Int) {
        self.kind = kind
        self.style = style
        self.isFlow = isFlow
        self.plainImplicit = plainImplicit
        (startOffset, startLine, startColumn) = (0, 0, 0)
        (endOffset, endLine, endColumn) = (0, 0, 0)
        value = (0, 0)
        tagRange = (0, 0)
        childRange = (0, 0)
        commentRange = (-1, -1)
        parentIndex = Int32(truncatingIfNeeded: parent)
        self.span = span
    }

    public var span: SourceSpan {
        @inline(__always) get {
            SourceSpan(start: SourcePosition(offset: Int(startOffset), line: Int(startLine), column: Int(startColumn)),
                       end: SourcePosition(offset: Int(endOffset), line: Int(endLine), column: Int(endColumn)))
        }
        @inline(__always) set {
            (startOffset, startLine, startColumn) = (Int32(truncatingIfNeeded: newValue.start.offset), Int32(truncatingIfNeeded: newValue.start.line),
                                                     Int32(truncatingIfNeeded: newValue.start.column))
            (endOffset, endLine, endColumn) = (Int32(truncatingIfNeeded: newValue.end.offset), Int32(truncatingIfNeeded: newValue.end.line),
                                               Int32(truncatingIfNeeded: newValue.end.column))
        }
    }
    /// Scalar value (unescaped), or the anchor name an alias refers to: a range in `YAMLFile.arena`.
    var valueStart: Int { get { Int(value.start) } set { value.start = Int32(truncatingIfNeeded: newValue) } }
    package var valueCount: Int { get { Int(value.count) } set { value.count = Int32(truncatingIfNeeded: newValue) } }
    var tagStart: Int { get { Int(tagRange.start) } set { tagRange.start = Int32(truncatingIfNeeded: newValue) } }
    var tagCount: Int { get { Int(tagRange.count) } set { tagRange.count = Int32(truncatingIfNeeded: newValue) } }
    /// Children in `YAMLFile.children`: key, value, key, value … for mappings.
    var childStart: Int { get { Int(childRange.start) } set { childRange.start = Int32(truncatingIfNeeded: newValue) } }
    public var childCount: Int { get { Int(childRange.count) } set { childRange.count = Int32(truncatingIfNeeded: newValue) } }
    /// The comment that follows a scalar on its own line (`#` included), as a byte range; -1 when none.
    public var commentStart: Int { get { Int(commentRange.start) } set { commentRange.start = Int32(truncatingIfNeeded: newValue) } }
    public var commentEnd: Int { get { Int(commentRange.end) } set { commentRange.end = Int32(truncatingIfNeeded: newValue) } }
    public var parent: Int { get { Int(parentIndex) } set { parentIndex = Int32(truncatingIfNeeded: newValue) } }
}

/// A file's nodes, in order: an array of them whose storage the parser writes in place. A value parsed into again (an
/// extraction worker's scratch file) builds its next tree in the same storage, where no copy of the value holds it:
/// the nodes are written once, not built aside and copied (a large file's 19 MB of them had been written twice).
public struct NodeTable: RandomAccessCollection, Sendable {
    public typealias Indices = Range<Int>

    /// The nodes `0..<count` of room for `capacity`. Written only by the parser, and only while one table holds it.
    final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var base: UnsafeMutablePointer<YAMLNode>
        @exclusivity(unchecked) var count = 0
        @exclusivity(unchecked) var capacity: Int

        init(capacity: Int) {
            self.capacity = Swift.max(capacity, 1)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        /// Room for `need` nodes (more than there is), the first `count` kept.
        func grow(to need: Int) {
            let larger = Swift.max(capacity * 2, need)
            let moved = UnsafeMutablePointer<YAMLNode>.allocate(capacity: larger)
            moved.moveInitialize(from: base, count: count)
            base.deallocate()
            base = moved
            capacity = larger
        }
    }

    var storage: Storage

    public init() { storage = Storage(capacity: 1) }

    init(copying nodes: UnsafeBufferPointer<YAMLNode>) {
        storage = Storage(capacity: nodes.count)
        if let from = nodes.baseAddress { storage.base.initialize(from: from, count: nodes.count) }
        storage.count = nodes.count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }
    public var indices: Range<Int> { 0..<storage.count }

    public subscript(i: Int) -> YAMLNode {
        precondition(i >= 0 && i < storage.count, "node index out of range")
        return storage.base[i]
    }

    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<YAMLNode>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.base, count: storage.count))
    }

    /// The same nodes in storage of their own size.
    func compacted() -> NodeTable { withUnsafeBufferPointer { NodeTable(copying: $0) } }

    /// No nodes (the storage kept where this table alone holds it).
    mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage) { storage.count = 0 } else { storage = Storage(capacity: 1) }
    }

    /// Storage this table alone holds, empty, with room for at least `capacity` nodes: the parser's to write in.
    mutating func emptyStorage(capacity: Int) -> Storage {
        if isKnownUniquelyReferenced(&storage) {
            storage.count = 0
            if storage.capacity < capacity { storage.grow(to: capacity) }
        } else {
            storage = Storage(capacity: capacity)
        }
        return storage
    }
}

public struct YAMLDocument: Sendable {
    public var root: Int
    public var span: SourceSpan
}

public struct YAMLError: Error, Sendable, Equatable {
    public var message: String
    public var position: SourcePosition
}

/// A parsed YAML file: every document, every node with exact byte spans, and the first error, if any.
///
/// Anchors and aliases are kept as they are (an alias is a node that names its anchor); nothing is
/// expanded, so an alias bomb costs nothing.
public struct YAMLFile: Sendable {
    public static let defaultMaxDepth = 256

    /// An empty file, to parse into (`reparse`) and reuse its storage.
    public init() {}

    public internal(set) var bytes: [UInt8] = []
    public internal(set) var nodes = NodeTable()
    public internal(set) var children: [Int] = []
    public internal(set) var documents: [YAMLDocument] = []
    /// The scalars followed by a comment on their line, in source order.
    public internal(set) var commented: [Int] = []
    public internal(set) var error: YAMLError?
    /// Scalar keys given twice in one mapping (merge keys aside, `isMergeKey`): each later key with the first one.
    /// YAML requires unique keys; kubectl and kustomize reject such a file.
    public internal(set) var duplicateKeys: [(key: Int, first: Int)] = []
    /// The node each alias names: the latest anchor of that name before it in its document. Kept aside,
    /// not copied into the tree, so an alias bomb stays a handful of nodes.
    public internal(set) var aliasTargets: [Int: Int] = [:]
    /// What Go's YAML reader refuses although libyaml parses it (see `GoYAML`): where, and why.
    public internal(set) var goRefusals: [(span: SourceSpan, message: String)] = []
    /// Blocks of comment lines indented with tabs, which go-yaml v3 (kustomize, Flux's image automation) reads and
    /// libyaml and go-yaml v2 (Helm's values, `kubectl apply -f`) refuse (`TabbedComments`): the first line's
    /// indentation of each. The file is parsed with their tabs read as spaces.
    public internal(set) var tabbedComments: [SourceSpan] = []
    /// A merge key `<<` given twice in one mapping, with the first: kustomize refuses it, go-yaml does not.
    public internal(set) var duplicateMergeKeys: [(key: Int, first: Int)] = []
    /// The scalars' values and the tags, end to end: bytes `0..<arenaUsed` of `arena`, which is longer than that by what
    /// earlier files parsed into it wrote and by a growth's slack (memcpy into its length, not appends: an append of a scalar's few bytes
    /// cost 70 instructions of its own).
    var arena: [UInt8] = []
    var arenaUsed = 0
    /// The buffers the last parse into this value built its tree in, for the next (`TreeStorage`); not part of the tree.
    var treeStorage: TreeStorage?

    /// The same tree in storage of its own size: what to keep of a file parsed into a reused `YAMLFile`, whose storage
    /// is as large as the largest file it held (and, kept, would be copied by the next parse).
    public func compacted() -> YAMLFile {
        func own<T>(_ a: [T]) -> [T] { a.withUnsafeBufferPointer { Array($0) } }
        var c = self
        c.nodes = nodes.compacted()
        c.children = own(children)
        c.documents = own(documents)
        c.commented = own(commented)
        c.arena = Array(arena[..<arenaUsed])
        c.treeStorage = nil
        return c
    }

    // MARK: access

    public func value(_ node: Int) -> String {
        let n = nodes[node]
        if n.valueCount == 0 { return "" }
        return String(decoding: arena[n.valueStart..<(n.valueStart + n.valueCount)], as: UTF8.self)
    }

    /// Which of `known` (strings and their UTF-8 lengths) scalar `node`'s value is, byte for byte.
    public func valueIndex(_ node: Int, in known: [(string: String, count: Int)]) -> Int? {
        let n = nodes[node]
        for (i, k) in known.enumerated() where k.count == n.valueCount {
            let same = arena.withUnsafeBufferPointer { arena in
                k.string.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, arena.baseAddress! + n.valueStart, n.valueCount) == 0 }
            }
            if same == true { return i }
        }
        return nil
    }

    /// Whether two scalars have the same value.
    func sameValue(_ a: Int, _ b: Int) -> Bool {
        let x = nodes[a], y = nodes[b]
        guard x.valueCount == y.valueCount else { return false }
        var i = 0
        while i < x.valueCount {
            if arena[x.valueStart + i] != arena[y.valueStart + i] { return false }
            i += 1
        }
        return true
    }

    /// The scalar's value compared with `text` byte for byte, without building a String.
    public func valueEquals(_ node: Int, _ text: StaticString) -> Bool {
        let n = nodes[node]
        guard n.kind == .scalar, n.valueCount == text.utf8CodeUnitCount else { return false }
        guard n.valueCount > 0 else { return true }
        return text.withUTF8Buffer { buf in
            arena.withUnsafeBufferPointer { a in memcmp(a.baseAddress! + n.valueStart, buf.baseAddress!, n.valueCount) == 0 }
        }
    }

    public func valueBytes(_ node: Int) -> ArraySlice<UInt8> {
        let n = nodes[node]
        return arena[n.valueStart..<(n.valueStart + n.valueCount)]
    }

    public func tag(_ node: Int) -> String? {
        let n = nodes[node]
        if n.tagCount == 0 { return nil }
        return String(decoding: arena[n.tagStart..<(n.tagStart + n.tagCount)], as: UTF8.self)
    }

    public func childNodes(_ node: Int) -> ArraySlice<Int> {
        let n = nodes[node]
        return children[n.childStart..<(n.childStart + n.childCount)]
    }

    /// Key/value pairs of a mapping (empty for anything else).
    public func pairs(_ node: Int) -> [(key: Int, value: Int)] {
        let n = nodes[node]
        guard n.kind == .mapping else { return [] }
        var out: [(key: Int, value: Int)] = []
        out.reserveCapacity(n.childCount / 2)
        var i = n.childStart
        while i + 1 < n.childStart + n.childCount {
            out.append((children[i], children[i + 1]))
            i += 2
        }
        return out
    }

    /// The node an alias stands for (the node itself when it is no alias, or its anchor is unknown).
    public func resolved(_ node: Int) -> Int {
        nodes[node].kind == .alias ? aliasTargets[node] ?? node : node
    }

    /// A merge key as go-yaml and kustomize read one: `<<` written plainly, or tagged `!!merge`. A quoted `"<<"` is a
    /// key like any other; a merge key may repeat only for go-yaml (kustomize refuses it: `duplicateMergeKeys`).
    public func isMergeKey(_ node: Int) -> Bool {
        let n = nodes[node]
        guard n.kind == .scalar, n.valueCount == 2, arena[n.valueStart] == 60, arena[n.valueStart + 1] == 60 else { return false }
        return n.plainImplicit || tag(node) == "tag:yaml.org,2002:merge"
    }

    /// The value under `key` in a mapping (the last one if the key repeats, as Kubernetes reads it), read
    /// as Kubernetes reads YAML: an alias stands for its anchored node, and a key missing from the mapping
    /// is looked up in what a merge key `<<: *base` (or `<<: [*a, *b]`, earlier first) brings in.
    public func get(_ node: Int, _ key: StaticString) -> Int? {
        guard nodes[node].kind == .mapping else { return nil }
        let (found, merge) = lookup(node, key)
        if let found { return resolved(found) }
        guard let merge else { return nil }
        return merged(merge, key, depth: 1)
    }

    /// `get`, then a key that differs from `key` only in the case of ASCII letters (the last such): what Go's
    /// encoding/json does, which kustomize decodes a kustomization with (`newtag:` sets `newTag`).
    public func getFoldingCase(_ node: Int, _ key: StaticString) -> Int? {
        if let exact = get(node, key) { return exact }
        guard nodes[node].kind == .mapping else { return nil }
        return key.withUTF8Buffer { wanted in
            var found: Int?
            for (k, v) in pairs(node) where nodes[k].kind == .scalar && nodes[k].valueCount == wanted.count {
                if zip(valueBytes(k), wanted).allSatisfy({ $0 | 0x20 == $1 | 0x20 && ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A || $0 == $1) }) {
                    found = v
                }
            }
            return found.map(resolved)
        }
    }

    /// A mapping's value under `key` (the last one), and the value of its merge key `<<`, if any.
    /// (Over the arrays' buffers, with each key's length and first byte compared before its bytes: most lookups are of
    /// keys a mapping lacks.)
    @inline(__always)
    private func lookup(_ mapping: Int, _ key: StaticString) -> (found: Int?, merge: Int?) {
        key.withUTF8Buffer { wanted in
            nodes.withUnsafeBufferPointer { nodes in
                children.withUnsafeBufferPointer { children in
                    arena.withUnsafeBufferPointer { arena in
                        let n = nodes[mapping]
                        var found: Int?
                        var merge: Int?
                        var i = n.childStart
                        let end = n.childStart + n.childCount - 1
                        while i < end {
                            // (the length first: a key of another length, most of them, costs a comparison or two)
                            let k = children[i], count = nodes[k].valueCount
                            if count == wanted.count, nodes[k].kind == .scalar,
                               count == 0 || (arena[nodes[k].valueStart] == wanted[0]
                                              && memcmp(arena.baseAddress! + nodes[k].valueStart, wanted.baseAddress!, count) == 0) {
                                found = children[i + 1]
                            } else if count == 2, isMergeKey(k) {
                                merge = children[i + 1]
                            }
                            i += 2
                        }
                        return (found, merge)
                    }
                }
            }
        }
    }

    /// The value under `key` in what a merge key brings in: a mapping, or a sequence of mappings (earlier
    /// first). A merge chain is followed a few levels deep: anchors only point back, but `&a {<<: *a}` loops.
    private func merged(_ value: Int, _ key: StaticString, depth: Int) -> Int? {
        guard depth <= 8 else { return nil }
        let target = resolved(value)
        let sources = nodes[target].kind == .mapping ? [target] : childNodes(target).map(resolved)
        for m in sources where nodes[m].kind == .mapping {
            let (found, merge) = lookup(m, key)
            if let found { return resolved(found) }
            if let merge, let v = merged(merge, key, depth: depth + 1) { return v }
        }
        return nil
    }

    /// Follows a path of mapping keys.
    public func get(_ node: Int, _ path: StaticString...) -> Int? {
        var cur = node
        for key in path {
            guard let next = get(cur, key) else { return nil }
            cur = next
        }
        return cur
    }

    /// The scalar string under `key`, if it is a scalar.
    public func string(_ node: Int, _ key: StaticString) -> String? {
        guard let v = get(node, key), nodes[v].kind == .scalar else { return nil }
        return value(v)
    }

    public func isScalar(_ node: Int) -> Bool { nodes[node].kind == .scalar }

    public func comment(_ node: Int) -> String? {
        let n = nodes[node]
        guard n.commentStart >= 0 else { return nil }
        return String(decoding: bytes[n.commentStart..<n.commentEnd], as: UTF8.self)
    }

    /// A null scalar: empty, `~` or `null` written plainly (or tagged `!!null`). Byte-level, no String.
    public func isNull(_ node: Int) -> Bool {
        let n = nodes[node]
        guard n.kind == .scalar else { return false }
        if n.tagCount > 0 { return resolvedType(node) == .null }
        guard n.style == .plain, n.plainImplicit else { return false }
        switch n.valueCount {
        case 0: return true
        case 1: return arena[n.valueStart] == UInt8(ascii: "~")
        case 4: return valueEquals(node, "null") || valueEquals(node, "Null") || valueEquals(node, "NULL")
        default: return false
        }
    }

    /// The type Kubernetes, Flux and Helm give this scalar (`ScalarType.resolvePlain`).
    public func resolvedType(_ node: Int) -> ScalarType {
        let n = nodes[node]
        guard n.kind == .scalar else { return .string }
        if let t = tag(node) {
            switch t {
            case "tag:yaml.org,2002:str": return .string
            case "tag:yaml.org,2002:int": return .int
            case "tag:yaml.org,2002:float": return .float
            case "tag:yaml.org,2002:bool": return .bool
            case "tag:yaml.org,2002:null": return .null
            default: return .string
            }
        }
        guard n.style == .plain, n.plainImplicit else { return .string }
        // only scalars starting like a number, bool or null can resolve to one
        if n.valueCount > 0 {
            switch arena[n.valueStart] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "~"),
                 UInt8(ascii: "y"), UInt8(ascii: "Y"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"),
                 UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "o"), UInt8(ascii: "O"):
                break
            default:
                return .string
            }
        }
        return ScalarType.resolvePlain(value(node))
    }
}

public enum ScalarType: Sendable, Equatable {
    case string, int, float, bool, null

    /// How go-yaml v2 types a plain scalar: what Kubernetes, Flux and Helm end up with, since the API server's
    /// sigs.k8s.io/yaml reads what kustomize writes (a plain scalar as it was written), and Helm reads values files
    /// with it too. Held to go-yaml itself by `scripts/yaml-vs-go/run`. `null`, `~` and the empty scalar are null;
    /// `true`, `yes`, `on`, `y` and their opposites (three casings) are booleans; a scalar that starts with a digit or
    /// sign is an integer when Go's `ParseInt(s, 0, 64)` (or `ParseUint`) takes it with its underscores removed (`0x1F`,
    /// `0o17`, `017`, `1_000`), else a float when it looks like `[-+]?(.N|N(.N?)?)([eE][-+]?N)?` and is in range
    /// (`1.10`, `08`, `1e3`, a too large integer), else a string (`1:30`, `1.2.3`).
    public static func resolvePlain(_ s: String) -> ScalarType {
        // (the words below are at most five bytes, and none starts with a digit: a longer scalar, or one that starts with a
        // digit (`5m`, `8080`), is compared with none of them)
        if s.utf8.count <= 5, !(s.utf8.first.map { $0 >= 48 && $0 <= 57 } ?? false) {
            switch s {
            case "", "~", "null", "Null", "NULL": return .null
            case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
                 "on", "On", "ON", "off", "Off", "OFF":
                return .bool
            case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
                return .float
            default: break
            }
        }
        switch s.utf8.first! {
        case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"), 48...57: break
        default: return .string
        }
        let b = Array(s.utf8)
        switch b[0] {
        case UInt8(ascii: "."):
            if case .success = GoFloat.parse(s) { return .float }
            return .string
        case UInt8(ascii: "+"), UInt8(ascii: "-"), 48...57:
            let plain = b.filter { $0 != UInt8(ascii: "_") }
            if goInteger(plain) { return .int }
            if yamlStyleFloat(plain), case .success = GoFloat.parse(String(decoding: plain, as: UTF8.self)) { return .float }
            // go-yaml's own binary forms: what follows `0b` read by ParseInt(…, 2), which takes a sign (`0b-1`)
            if plain.starts(with: "0b".utf8), goInteger(Array(plain.dropFirst(2)), base: 2) { return .int }
            if plain.starts(with: "-0b".utf8), goInteger([UInt8(ascii: "-")] + plain.dropFirst(3), base: 2) { return .int }
            return .string
        default:
            return .string
        }
    }

    /// Go's `strconv.ParseInt(s, base, 64)`, or `ParseUint(s, base, 64)` for an unsigned one, succeeds (base 0: the
    /// prefix decides, `0x`, `0o`, `0b`, or a leading `0` for octal).
    static func goInteger(_ b: [UInt8], base: Int = 0) -> Bool {
        guard let n = goDigits(b, base: base) else { return false }
        if !n.signed { return true }   // ParseUint takes what ParseInt cannot
        return n.negative ? n.magnitude <= UInt64(Int64.max) + 1 : n.magnitude <= UInt64(Int64.max)
    }

    /// Go's `strconv.ParseInt(s, base, 64)`: the value, or nil.
    static func goInt64(_ b: [UInt8], base: Int = 0) -> Int64? {
        guard let n = goDigits(b, base: base) else { return nil }
        if n.negative { return n.magnitude <= UInt64(Int64.max) + 1 ? Int64(bitPattern: 0 &- n.magnitude) : nil }
        return n.magnitude <= UInt64(Int64.max) ? Int64(n.magnitude) : nil
    }

    /// The sign and magnitude of an integer as Go's strconv reads one (a sign, then the base's prefix when `base` is
    /// 0), or nil when a digit is out of the base or the magnitude passes 64 bits.
    private static func goDigits(_ b: [UInt8], base fixed: Int) -> (magnitude: UInt64, negative: Bool, signed: Bool)? {
        var i = 0
        var negative = false, signed = false
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            signed = true
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        var base = UInt64(fixed == 0 ? 10 : fixed)
        if fixed == 0, i + 1 < b.count, b[i] == UInt8(ascii: "0") {
            switch b[i + 1] | 0x20 {
            case UInt8(ascii: "x"): base = 16; i += 2
            case UInt8(ascii: "o"): base = 8; i += 2
            case UInt8(ascii: "b"): base = 2; i += 2
            default: base = 8; i += 1
            }
        }
        guard i < b.count else { return nil }
        var value: UInt64 = 0
        for c in b[i...] {
            let d: UInt64
            switch c {
            case 48...57: d = UInt64(c - 48)
            case 97...122: d = UInt64(c - 97 + 10)
            case 65...90: d = UInt64(c - 65 + 10)
            default: return nil
            }
            guard d < base else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: base)
            let (a, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            value = a
        }
        return (value, negative, signed)
    }

    /// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
    static func yamlStyleFloat(_ b: [UInt8]) -> Bool {
        func digit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        let intStart = i
        while i < b.count, digit(b[i]) { i += 1 }
        if i > intStart {
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                while i < b.count, digit(b[i]) { i += 1 }
            }
        } else {
            guard i < b.count, b[i] == UInt8(ascii: ".") else { return false }
            i += 1
            let fracStart = i
            while i < b.count, digit(b[i]) { i += 1 }
            guard i > fracStart else { return false }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let expStart = i
            while i < b.count, digit(b[i]) { i += 1 }
            guard i > expStart else { return false }
        }
        return i == b.count
    }
}
