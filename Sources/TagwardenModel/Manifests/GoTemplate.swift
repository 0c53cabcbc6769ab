import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// A parser for Go's text/template syntax, enough to tell whether Flux can parse a commit message template:
/// actions, pipelines, variables, `if`/`else`/`range`/`with`/`define`/`block`/`template`/`end`,
/// `{{-`/`-}}` trimming, comments, and the functions Flux's hermetic Sprig map defines. It also collects the
/// field chains read from the root data, so rules can flag the fields current Flux removed.
public enum GoTemplate {
    /// The name Flux parses the template under (`template.New("commit message")`), which a `define` may reuse.
    static let name = "commit message"

    public struct ParseError: Error, Sendable, Equatable {
        public var message: String
        /// Byte offset in the template.
        public var offset: Int
        /// One of tagwarden's bounds refused it, not Go (`tree` only: Go parses it).
        public var isBound = false
    }

    /// How deep blocks (if, with, range, define) and parentheses may nest in a template tagwarden runs, a bound of its
    /// own (Go's parser allows 10,000 parentheses and any number of blocks); no real commit message nests more than a few.
    public static let maxNesting = 200
    /// How an error at one of tagwarden's bounds for running a template ends.
    public static let boundReached = "tagwarden's bound for a commit message"
    package static var nestingBound: String { "the template nests blocks or parentheses more than \(maxNesting) deep, \(boundReached)" }

    public struct Field: Sendable, Equatable {
        /// `Updated.Images` for `.Updated.Images` (or `$.Updated.Images`).
        public var path: [String]
        public var offset: Int
    }

    /// Go's text/template builtins and the Sprig functions of Flux's hermetic function map: Sprig 3.3's
    /// `HermeticTxtFuncMap`, which leaves out date, date_in_zone, date_modify, now, htmlDate, htmlDateInZone,
    /// dateInZone, dateModify, randAlphaNum, randAlpha, randAscii, randNumeric, randBytes, uuidv4, env, expandenv
    /// and getHostByName (checked name by name against Sprig's own map).
    public static let functions: Set<String> = [
        "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println", "urlquery",
        "eq", "ge", "gt", "le", "lt", "ne",
        "hello",
        // dates (the repeatable ones)
        "ago", "duration", "durationRound", "must_date_modify", "mustDateModify", "mustToDate", "toDate", "unixEpoch",
        // strings
        "abbrev", "abbrevboth", "trunc", "trim", "upper", "lower", "title", "untitle", "substr", "repeat", "trimall",
        "trimAll", "trimSuffix", "trimPrefix", "nospace", "initials", "randSeededNumeric", "swapcase", "shuffle",
        "snakecase", "camelcase", "kebabcase", "wrap", "wrapWith", "contains", "hasPrefix", "hasSuffix", "quote",
        "squote", "cat", "indent", "nindent", "replace", "plural", "sha1sum", "sha256sum", "adler32sum", "toString",
        "atoi", "int64", "int", "float64", "seq", "toDecimal", "split", "splitList", "splitn", "toStrings", "until",
        "untilStep",
        // numbers
        "add1", "add", "sub", "div", "mod", "mul", "randInt", "add1f", "addf", "subf", "divf", "mulf", "biggest", "max",
        "min", "maxf", "minf", "ceil", "floor", "round",
        // lists, defaults, reflection
        "join", "sortAlpha", "default", "empty", "coalesce", "all", "any", "compact", "mustCompact", "fromJson", "toJson",
        "toPrettyJson", "toRawJson", "mustFromJson", "mustToJson", "mustToPrettyJson", "mustToRawJson", "ternary",
        "deepCopy", "mustDeepCopy", "typeOf", "typeIs", "typeIsLike", "kindOf", "kindIs", "deepEqual",
        // paths and encodings
        "base", "dir", "clean", "ext", "isAbs", "osBase", "osClean", "osDir", "osExt", "osIsAbs", "b64enc", "b64dec",
        "b32enc", "b32dec",
        // data structures
        "tuple", "list", "dict", "get", "set", "unset", "hasKey", "pluck", "keys", "pick", "omit", "merge",
        "mergeOverwrite", "mustMerge", "mustMergeOverwrite", "values", "append", "push", "mustAppend", "mustPush",
        "prepend", "mustPrepend", "first", "mustFirst", "rest", "mustRest", "last", "mustLast", "initial", "mustInitial",
        "reverse", "mustReverse", "uniq", "mustUniq", "without", "mustWithout", "has", "mustHas", "mustSlice", "concat",
        "dig", "chunk", "mustChunk",
        // crypto, semver, flow control, regex, URLs
        "bcrypt", "htpasswd", "genPrivateKey", "derivePassword", "buildCustomCert", "genCA", "genCAWithKey",
        "genSelfSignedCert", "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey", "encryptAES",
        "decryptAES", "semver", "semverCompare", "fail", "regexMatch", "mustRegexMatch", "regexFindAll",
        "mustRegexFindAll", "regexFind", "mustRegexFind", "regexReplaceAll", "mustRegexReplaceAll",
        "regexReplaceAllLiteral", "mustRegexReplaceAllLiteral", "regexSplit", "mustRegexSplit", "regexQuoteMeta",
        "urlParse", "urlJoin",
    ]

    enum Token: Equatable {
        case field([String])          // .A.B (empty: the dot itself)
        case variable(String, [String])   // $x.A.B ($ for the root)
        case identifier(String)
        case string
        case number
        case bool
        case nilValue
        case leftParen, rightParen, pipe, declare, assign, comma
        case chainField([String])     // .A.B directly after ')'
    }

    /// Parses a template; returns the fields read from the root data, or the first error.
    public static func parse(_ template: String) -> Result<[Field], ParseError> {
        var p = TemplateParser(Array(template.utf8))
        do {
            try p.parseAll()
            return .success(p.fields)
        } catch let e as ParseError {
            return .failure(e)
        } catch {
            return .failure(ParseError(message: "\(error)", offset: 0))
        }
    }
}

struct TemplateParser {
    let b: [UInt8]
    var i = 0
    var fields: [GoTemplate.Field] = []
    /// Open blocks: keyword and whether dot is still the root data inside.
    var blocks: [(keyword: String, rootDot: Bool, sawElse: Bool, offset: Int)] = []
    var variables: [[String]] = [["$"]]
    /// The bodies of the open `define` and `block` actions, templates of their own: name, and whether anything but
    /// blanks and comments is in it (Go refuses a second non-empty definition of a name).
    var trees: [(name: String, nonEmpty: Bool)] = []
    var mainNonEmpty = false
    var defined: [String: Bool] = [:]
    /// For each left paren of the current action, the index of its right paren (else -1): found once, so that
    /// nesting costs linear time and memory, not a rescan and a copy per level.
    var closing: [Int] = []
    /// Go refuses parentheses nested deeper than this ("max expression depth exceeded").
    static let maxDepth = 10_000

    init(_ b: [UInt8]) { self.b = b }

    mutating func markNonEmpty() {
        if trees.isEmpty { mainNonEmpty = true } else { trees[trees.count - 1].nonEmpty = true }
    }

    /// Text between actions counts when it is more than blanks.
    mutating func text(_ from: Int, _ to: Int) {
        if from < to, b[from..<to].contains(where: { !isSpace($0) && $0 != 11 && $0 != 12 }) { markNonEmpty() }
    }

    /// The value of the quoted name at `at`: a raw string as written, an interpreted one with Go's escapes
    /// (`\n`, `\x41`, `\101`, `\u00e9` …) decoded.
    func quoted(_ at: Int) -> String {
        var k = at + 1, out: [UInt8] = []
        func hex(_ n: Int) -> UInt32? {
            guard k + n < b.count, let v = UInt32(String(decoding: b[(k + 1)...(k + n)], as: UTF8.self), radix: 16) else { return nil }
            k += n
            return v
        }
        while k < b.count, b[k] != b[at] {
            guard b[at] == UInt8(ascii: "\""), b[k] == UInt8(ascii: "\\"), k + 1 < b.count else {
                out.append(b[k])
                k += 1
                continue
            }
            k += 1
            let c = b[k]
            switch c {
            case UInt8(ascii: "a"): out.append(7)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "v"): out.append(11)
            case UInt8(ascii: "x"): if let v = hex(2) { out.append(UInt8(v)) }
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                if let v = hex(c == UInt8(ascii: "u") ? 4 : 8), let scalar = Unicode.Scalar(v) { out += Array(String(Character(scalar)).utf8) }
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                if k + 2 < b.count, let v = UInt8(String(decoding: b[k...(k + 2)], as: UTF8.self), radix: 8) {
                    out.append(v)
                    k += 2
                }
            default: out.append(c)
            }
            k += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    func fail(_ m: String, _ at: Int) -> GoTemplate.ParseError { GoTemplate.ParseError(message: m, offset: at) }

    var rootDot: Bool { blocks.last?.rootDot ?? true }

    mutating func parseAll() throws {
        while i < b.count {
            guard let open = find("{{", from: i) else { break }
            text(i, open)
            i = open + 2
            let actionStart = open
            if i < b.count, b[i] == UInt8(ascii: "-"), i + 1 < b.count, isSpace(b[i + 1]) { i += 1 }
            skipSpace()
            // comment: {{/* … */}}
            if starts("/*") {
                guard let close = find("*/", from: i + 2) else { throw fail("unclosed comment", actionStart) }
                i = close + 2
                skipSpace()
                if starts("-}}") { i += 3 } else if starts("}}") { i += 2 } else { throw fail("comment ends before closing delimiter", actionStart) }
                continue
            }
            let tokens = try lexAction(actionStart)
            try matchParens(tokens)
            try action(tokens[...], at: actionStart)
        }
        if let open = blocks.last { throw fail("unexpected EOF: {{\(open.keyword)}} has no {{end}}", open.offset) }
        text(i, b.count)
        if mainNonEmpty, defined[GoTemplate.name] == true {
            throw fail("template: multiple definition of template \"\(GoTemplate.name)\"", b.count)
        }
    }

    func find(_ s: String, from: Int) -> Int? {
        let n = Array(s.utf8)
        var k = from
        while k + n.count <= b.count {
            if b[k] == n[0], Array(b[k..<(k + n.count)]) == n { return k }
            k += 1
        }
        return nil
    }

    func starts(_ s: String) -> Bool {
        let n = Array(s.utf8)
        return i + n.count <= b.count && Array(b[i..<(i + n.count)]) == n
    }

    func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }
    func isIdent(_ c: UInt8) -> Bool { c == 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0x80 }

    mutating func skipSpace() { while i < b.count, isSpace(b[i]) { i += 1 } }

    /// Tokens of one action, up to and including its closing delimiter.
    mutating func lexAction(_ start: Int) throws -> [(GoTemplate.Token, Int)] {
        var out: [(GoTemplate.Token, Int)] = []
        while true {
            skipSpace()
            guard i < b.count else { throw fail("unclosed action", start) }
            let at = i
            if starts("-}}"), i > 0, isSpace(b[i - 1]) { i += 3; return out }
            if starts("}}") { i += 2; return out }
            let c = b[i]
            switch c {
            case UInt8(ascii: "("): i += 1; out.append((.leftParen, at))
            case UInt8(ascii: ")"):
                i += 1
                out.append((.rightParen, at))
                if i < b.count, b[i] == UInt8(ascii: ".") {
                    let chain = try fieldChain()
                    out.append((.chainField(chain), i))
                }
            case UInt8(ascii: "|"): i += 1; out.append((.pipe, at))
            case UInt8(ascii: ","): i += 1; out.append((.comma, at))
            case UInt8(ascii: ":"):
                guard i + 1 < b.count, b[i + 1] == UInt8(ascii: "=") else { throw fail("expected :=", at) }
                i += 2
                out.append((.declare, at))
            case UInt8(ascii: "="): i += 1; out.append((.assign, at))
            case UInt8(ascii: "\""):
                i += 1
                while i < b.count, b[i] != UInt8(ascii: "\"") {
                    if b[i] == UInt8(ascii: "\\") { i += 1 }
                    if i < b.count, b[i] == 10 { throw fail("unterminated quoted string", at) }
                    i += 1
                }
                guard i < b.count else { throw fail("unterminated quoted string", at) }
                i += 1
                out.append((.string, at))
            case UInt8(ascii: "`"):
                i += 1
                while i < b.count, b[i] != UInt8(ascii: "`") { i += 1 }
                guard i < b.count else { throw fail("unterminated raw quoted string", at) }
                i += 1
                out.append((.string, at))
            case UInt8(ascii: "'"):
                i += 1
                while i < b.count, b[i] != UInt8(ascii: "'") {
                    if b[i] == UInt8(ascii: "\\") { i += 1 }
                    i += 1
                }
                guard i < b.count else { throw fail("unterminated character constant", at) }
                i += 1
                out.append((.number, at))
            case UInt8(ascii: "."):
                if i + 1 < b.count, b[i + 1] >= 48, b[i + 1] <= 57 {
                    try number(at)
                    out.append((.number, at))
                } else {
                    out.append((.field(try fieldChain()), at))
                }
            case UInt8(ascii: "$"):
                i += 1
                var name = "$"
                while i < b.count, isIdent(b[i]) { name.append(Character(Unicode.Scalar(b[i]))); i += 1 }
                var chain: [String] = []
                if i < b.count, b[i] == UInt8(ascii: ".") { chain = try fieldChain() }
                out.append((.variable(name, chain), at))
            case UInt8(ascii: "-"), UInt8(ascii: "+"), 48...57:
                try number(at)
                out.append((.number, at))
            default:
                guard isIdent(c) else {
                    throw fail("unexpected \"\(String(decoding: [c], as: UTF8.self))\" in command", at)
                }
                var word = ""
                while i < b.count, isIdent(b[i]) { word.append(Character(Unicode.Scalar(b[i]))); i += 1 }
                switch word {
                case "true", "false": out.append((.bool, at))
                case "nil": out.append((.nilValue, at))
                default: out.append((.identifier(word), at))
                }
            }
        }
    }

    mutating func number(_ at: Int) throws {
        let s = i
        if b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
        while i < b.count, isIdent(b[i]) || b[i] == UInt8(ascii: ".") ||
              ((b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+")) && (b[i - 1] == UInt8(ascii: "e") || b[i - 1] == UInt8(ascii: "E") || b[i - 1] == UInt8(ascii: "p") || b[i - 1] == UInt8(ascii: "P"))) {
            i += 1
        }
        let text = String(decoding: b[s..<i], as: UTF8.self).replacingOccurrences(of: "_", with: "")
        var body = Substring(text)
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        let ok = !body.isEmpty && (Double(String(body)) != nil || Int(String(body.dropFirst(2)), radix: 16) != nil && body.lowercased().hasPrefix("0x")
            || Int(String(body.dropFirst(2)), radix: 8) != nil && body.lowercased().hasPrefix("0o")
            || Int(String(body.dropFirst(2)), radix: 2) != nil && body.lowercased().hasPrefix("0b"))
        if !ok { throw fail("bad number syntax: \"\(text)\"", at) }
    }

    /// `.A.B.C` from `i` (at a '.'); `.` alone is the empty chain.
    mutating func fieldChain() throws -> [String] {
        var chain: [String] = []
        while i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var name = ""
            while i < b.count, isIdent(b[i]) { name.append(Character(Unicode.Scalar(b[i]))); i += 1 }
            if name.isEmpty {
                if chain.isEmpty { return [] }
                throw fail("unexpected . after term", i - 1)
            }
            chain.append(name)
        }
        return chain
    }

    func declared(_ v: String) -> Bool { variables.contains { $0.contains(v) } }

    /// Pairs the parentheses of an action without recursion, and refuses nesting beyond Go's limit.
    mutating func matchParens(_ tokens: [(GoTemplate.Token, Int)]) throws {
        closing = Array(repeating: -1, count: tokens.count)
        var open: [Int] = []
        for (k, tok) in tokens.enumerated() {
            if tok.0 == .leftParen {
                if open.count >= TemplateParser.maxDepth { throw fail("max expression depth exceeded", tok.1) }
                open.append(k)
            } else if tok.0 == .rightParen, let l = open.popLast() {
                closing[l] = k
            }
        }
    }

    mutating func action(_ tokens: ArraySlice<(GoTemplate.Token, Int)>, at: Int) throws {
        guard let (first, _) = tokens.first else { throw fail("missing value for command", at) }
        if case .identifier(let kw) = first, kw == "define" || kw == "end" {} else { markNonEmpty() }
        if case .identifier(let kw) = first {
            let rest = tokens.dropFirst()
            switch kw {
            case "if", "with", "range":
                let bodyRoot = kw == "if" ? rootDot : false
                variables.append([])
                try pipeline(rest, at: at, allowDecl: true, context: kw)
                blocks.append((kw, bodyRoot, false, at))
                return
            case "else":
                guard let top = blocks.last, ["if", "with", "range"].contains(top.keyword) else {
                    throw fail("unexpected {{else}}", at)
                }
                if top.sawElse { throw fail("expected end; found {{else}}", at) }
                if rest.isEmpty {
                    blocks[blocks.count - 1].sawElse = true
                    blocks[blocks.count - 1].rootDot = blocks.count >= 2 ? blocks[blocks.count - 2].rootDot : true
                    return
                }
                guard case .identifier(let k2) = rest.first!.0, k2 == "if" || k2 == "with" else {
                    throw fail("unexpected tokens after {{else}}", at)
                }
                // Go chains only {{else if}} in an if and {{else with}} in a with
                guard k2 == top.keyword else { throw fail(k2 == "if" ? "unexpected <if> in input" : "unexpected <with> in else", at) }
                let outer = blocks.count >= 2 ? blocks[blocks.count - 2].rootDot : true
                blocks[blocks.count - 1].rootDot = k2 == "if" ? outer : false
                try pipeline(rest.dropFirst(), at: at, allowDecl: true, context: k2)
                return
            case "end":
                guard rest.isEmpty else { throw fail("unexpected tokens after {{end}}", at) }
                guard let closed = blocks.popLast() else { throw fail("unexpected {{end}}", at) }
                if variables.count > 1 { variables.removeLast() }
                if closed.keyword == "define" || closed.keyword == "block", let tree = trees.popLast() {
                    if tree.nonEmpty, defined[tree.name] == true {
                        throw fail("template: multiple definition of template \"\(tree.name)\"", at)
                    }
                    if defined[tree.name] != true { defined[tree.name] = tree.nonEmpty }
                }
                return
            case "define", "block", "template":
                // a definition stands only at the top level: inside anything else it is no keyword Go knows there
                if kw == "define", !blocks.isEmpty { throw fail("unexpected <define> in command", at) }
                guard let (t, nameAt) = rest.first, t == .string else { throw fail("expected a quoted name after \(kw)", at) }
                if kw == "define" {
                    guard rest.count == 1 else { throw fail("unexpected tokens in define clause", at) }
                    blocks.append(("define", false, false, at))
                    trees.append((quoted(nameAt), false))
                    variables.append([])
                    return
                }
                if rest.count > 1 { try pipeline(rest.dropFirst(), at: at, allowDecl: false, context: kw) }
                if kw == "block" {
                    blocks.append(("block", false, false, at))
                    trees.append((quoted(nameAt), false))
                    variables.append([])
                }
                return
            case "break", "continue":
                guard rest.isEmpty else { throw fail("unexpected tokens after {{\(kw)}}", at) }
                guard blocks.contains(where: { $0.keyword == "range" }) else { throw fail("{{\(kw)}} outside {{range}}", at) }
                return
            default:
                break
            }
        }
        try pipeline(tokens, at: at, allowDecl: true, context: "command")
    }

    typealias Tokens = ArraySlice<(GoTemplate.Token, Int)>

    /// A pipeline being read: its commands so far, and where the scan for the next `|` stands.
    struct PipelineFrame {
        var tokens: Tokens
        var at: Int
        var k: Int
        var start: Int
        var commands: [Tokens] = []
        var finished = false
    }

    /// A command being read: the operand it stands at.
    struct CommandFrame {
        var tokens: Tokens
        var at: Int
        var k: Int
    }

    enum Frame {
        case pipeline(PipelineFrame)
        case command(CommandFrame)
    }

    /// `[decl] command ('|' command)*`, where an operand may be a parenthesized pipeline. Read with a stack of
    /// frames rather than by recursion: Go allows 10,000 levels of parentheses, more than a thread's stack holds.
    /// The frames run in the order the recursion would (declarations are visible to what follows them).
    mutating func pipeline(_ tokens: Tokens, at: Int, allowDecl: Bool, context: String) throws {
        var stack: [Frame] = [.pipeline(try startPipeline(tokens, at: at, allowDecl: allowDecl, context: context))]
        while let top = stack.popLast() {
            switch top {
            case .pipeline(var p):
                if p.finished {
                    try checkStages(p.commands)
                    continue
                }
                var command: Tokens?
                scan: while p.k < p.tokens.endIndex {
                    switch p.tokens[p.k].0 {
                    case .leftParen:
                        // a parenthesized group is skipped whole: its pipes are its own
                        guard closing[p.k] >= 0, closing[p.k] < p.tokens.endIndex else { throw fail("unclosed left paren", p.at) }
                        p.k = closing[p.k] + 1
                    case .rightParen:
                        throw fail("unexpected right paren", p.tokens[p.k].1)
                    case .pipe:
                        command = p.tokens[p.start..<p.k]
                        p.start = p.k + 1
                        p.k += 1
                        break scan
                    default:
                        p.k += 1
                    }
                }
                if command == nil {
                    command = p.tokens[p.start..<p.tokens.endIndex]
                    p.finished = true
                }
                p.commands.append(command!)
                guard !command!.isEmpty else { throw fail("missing value for command", p.at) }
                stack.append(.pipeline(p))
                stack.append(.command(CommandFrame(tokens: command!, at: p.at, k: command!.startIndex)))
            case .command(var c):
                while c.k < c.tokens.endIndex {
                    let (tok, off) = c.tokens[c.k]
                    if tok == .leftParen {
                        let close = closing[c.k]
                        let inner = c.tokens[(c.k + 1)..<close]
                        c.k = close + 1
                        stack.append(.command(c))
                        stack.append(.pipeline(try startPipeline(inner, at: off, allowDecl: true, context: "parenthesized pipeline")))
                        break
                    }
                    try operand(tok, off)
                    c.k += 1
                }
            }
        }
    }

    /// The declarations that open a pipeline (`$x := …`, `$x, $y := …` in a range, `$x = …`), and the frame for
    /// the rest.
    mutating func startPipeline(_ tokens: Tokens, at: Int, allowDecl: Bool, context: String) throws -> PipelineFrame {
        var t = tokens
        if allowDecl, case .variable(let v, let chain)? = t.first?.0, chain.isEmpty {
            var k = t.startIndex + 1
            var names = [v]
            if k < t.endIndex, t[k].0 == .comma, k + 1 < t.endIndex, case .variable(let v2, let c2) = t[k + 1].0, c2.isEmpty {
                names.append(v2)
                k += 2
            }
            if k < t.endIndex, t[k].0 == .declare || t[k].0 == .assign {
                if names.count == 2, context != "range" { throw fail("too many declarations in \(context)", at) }
                if t[k].0 == .assign, !declared(v) { throw fail("undefined variable \"\(v)\"", at) }
                if t[k].0 == .declare {
                    if variables.isEmpty { variables.append([]) }
                    variables[variables.count - 1].append(contentsOf: names)
                }
                t = t[(k + 1)...]
            }
        }
        guard !t.isEmpty else { throw fail("missing value for \(context)", at) }
        return PipelineFrame(tokens: t, at: at, k: t.startIndex, start: t.startIndex)
    }

    /// As Go's checkPipeline: only the first command may start with a constant or the dot, which cannot take the
    /// piped value.
    func checkStages(_ commands: [Tokens]) throws {
        for (stage, cmd) in commands.enumerated().dropFirst() {
            switch cmd.first?.0 {
            case .string?, .number?, .bool?, .nilValue?, .field([])?:
                throw fail("non executable command in pipeline stage \(stage + 1)", cmd.first!.1)
            default:
                break
            }
        }
    }

    /// One operand of a command (not a parenthesized group).
    mutating func operand(_ tok: GoTemplate.Token, _ off: Int) throws {
        switch tok {
        case .identifier(let name):
            if !GoTemplate.functions.contains(name) { throw fail("function \"\(name)\" not defined", off) }
        case .variable(let v, let chain):
            if !declared(v) { throw fail("undefined variable \"\(v)\"", off) }
            if v == "$", !chain.isEmpty { fields.append(GoTemplate.Field(path: chain, offset: off)) }
        case .field(let chain):
            if rootDot, !chain.isEmpty { fields.append(GoTemplate.Field(path: chain, offset: off)) }
        case .declare, .assign, .comma:
            throw fail("unexpected \(tok == .comma ? "\",\"" : "\":=\"") in operand", off)
        case .rightParen, .pipe:
            throw fail("unexpected \(tok == .pipe ? "\"|\"" : "\")\"") in operand", off)
        default:
            break
        }
    }
}
