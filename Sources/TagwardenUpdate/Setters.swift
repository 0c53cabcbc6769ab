import TagwardenBasics
import TagwardenYAML
import TagwardenModel

/// The Kubernetes object a change is in, as Flux names it in its result (`ObjectIdentifier`): empty strings for what
/// the document does not say (a kustomization has no name; YAML that is no Kubernetes object has nothing).
public struct ObjectIdentity: Sendable, Hashable {
    public let apiVersion: String
    public let kind: String
    public let namespace: String
    public let name: String
}

/// One field a setter changes: Flux's `Change{OldValue, NewValue, Setter}`, with where it is.
public struct SetterChange: Sendable, Equatable {
    /// The file, relative to the repository root.
    public let file: String
    public let line: Int
    public let column: Int
    public let object: ObjectIdentity
    /// The marker's value (`ns:name`, `ns:name:tag` …): Flux's setter name.
    public let setter: String
    public let oldValue: String
    public let newValue: String
}

/// What happens to one marker Flux reads (written after a scalar value, or as a sequence item's head comment).
public struct MarkerOutcome: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// The value changes (see the run's changes).
        case changed
        /// The value is what the policy selects already.
        case current
        /// Not written, and why.
        case skipped(String)
    }
    public let file: String
    public let line: Int
    public let column: Int
    /// The marker's `$imagepolicy` value.
    public let setter: String
    public let status: Status

    /// The policy it names, `namespace:name`: the value up to its second `:` (found among its bytes, as Flux splits it).
    public var policy: String {
        var colons = 0
        for i in setter.utf8.indices where setter.utf8[i] == UInt8(ascii: ":") {
            colons += 1
            if colons == 2 { return String(setter[..<i]) }
        }
        return setter
    }
}

/// A file the setters rewrite: its bytes before and after, and the changes, in file order.
public struct FileRewrite: Sendable, Equatable {
    public let path: String
    public let before: [UInt8]
    public let after: [UInt8]
    public let changes: [SetterChange]
}

extension Array where Element == SourceFile {
    /// These files as `rewrites` leave them; a file they name that is not here is added.
    public func applying(_ rewrites: [FileRewrite]) -> [SourceFile] {
        var out = self
        var index = Dictionary(out.indices.map { (out[$0].path, $0) }, uniquingKeysWith: { a, _ in a })
        for r in rewrites {
            if let k = index[r.path] { out[k].bytes = r.after } else {
                index[r.path] = out.count
                out.append(SourceFile(path: r.path, bytes: r.after))
            }
        }
        return out
    }
}

/// What Flux's Setters strategy does to the files under an automation's `update.path`, as edits of the original bytes.
public struct SetterRun: Sendable, Equatable {
    /// The files that change, in path order.
    public let rewrites: [FileRewrite]
    /// Every marker Flux reads under the path, and what happens to it, in path and file order.
    public let markers: [MarkerOutcome]
    /// Files with the marker token that Flux cannot read and so skips silently (here, reported), and why.
    public let unreadable: [(path: String, reason: String)]

    public var changes: [SetterChange] { rewrites.flatMap(\.changes) }

    public static func == (a: SetterRun, b: SetterRun) -> Bool {
        a.rewrites == b.rewrites && a.markers == b.markers
            && a.unreadable.map(\.path) == b.unreadable.map(\.path) && a.unreadable.map(\.reason) == b.unreadable.map(\.reason)
    }
}

/// A file's markers where Flux reads them (after a scalar value, or a sequence item's head comment, naming a policy),
/// with what the setters need of each: the value and where it is, how it is written, and its object.
public struct MarkedFile: Sendable {
    public struct Mark: Sendable {
        public let ref: MarkerRef
        public let scalar: Located
        public let style: ScalarStyle
        /// Whether the value is in a flow collection; nil when not known (then the file is parsed if it matters).
        public let inFlow: Bool?
        public let object: ObjectIdentity
    }
    public let path: String
    public let bytes: [UInt8]
    public let marks: [Mark]
    /// Why Flux cannot read the file, if it cannot.
    public let unreadable: String?

    /// The marks of a file, read by parsing it.
    init(parsing file: SourceFile, scratch: inout YAMLFile) {
        let facts = Extractor.extract(path: file.path, bytes: file.bytes, index: 0, reusing: &scratch)
        let y = scratch
        var nodeAt: [Int: Int] = [:]
        var marks: [Mark] = []
        for m in facts.markers where m.context == .value {
            guard let ref = m.ref, let scalar = m.scalar else { continue }
            if nodeAt.isEmpty { for (i, n) in y.nodes.enumerated() where n.kind == .scalar { nodeAt[n.span.start.offset] = i } }
            guard let node = nodeAt[scalar.span.start.offset] else { continue }
            let parent = y.nodes[node].parent
            marks.append(Mark(ref: ref, scalar: scalar, style: y.nodes[node].style, inFlow: parent >= 0 && y.nodes[parent].isFlow,
                              object: m.object.map { Setters.identity(facts.objects[$0.index]) } ?? .none))
        }
        self.init(path: file.path, bytes: file.bytes, marks: marks, unreadable: facts.fluxCannotRead)
    }

    /// The marks of file `f` of the Model (its markers `markers`, indices into `Model.markers`), as the Model read them.
    public init(model: Model, file f: FileID, markers: [MarkerID]) {
        let facts = model.files[f]
        var marks: [Mark] = []
        for k in markers {
            let m = model.markers[k]
            guard m.context == .value, let ref = m.ref, let scalar = m.scalar else { continue }
            marks.append(Mark(ref: ref, scalar: scalar, style: Setters.style(at: scalar.span.start.offset, in: facts.bytes), inFlow: nil,
                              object: m.object.map { Setters.identity(model.objects[$0]) } ?? .none))
        }
        self.init(path: facts.path, bytes: facts.bytes, marks: marks, unreadable: facts.fluxCannotRead)
    }

    init(path: String, bytes: [UInt8], marks: [Mark], unreadable: String?) {
        self.path = path
        self.bytes = bytes
        self.marks = marks
        self.unreadable = unreadable
    }
}

extension ObjectIdentity {
    static let none = ObjectIdentity(apiVersion: "", kind: "", namespace: "", name: "")
}

/// Flux's Setters update strategy (spec §4.2–§4.4): which files are read, which markers count, what each writes and
/// how it is quoted — applied as byte-span edits, so every byte outside a changed value stays as it was.
public enum Setters {
    /// The token a file must hold, quotes included, for Flux to read it at all.
    static let screenToken: StaticString = "\"$imagepolicy\""

    /// Whether Flux's reader takes `path` (relative to the clone) under `root` (an `update.path` as Flux joins it, ""
    /// for the whole repository): a `.yaml` or `.yml` file, or one named `Kustomization`.
    public static func selects(_ path: String, under root: String) -> Bool {
        guard Path.isBelow(path, root) else { return false }
        return Sources.isManifestName(path)
    }

    /// Applies `table` to the files under `root` (each path relative to the clone, bytes as read). `known` gives a
    /// file's markers already read (the Model's) when its bytes are those it read; other files are parsed here.
    /// `withheld` (`file:line` → why) are changes not to write: a value the linter rejects there.
    public static func run(_ files: [SourceFile], under root: String, table: SetterTable,
                           known: (@Sendable (SourceFile) -> MarkedFile?)? = nil, withheld: [String: String] = [:]) -> SetterRun {
        let screened = files.filter { selects($0.path, under: root) && SourceText.contains(screenToken, in: $0.bytes) }
        // (sorted by index: the files themselves were copied for every comparison)
        let chosen = screened.indices.sorted { SourceText.byteLess(screened[$0].path, screened[$1].path) }.map { screened[$0] }
        let results = concurrentChunks(chosen.count, chunkSize: 16) { range in
            var scratch = YAMLFile()
            return range.map { k -> FileResult in
                let marked = known?(chosen[k]) ?? MarkedFile(parsing: chosen[k], scratch: &scratch)
                return rewrite(marked, table: table, withheld: withheld, scratch: &scratch)
            }
        }
        var rewrites: [FileRewrite] = []
        var markers: [MarkerOutcome] = []
        var unreadable: [(String, String)] = []
        for r in results {
            if let w = r.rewrite { rewrites.append(w) }
            markers += r.markers
            if let why = r.unreadable { unreadable.append((r.path, why)) }
        }
        return SetterRun(rewrites: rewrites, markers: markers, unreadable: unreadable)
    }

    struct FileResult: Sendable {
        var path: String
        var rewrite: FileRewrite?
        var markers: [MarkerOutcome] = []
        var unreadable: String?
    }

    static func rewrite(_ file: MarkedFile, table: SetterTable, withheld: [String: String] = [:], scratch: inout YAMLFile) -> FileResult {
        var result = FileResult(path: file.path)
        result.unreadable = file.unreadable
        var edits: [(edit: Edit, change: SetterChange?, value: String)] = []
        var flow: [Int: Bool]?
        // an empty value, or one after a tag or an anchor: read the file back whatever is written
        var mustReadBack = false
        for m in file.marks {
            let at = m.scalar.span.start
            func outcome(_ status: MarkerOutcome.Status) {
                result.markers.append(MarkerOutcome(file: file.path, line: at.line, column: at.column, setter: m.ref.value, status: status))
            }
            if let readable = file.unreadable {
                outcome(.skipped("Flux cannot read the file (\(readable)) and skips it"))
                continue
            }
            guard let value = table.values[m.ref.value] else {
                outcome(.skipped(table.whyAbsent("\(m.ref.namespace):\(m.ref.name)") ?? "the repository has no ImagePolicy \(m.ref.namespace)/\(m.ref.name)"))
                continue
            }
            if m.style.isBlock {
                outcome(.skipped("the marked value is a block scalar (| or >), which tagwarden does not rewrite"))
                continue
            }
            // whether the value sits in a flow collection matters only for a value with `,[]{}`: then the file is parsed
            var inFlow = m.inFlow ?? false
            if m.inFlow == nil, value.utf8.contains(where: { [UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}")].contains($0) }) {
                if flow == nil {
                    let parsed = MarkedFile(parsing: SourceFile(path: file.path, bytes: file.bytes), scratch: &scratch)
                    flow = Dictionary(parsed.marks.map { ($0.scalar.span.start.offset, $0.inFlow ?? false) }, uniquingKeysWith: { a, _ in a })
                }
                inFlow = flow?[at.offset] ?? false
            }
            let written = encode(value, style: m.style, inFlow: inFlow)
            let span = m.scalar.span
            if m.scalar.value == value {
                outcome(.current)
                // as Flux, a value that YAML would read as no string is quoted — seen only when the file changes anyway
                if !file.bytes[span.start.offset..<span.end.offset].elementsEqual(written.utf8) {
                    edits.append((Edit(span: span, replacement: written), nil, value))
                }
                continue
            }
            if let why = withheld["\(file.path):\(at.line)"] {
                outcome(.skipped("not written: \(why)"))
                continue
            }
            outcome(.changed)
            let change = SetterChange(file: file.path, line: at.line, column: at.column, object: m.object, setter: m.ref.value,
                                      oldValue: m.scalar.value, newValue: value)
            let separated = Self.separated(written, at: span, in: file.bytes)
            edits.append((Edit(span: span, replacement: separated), change, value))
            if span.start.offset == span.end.offset || Self.hasProperty(file.bytes, before: span.start.offset) { mustReadBack = true }
        }
        // edits that would not read back are dropped, one at a time, and the rest made again
        while edits.contains(where: { $0.change != nil }) {
            let after: [UInt8]
            do {
                after = try Edit.apply(edits.map(\.edit), to: file.bytes)
            } catch {
                result.unreadable = error.description
                return result
            }
            // a value of image-reference characters written plain, or quoted, cannot change what is around it; anything
            // else is read back before it counts
            let plainSafe = !mustReadBack && edits.allSatisfy { e in e.edit.replacement.allSatisfy(Self.referenceByte) }
            if !plainSafe, let (bad, problem) = verify(after, edits: edits.map { ($0.edit, $0.value) }, scratch: &scratch) {
                let dropped = edits.remove(at: bad)
                if let c = dropped.change {
                    result.markers = result.markers.map { o in
                        o.line == c.line && o.column == c.column ? MarkerOutcome(file: o.file, line: o.line, column: o.column, setter: o.setter,
                                                                                 status: .skipped("not written: \(problem)")) : o
                    }
                }
                continue
            }
            result.rewrite = FileRewrite(path: file.path, before: file.bytes, after: after, changes: edits.compactMap(\.change))
            break
        }
        return result
    }

    /// `written` with a blank before it where it would otherwise join what stands before the value: an empty value
    /// (`image: # {…}`) has no bytes of its own, and a value may follow an anchor with no blank (`&a:b` is the anchor
    /// `a` and the value `:b`), where a new value would lengthen the anchor's name.
    static func separated(_ written: String, at span: SourceSpan, in bytes: [UInt8]) -> String {
        let before = span.start.offset > 0 ? bytes[span.start.offset - 1] : 10
        guard ![32, 9, 10, 13].contains(before) else { return written }
        return span.start.offset == span.end.offset || hasProperty(bytes, before: span.start.offset) ? " " + written : written
    }

    /// Whether the token before `offset` on its line is a node property: a tag (`!!float`) or an anchor (`&a`).
    static func hasProperty(_ bytes: [UInt8], before offset: Int) -> Bool {
        var k = offset
        while k > 0, bytes[k - 1] == 32 || bytes[k - 1] == 9 { k -= 1 }
        var start = k
        bytes.withUnsafeBufferPointer { b in
            while start > 0, b[start - 1] != 32, b[start - 1] != 9, !YAMLFile.startsLine(b, at: start) { start -= 1 }
        }
        // a byte order mark at a line's start is no part of the token (libyaml skips it)
        if start + 3 <= k, bytes[start] == 0xEF, bytes[start + 1] == 0xBB, bytes[start + 2] == 0xBF { start += 3 }
        return start < k && (bytes[start] == UInt8(ascii: "!") || bytes[start] == UInt8(ascii: "&"))
    }

    static func identity(_ o: ManifestObject) -> ObjectIdentity {
        ObjectIdentity(apiVersion: o.apiVersion, kind: o.kind, namespace: o.declaredNamespace ?? "", name: o.name ?? "")
    }

    /// A byte of image references, tags and digests: letters, digits and `.-_:/@+`, and the quotes `encode` puts around
    /// a value (escaping what is inside).
    static func referenceByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "@"), UInt8(ascii: "+"),
             UInt8(ascii: "\""), UInt8(ascii: "'"):
            true
        default: false
        }
    }

    /// The edited file read again: it parses, and each edited scalar reads back as the value written, a string.
    /// The first edit (its index in `edits`) whose value does not read back as that string, and why; nil when all do.
    /// When the file does not parse at all, the first edit is blamed.
    static func verify(_ bytes: [UInt8], edits: [(edit: Edit, value: String)], scratch y: inout YAMLFile) -> (Int, String)? {
        y.reparse(bytes)
        if let e = y.error { return (0, "the rewritten file would not parse (line \(e.position.line): \(e.message))") }
        var starts: [Int: Int] = [:]
        for (i, n) in y.nodes.enumerated() where n.kind == .scalar { starts[n.span.start.offset] = i }
        var shift = 0
        for k in edits.indices.sorted(by: { edits[$0].edit.range.lowerBound < edits[$1].edit.range.lowerBound }) {
            let (edit, value) = edits[k]
            // the value starts after the blank put before an empty one
            let offset = edit.range.lowerBound + shift + edit.replacement.prefix { $0 == 32 }.count
            shift += edit.replacement.count - edit.range.count
            guard let n = starts[offset], y.value(n) == value, y.resolvedType(n) == .string else {
                return (k, "the rewritten value '\(value)' would not read back as that string")
            }
        }
        return nil
    }

    // MARK: writing a value

    /// `value` written in a scalar of `style`: the style kept and the value escaped for it; a plain value that YAML 1.1
    /// reads as a number, a boolean or null double-quoted (kyaml's `FormatNonStringStyle`, as Flux does); a plain value
    /// that cannot be written plain quoted as go-yaml would (single quotes, double when single cannot hold it). Block
    /// scalars are not written (the caller skips them).
    static func encode(_ value: String, style: ScalarStyle, inFlow: Bool) -> String {
        let printable = value.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f || $0 == "\t" }
        switch style {
        case .doubleQuoted, .literal, .folded:
            return doubleQuoted(value)
        case .singleQuoted:
            return printable ? "'" + value.replacingOccurrences(of: "'", with: "''") + "'" : doubleQuoted(value)
        case .plain:
            // an empty value too: go-yaml writes a string that would read as null double-quoted
            if value.isEmpty || isYAML11NonString(value) { return doubleQuoted(value) }
            if printable, plainSafe(value, inFlow: inFlow) { return value }
            return printable ? "'" + value.replacingOccurrences(of: "'", with: "''") + "'" : doubleQuoted(value)
        }
    }

    /// How the scalar that starts at `offset` is written: its first byte shows it.
    static func style(at offset: Int, in bytes: [UInt8]) -> ScalarStyle {
        switch offset < bytes.count ? bytes[offset] : 0 {
        case UInt8(ascii: "\""): .doubleQuoted
        case UInt8(ascii: "'"): .singleQuoted
        case UInt8(ascii: "|"): .literal
        case UInt8(ascii: ">"): .folded
        default: .plain
        }
    }

    static func doubleQuoted(_ value: String) -> String {
        var out = "\""
        for u in value.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                if u.value < 0x20 || u.value == 0x7f {
                    out += "\\x" + hexDigits(u.value, width: 2, uppercase: true)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// kyaml's `IsValueNonString`: whether yaml.v2 reads `value`, written alone as a document, as anything but a
    /// string. Empty and multi-line values count as strings.
    package static func isYAML11NonString(_ value: String) -> Bool {
        // an ASCII value is searched by its bytes, which are its Characters but for CR LF (Swift's generic searches of
        // Characters cost 100,000 instructions a value, a third of an update's setters)
        let ascii = value.utf8.allSatisfy { $0 < 0x80 }
        if value.isEmpty || (ascii ? hasLoneLF(value) : value.contains("\n")) { return false }
        let trimmed = value.trimmingBlanks
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return true }   // null
        if let first = trimmed.unicodeScalars.first, "[{".unicodeScalars.contains(first) { return true }  // a collection
        if trimmed == "-" || trimmed.hasPrefix("- ") || trimmed.hasSuffix(":") || (ascii ? trimmed.containsBytes(": ") : trimmed.contains(": ")) {
            return true
        }
        if trimmed.hasPrefix("\"") || trimmed.hasPrefix("'") { return false }
        // a comment after the value leaves the value
        let comment = ascii ? byteOffset(of: " #", in: trimmed).map { trimmed.utf8.index(trimmed.startIndex, offsetBy: $0) }
                            : trimmed.firstRange(of: " #")?.lowerBound
        let plain = comment.map { String(trimmed[..<$0]).trimmingBlanks } ?? trimmed
        return ScalarType.resolvePlain(plain) != .string
    }

    /// Whether an ASCII string holds the Character LF: an LF byte that no CR comes right before.
    private static func hasLoneLF(_ s: String) -> Bool {
        var previous: UInt8 = 0
        for c in s.utf8 {
            if c == 10, previous != 13 { return true }
            previous = c
        }
        return false
    }

    /// Where `needle`'s bytes first occur in `s`'s.
    private static func byteOffset(of needle: StaticString, in s: String) -> Int? {
        var s = s
        return s.withUTF8 { hay in
            SourceText.find(UnsafeRawBufferPointer(hay), UnsafeRawBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount), from: 0)
        }
    }

    /// Whether `value` can be written as a plain scalar and read back as itself (YAML 1.2 and 1.1 types aside).
    static func plainSafe(_ value: String, inFlow: Bool) -> Bool {
        let s = Array(value.utf8)
        guard let first = s.first, let last = s.last else { return false }
        if first == 32 || first == 9 || last == 32 || last == 9 { return false }
        let indicators = Array("-?:,[]{}#&*!|>'\"%@`".utf8)
        if indicators.contains(first) {
            // `-`, `?` and `:` start a plain scalar when a non-blank follows
            guard [UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":")].contains(first), s.count > 1, s[1] != 32, s[1] != 9,
                  !(inFlow && Array(",[]{}".utf8).contains(s[1])) else { return false }
        }
        if last == UInt8(ascii: ":") { return false }
        for i in s.indices {
            if s[i] == UInt8(ascii: ":"), i + 1 < s.count, s[i + 1] == 32 || s[i + 1] == 9 { return false }
            if s[i] == UInt8(ascii: "#"), i > 0, s[i - 1] == 32 || s[i - 1] == 9 { return false }
            if inFlow, Array(",[]{}".utf8).contains(s[i]) { return false }
            if inFlow, s[i] == UInt8(ascii: ":"), i + 1 < s.count, Array(",[]{}".utf8).contains(s[i + 1]) { return false }
        }
        // `---` or `...` at a line start would end the document
        return !(value.hasPrefix("---") || value.hasPrefix("..."))
    }
}
