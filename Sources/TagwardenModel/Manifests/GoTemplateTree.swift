/// A parsed Go text/template, for running it (`tagwarden update` renders Flux's commit messages). Built only from a
/// template `GoTemplate.parse` accepts, so the validation stays in one place; this adds the tree.
extension GoTemplate {
    /// A template's nodes, in order.
    public indirect enum Node: Sendable {
        case text(String)
        /// `{{pipeline}}`: its value is printed, unless it declares or assigns variables.
        case action(Pipeline)
        /// `if`, `with` and `range`: the pipeline, the body, and the `else` part (an `else if`/`else with` is a
        /// nested node there).
        case branch(keyword: String, Pipeline, [Node], [Node])
        /// `{{template "name" pipeline}}` (a `block` is a `define` plus this).
        case template(name: String, Pipeline?, offset: Int)
        case breakLoop, continueLoop
    }

    /// `[$x :=|= | $i, $v :=] command | command …`
    public struct Pipeline: Sendable {
        public var variables: [String] = []
        /// `=` rather than `:=`.
        public var assigns = false
        public var commands: [[Operand]] = []
        /// Where each operand of each command starts in the template, for error messages.
        public var positions: [[Int]] = []
        /// Where the action starts in the template.
        public var offset: Int
    }

    public indirect enum Operand: Sendable {
        /// `.A.B` (empty: the dot itself)
        case field([String])
        /// `$x.A.B` (`$` for the root)
        case variable(String, [String])
        /// A function name
        case function(String)
        case string(String)
        /// A number constant, and how it is written.
        case int(Int, String)
        case float(Double, String)
        case bool(Bool)
        case null
        /// `(pipeline).A.B`
        case group(Pipeline, [String])
    }

    /// The main template and the definitions, by name.
    public struct Tree: Sendable {
        public var main: [Node]
        public var definitions: [String: [Node]]
        /// The template's text, for line and column in messages.
        public var source: [UInt8]

        /// `line:column` of a byte offset, as Go gives them (1-based line, 0-based byte column… Go counts the column in
        /// bytes from 0 on the first line and from the newline elsewhere).
        public func position(_ offset: Int) -> String {
            var line = 1, lineStart = 0
            for k in 0..<min(offset, source.count) where source[k] == 10 { line += 1; lineStart = k + 1 }
            return "\(line):\(offset - lineStart)"
        }
    }

    /// The tree of a template Go parses; the parse error otherwise.
    public static func tree(_ template: String) -> Result<Tree, ParseError> {
        if case .failure(let e) = parse(template) { return .failure(e) }
        var builder = TreeBuilder(TemplateParser(Array(template.utf8)))
        do {
            return .success(try builder.build())
        } catch let e as ParseError {
            return .failure(e)
        } catch {
            return .failure(ParseError(message: "\(error)", offset: 0))
        }
    }
}

/// Builds the tree with the validating parser's lexer. The template is known to parse.
struct TreeBuilder {
    var p: TemplateParser
    /// Open blocks: keyword, pipeline, body, else part, whether in the else part, and how many `else if`s were chained
    /// into it (each closes with the same `end`).
    struct Open {
        var keyword: String
        var pipeline: GoTemplate.Pipeline?
        var name = ""
        var body: [GoTemplate.Node] = []
        var elseBody: [GoTemplate.Node] = []
        var inElse = false
    }
    var stack: [Open] = []
    var main: [GoTemplate.Node] = []
    var definitions: [String: [GoTemplate.Node]] = [:]

    init(_ p: TemplateParser) { self.p = p }

    /// Opens a block, within tagwarden's bound for nesting: the tree of a template nested thousands deep would
    /// exhaust the stack when it is run, and again when it is freed.
    mutating func open(_ block: Open, at: Int) throws {
        guard stack.count < GoTemplate.maxNesting else { throw GoTemplate.ParseError(message: GoTemplate.nestingBound, offset: at, isBound: true) }
        stack.append(block)
    }

    mutating func append(_ node: GoTemplate.Node) {
        guard !stack.isEmpty else { main.append(node); return }
        if stack[stack.count - 1].inElse { stack[stack.count - 1].elseBody.append(node) } else { stack[stack.count - 1].body.append(node) }
    }

    mutating func build() throws -> GoTemplate.Tree {
        let b = p.b
        var pendingText: (Int, Int)?
        var trimNext = false
        func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }
        func flush(_ trimRight: Bool) {
            guard let (from, end) = pendingText else { return }
            var to = end
            pendingText = nil
            if trimRight { while to > from, isSpace(b[to - 1]) { to -= 1 } }
            if from < to { append(.text(String(decoding: b[from..<to], as: UTF8.self))) }
        }
        while p.i < b.count {
            var textStart = p.i
            if trimNext { while textStart < b.count, isSpace(b[textStart]) { textStart += 1 } }
            guard let open = p.find("{{", from: p.i) else {
                pendingText = (min(textStart, b.count), b.count)
                p.i = b.count
                break
            }
            pendingText = (min(textStart, open), open)
            p.i = open + 2
            let trimLeft = p.i + 1 < b.count && b[p.i] == UInt8(ascii: "-") && isSpace(b[p.i + 1])
            if trimLeft { p.i += 1 }
            flush(trimLeft)
            p.skipSpace()
            if p.starts("/*") {
                let close = p.find("*/", from: p.i + 2)!
                p.i = close + 2
                p.skipSpace()
                trimNext = p.starts("-}}")
                p.i += trimNext ? 3 : 2
                continue
            }
            let tokens = try p.lexAction(open)
            trimNext = p.i >= 4 && b[p.i - 3] == UInt8(ascii: "-") && isSpace(b[p.i - 4])
            try action(tokens[...], at: open)
        }
        flush(false)
        return GoTemplate.Tree(main: main, definitions: definitions, source: b)
    }

    typealias Tokens = ArraySlice<(GoTemplate.Token, Int)>

    /// Nodes that are text of blanks only.
    static func blank(_ nodes: [GoTemplate.Node]) -> Bool {
        nodes.allSatisfy { node in
            if case .text(let t) = node { return t.utf8.allSatisfy { [32, 9, 10, 13].contains($0) } }
            return false
        }
    }

    mutating func action(_ tokens: Tokens, at: Int) throws {
        if case .identifier(let kw)? = tokens.first?.0 {
            let rest = tokens.dropFirst()
            switch kw {
            case "if", "with", "range":
                try open(Open(keyword: kw, pipeline: try pipeline(rest, at: at)), at: at)
                return
            case "else":
                if rest.isEmpty {
                    stack[stack.count - 1].inElse = true
                } else {
                    // `else if`/`else with`: a nested block in the else part, closed by the same end
                    stack[stack.count - 1].inElse = true
                    guard case .identifier(let k2) = rest.first!.0 else { return }
                    var nested = Open(keyword: k2, pipeline: try pipeline(rest.dropFirst(), at: at))
                    nested.name = "chained"
                    try open(nested, at: at)
                }
                return
            case "end":
                while true {
                    let closed = stack.removeLast()
                    switch closed.keyword {
                    // a definition of blanks only does not replace another (Go's IsEmptyTree)
                    case "define":
                        if definitions[closed.name] == nil || !Self.blank(closed.body) { definitions[closed.name] = closed.body }
                    case "block":
                        if definitions[closed.name] == nil || !Self.blank(closed.body) { definitions[closed.name] = closed.body }
                        append(.template(name: closed.name, closed.pipeline, offset: at))
                    default:
                        append(.branch(keyword: closed.keyword, closed.pipeline!, closed.body, closed.elseBody))
                    }
                    if closed.name != "chained" { break }
                }
                return
            case "define", "block", "template":
                let name = p.quoted(rest.first!.1)
                let pipe = rest.count > 1 ? try pipeline(rest.dropFirst(), at: at) : nil
                switch kw {
                case "template": append(.template(name: name, pipe, offset: at))
                default:
                    var block = Open(keyword: kw, pipeline: pipe)
                    block.name = name
                    try open(block, at: at)
                }
                return
            case "break": append(.breakLoop); return
            case "continue": append(.continueLoop); return
            default: break
            }
        }
        append(.action(try pipeline(tokens, at: at)))
    }

    /// `depth`: the parentheses around it.
    func pipeline(_ tokens: Tokens, at: Int, depth: Int = 0) throws -> GoTemplate.Pipeline {
        guard stack.count + depth <= GoTemplate.maxNesting else {
            throw GoTemplate.ParseError(message: GoTemplate.nestingBound, offset: at, isBound: true)
        }
        var result = GoTemplate.Pipeline(offset: at)
        var t = tokens
        if case .variable(let v, let chain)? = t.first?.0, chain.isEmpty {
            var k = t.startIndex + 1
            var names = [v]
            if k < t.endIndex, t[k].0 == .comma, k + 1 < t.endIndex, case .variable(let v2, _) = t[k + 1].0 {
                names.append(v2)
                k += 2
            }
            if k < t.endIndex, t[k].0 == .declare || t[k].0 == .assign {
                result.variables = names
                result.assigns = t[k].0 == .assign
                t = t[(k + 1)...]
            }
        }
        // commands split at the pipes outside parentheses

        var command: [GoTemplate.Operand] = []
        var positions: [Int] = []
        var k = t.startIndex
        while k < t.endIndex {
            let (tok, off) = t[k]
            switch tok {
            case .pipe:
                result.commands.append(command)
                result.positions.append(positions)
                command = []
                positions = []
            case .leftParen:
                // the group runs to its matching paren
                var level = 0, end = k
                for j in k..<t.endIndex {
                    if t[j].0 == .leftParen { level += 1 }
                    if t[j].0 == .rightParen { level -= 1; if level == 0 { end = j; break } }
                }
                let inner = try pipeline(t[(k + 1)..<end], at: off, depth: depth + 1)
                var chain: [String] = []
                if end + 1 < t.endIndex, case .chainField(let c) = t[end + 1].0 { chain = c; k = end + 1 } else { k = end }
                command.append(.group(inner, chain))
                positions.append(off)
            default:
                command.append(operand(tok, off))
                positions.append(off)
            }
            k += 1
        }
        result.commands.append(command)
        result.positions.append(positions)
        return result
    }

    func operand(_ tok: GoTemplate.Token, _ off: Int) -> GoTemplate.Operand {
        switch tok {
        case .field(let chain): return .field(chain)
        case .variable(let v, let chain): return .variable(v, chain)
        case .identifier(let name): return .function(name)
        case .string: return .string(p.quoted(off))
        case .bool: return .bool(p.b[off] == UInt8(ascii: "t"))
        case .nilValue: return .null
        case .number: return number(at: off)
        default: return .null
        }
    }

    /// A number constant as Go reads it: a character constant, an integer (decimal, 0x, 0o, 0b, leading-0 octal, `_`
    /// separators), else a float.
    func number(at off: Int) -> GoTemplate.Operand {
        let b = p.b
        if b[off] == UInt8(ascii: "'") {
            let body = p.quoted(off)   // the same escapes as a string
            var end = off + 1
            while end < b.count, b[end] != UInt8(ascii: "'") { end += b[end] == UInt8(ascii: "\\") ? 2 : 1 }
            return .int(Int(body.unicodeScalars.first?.value ?? 0), String(decoding: b[off..<min(end + 1, b.count)], as: UTF8.self))
        }
        var end = off
        if b[end] == UInt8(ascii: "-") || b[end] == UInt8(ascii: "+") { end += 1 }
        while end < b.count, p.isIdent(b[end]) || b[end] == UInt8(ascii: ".") ||
              ((b[end] == UInt8(ascii: "-") || b[end] == UInt8(ascii: "+")) && "eEpP".utf8.contains(b[end - 1])) {
            end += 1
        }
        let written = String(decoding: b[off..<end], as: UTF8.self)
        var text = written.replacingOccurrences(of: "_", with: "")
        var negative = false
        if text.hasPrefix("-") { negative = true; text.removeFirst() } else if text.hasPrefix("+") { text.removeFirst() }
        let lower = text.lowercased()
        var value: Int?
        if lower.hasPrefix("0x") { value = Int(text.dropFirst(2), radix: 16) }
        else if lower.hasPrefix("0o") { value = Int(text.dropFirst(2), radix: 8) }
        else if lower.hasPrefix("0b") { value = Int(text.dropFirst(2), radix: 2) }
        else if text.count > 1, text.hasPrefix("0"), text.allSatisfy(\.isNumber) { value = Int(text.dropFirst(), radix: 8) }
        else { value = Int(text) }
        if let value { return .int(negative ? -value : value, written) }
        return .float((negative ? -1 : 1) * (Double(text) ?? 0), written)
    }
}
