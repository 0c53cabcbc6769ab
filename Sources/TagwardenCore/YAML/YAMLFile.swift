import CYAML

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
public struct SourcePosition: Sendable, Hashable {
    public var offset: Int
    public var line: Int
    public var column: Int
    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
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
public struct YAMLNode: Sendable {
    public var kind: NodeKind
    public var style: ScalarStyle
    public var isFlow: Bool
    /// The scalar was written without an explicit tag (`!!str 1.10` is not implicit).
    public var plainImplicit: Bool
    public var span: SourceSpan
    /// Scalar value (unescaped), or the anchor name an alias refers to: a range in `YAMLFile.arena`.
    var valueStart: Int
    var valueCount: Int
    var tagStart: Int
    var tagCount: Int
    /// Children in `YAMLFile.children`: key, value, key, value … for mappings.
    var childStart: Int
    public var childCount: Int
    /// The comment that follows a scalar on its own line (`#` included), as a byte range; -1 when none.
    public var commentStart: Int
    public var commentEnd: Int
    public var parent: Int
    /// A mapping key (not a value).
    public var isKey = false
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

    public internal(set) var bytes: [UInt8] = []
    public internal(set) var nodes: [YAMLNode] = []
    public internal(set) var children: [Int] = []
    public internal(set) var documents: [YAMLDocument] = []
    /// The scalars followed by a comment on their line, in source order.
    public internal(set) var commented: [Int] = []
    public internal(set) var error: YAMLError?
    /// Scalar keys given twice in one mapping (merge keys `<<` aside): each later key with the first one.
    /// YAML requires unique keys; kubectl and kustomize reject such a file.
    public internal(set) var duplicateKeys: [(key: Int, first: Int)] = []
    /// The node each alias names: the latest anchor of that name before it in its document. Kept aside,
    /// not copied into the tree, so an alias bomb stays a handful of nodes.
    public internal(set) var aliasTargets: [Int: Int] = [:]
    var arena: [UInt8] = []

    // MARK: access

    public func value(_ node: Int) -> String {
        let n = nodes[node]
        if n.valueCount == 0 { return "" }
        return String(decoding: arena[n.valueStart..<(n.valueStart + n.valueCount)], as: UTF8.self)
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
        return text.withUTF8Buffer { buf in
            var i = 0
            while i < n.valueCount {
                if arena[n.valueStart + i] != buf[i] { return false }
                i += 1
            }
            return true
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

    /// A mapping's value under `key` (the last one), and the value of its merge key `<<`, if any.
    @inline(__always)
    private func lookup(_ mapping: Int, _ key: StaticString) -> (found: Int?, merge: Int?) {
        let n = nodes[mapping]
        var found: Int?
        var merge: Int?
        var i = n.childStart
        while i + 1 < n.childStart + n.childCount {
            let k = children[i]
            if valueEquals(k, key) {
                found = children[i + 1]
            } else if nodes[k].valueCount == 2, nodes[k].kind == .scalar, nodes[k].style == .plain, isMergeKey(nodes[k]) {
                merge = children[i + 1]
            }
            i += 2
        }
        return (found, merge)
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

    /// How YAML 1.1 (what Helm reads values with) types this scalar.
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
            let c = arena[n.valueStart]
            let maybe = (c >= 48 && c <= 57) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
                || c == UInt8(ascii: "~") || "yYnNtTfFoO".utf8.contains(c)
            if !maybe { return .string }
        }
        return ScalarType.resolvePlain(value(node))
    }
}

public enum ScalarType: Sendable, Equatable {
    case string, int, float, bool, null

    /// YAML 1.1 implicit resolution of a plain scalar.
    public static func resolvePlain(_ s: String) -> ScalarType {
        switch s {
        case "", "~", "null", "Null", "NULL": return .null
        case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
             "true", "True", "TRUE", "false", "False", "FALSE",
             "on", "On", "ON", "off", "Off", "OFF": return .bool
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
             ".nan", ".NaN", ".NAN": return .float
        default: break
        }
        let b = Array(s.utf8)
        if isInt(b) { return .int }
        if isFloat(b) { return .float }
        return .string
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    private static func isInt(_ b: [UInt8]) -> Bool {
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { return false }
        let rest = b[i...]
        if rest.count > 2, rest.first == UInt8(ascii: "0"), rest[rest.startIndex + 1] == UInt8(ascii: "x") {
            return rest.dropFirst(2).allSatisfy { isDigit($0) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) || $0 == 95 }
        }
        if rest.count > 2, rest.first == UInt8(ascii: "0"), rest[rest.startIndex + 1] == UInt8(ascii: "b") {
            return rest.dropFirst(2).allSatisfy { $0 == 48 || $0 == 49 || $0 == 95 }
        }
        // decimal (and YAML 1.1 octal 0755), with `_` separators, and base-60 `1:30`
        guard isDigit(rest.first!) else { return false }
        var sawColon = false
        for c in rest {
            if isDigit(c) || c == 95 { continue }
            if c == UInt8(ascii: ":") { sawColon = true; continue }
            return false
        }
        if sawColon { return rest.last.map(isDigit) ?? false }
        return true
    }

    private static func isFloat(_ b: [UInt8]) -> Bool {
        // [-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?  (YAML 1.1), also 1e3 as YAML 1.2 readers do
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < b.count, isDigit(b[i]) || b[i] == 95 { i += 1; digits += 1 }
        var frac = 0
        var dot = false
        if i < b.count, b[i] == UInt8(ascii: ".") {
            dot = true
            i += 1
            while i < b.count, isDigit(b[i]) || b[i] == 95 { i += 1; frac += 1 }
        }
        guard digits + frac > 0 else { return false }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            var exp = 0
            while i < b.count, isDigit(b[i]) { i += 1; exp += 1 }
            guard exp > 0 else { return false }
            return i == b.count
        }
        return dot && i == b.count
    }
}
