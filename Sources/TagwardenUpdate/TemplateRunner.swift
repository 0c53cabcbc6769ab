import TagwardenBasics
import TagwardenModel

/// A value a Go template works on: what Go's reflection would see in Flux's template data.
public indirect enum TemplateValue: Sendable, Equatable {
    /// A map's missing key (Go's invalid value, printed `<no value>`).
    case missing
    case null
    case string(String)
    case int(Int)
    case float(Double)
    case bool(Bool)
    /// A slice, and its Go type as error messages name it.
    case list([TemplateValue], type: String = "[]interface {}")
    /// A map, its entries in Go's sorted key order, and its Go type.
    case map([MapEntry], type: String = "map[string]interface {}")
    case structure(TemplateStruct)

    public struct MapEntry: Sendable, Equatable {
        public let key: TemplateValue
        public let value: TemplateValue
        public init(_ key: TemplateValue, _ value: TemplateValue) {
            self.key = key
            self.value = value
        }
    }

    /// A string-keyed map, sorted as Go sorts it.
    public static func stringMap(_ m: [String: TemplateValue], type: String = "map[string]interface {}") -> TemplateValue {
        .map(m.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { MapEntry(.string($0), m[$0]!) }, type: type)
    }
}

/// A Go struct: its type's name (as Go's errors print it), its fields in declaration order (embedded structs' fields
/// are promoted), methods taking no argument, and its `String()` when it has one.
public struct TemplateStruct: Sendable, Equatable {
    public let type: String
    public let fields: [(String, TemplateValue)]
    public let methods: [String: TemplateValue]
    public let stringer: String?
    /// Embedded structs, printed as nested braces by fmt, their fields reachable from here.
    public let embedded: [TemplateStruct]

    public init(type: String, fields: [(String, TemplateValue)] = [], methods: [String: TemplateValue] = [:],
                stringer: String? = nil, embedded: [TemplateStruct] = []) {
        self.type = type
        self.fields = fields
        self.methods = methods
        self.stringer = stringer
        self.embedded = embedded
    }

    public static func == (a: TemplateStruct, b: TemplateStruct) -> Bool {
        a.type == b.type && a.fields.map(\.0) == b.fields.map(\.0) && a.fields.map(\.1) == b.fields.map(\.1)
            && a.embedded == b.embedded && a.methods == b.methods && a.stringer == b.stringer
    }

    func member(_ name: String) -> TemplateValue? {
        if let f = fields.first(where: { $0.0 == name }) { return f.1 }
        if let m = methods[name] { return m }
        for e in embedded { if let v = e.member(name) { return v } }
        return nil
    }
}

/// Runs a parsed Go text/template as Go's `text/template` does, with Go's builtins and the Sprig functions commit
/// messages use. Errors read as Go's: `template: NAME:LINE:COL: executing "NAME" at <…>: …`.
public struct TemplateRunner {
    let tree: GoTemplate.Tree
    let name: String
    var output = ""
    var scopes: [[(String, TemplateValue)]] = []
    var depth = 0
    /// Blocks and parentheses open around what runs now (`{{template}}` calls add theirs), within `GoTemplate.maxNesting`:
    /// each is a level of recursion here.
    var nesting = 0
    /// Nodes run so far, within `maxSteps`: a message template is repository content, run on every run with changes.
    var steps = 0
    /// Tagwarden's bounds (Go has none): the steps a template may take, and the size of what it writes.
    public static let maxSteps = 1_000_000
    public static var maxOutput: Int { TemplateFunctions.maxBytes }
    /// How an error at one of these bounds ends (it is `isBound`: it holds whatever Flux runs).
    public static var boundReached: String { GoTemplate.boundReached }

    enum Flow: Error { case breakLoop, continueLoop }

    public static func render(_ tree: GoTemplate.Tree, name: String = "commit message", data: TemplateValue) throws -> String {
        var r = TemplateRunner(tree: tree, name: name)
        r.scopes = [[("$", data)]]
        try r.run(tree.main, dot: data)
        return r.output
    }

    func fail(_ offset: Int, _ at: String, _ message: String, bound: Bool = false) -> TagwardenError {
        var e = TagwardenError("template: \(name):\(tree.position(offset)): executing \"\(name)\" at <\(at)>: \(message)")
        e.isBound = bound
        return e
    }

    /// Counts one step; past the bound, the run stops with an error at `offset`.
    mutating func step(_ offset: Int, _ at: String) throws {
        steps += 1
        guard steps <= Self.maxSteps else {
            throw fail(offset, at, "the template ran more than \(Self.maxSteps) steps, \(Self.boundReached)", bound: true)
        }
    }

    /// Runs `body` one level deeper; past the bound, the run stops with an error at `offset` (a template nested
    /// thousands deep would otherwise exhaust the stack).
    mutating func nested<T>(_ offset: Int, _ at: String, _ body: (inout TemplateRunner) throws -> T) throws -> T {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= GoTemplate.maxNesting else {
            throw fail(offset, at, GoTemplate.nestingBound, bound: true)
        }
        return try body(&self)
    }

    /// Writes `s`; past the bound, the run stops with an error.
    mutating func write(_ s: String, _ offset: Int, _ at: String) throws {
        output += s
        guard output.utf8.count <= Self.maxOutput else {
            throw fail(offset, at, "the message is longer than \(ByteCount.formatSize(Self.maxOutput)), \(Self.boundReached)", bound: true)
        }
    }

    mutating func run(_ nodes: [GoTemplate.Node], dot: TemplateValue) throws {
        for node in nodes {
            switch node {
            case .text(let s):
                try write(s, 0, "text")
            case .action(let p):
                try step(p.offset, "action")
                let v = try pipeline(p, dot: dot)
                if p.variables.isEmpty { try write(TemplateFormat.printed(v), p.offset, "action") }
            case .branch(let keyword, let p, let body, let elseBody):
                scopes.append([])
                defer { scopes.removeLast() }
                try nested(p.offset, keyword) { r in
                    switch keyword {
                    case "if":
                        try r.run(TemplateFunctions.truth(try r.pipeline(p, dot: dot, declareOnly: true)) ? body : elseBody, dot: dot)
                    case "with":
                        let v = try r.pipeline(p, dot: dot, declareOnly: true)
                        if TemplateFunctions.truth(v) { try r.run(body, dot: v) } else { try r.run(elseBody, dot: dot) }
                    default:
                        try r.range(p, body: body, elseBody: elseBody, dot: dot)
                    }
                }
            case .template(let n, let p, let offset):
                guard let body = tree.definitions[n] else { throw fail(offset, "{{template \"\(n)\"}}", "template \"\(n)\" not defined") }
                // without data, the template's dot is Go's invalid value
                let v = try p.map { try pipeline($0, dot: dot) } ?? .missing
                depth += 1
                defer { depth -= 1 }
                guard depth < 1000 else { throw fail(offset, "{{template \"\(n)\"}}", "exceeded maximum template depth (100000)") }
                let saved = scopes
                scopes = [[("$", v)]]
                defer { scopes = saved }
                try run(body, dot: v)
            case .breakLoop: throw Flow.breakLoop
            case .continueLoop: throw Flow.continueLoop
            }
        }
    }

    mutating func range(_ p: GoTemplate.Pipeline, body: [GoTemplate.Node], elseBody: [GoTemplate.Node], dot: TemplateValue) throws {
        var decl = p
        decl.variables = []
        let v = try pipeline(decl, dot: dot)
        let count: Int
        switch v {
        case .list(let l, _): count = l.count
        case .map(let m, _): count = m.count
        case .int(let n): count = max(0, n)
        case .null, .missing: count = 0
        default: throw fail(p.offset, "range", "range can't iterate over \(TemplateFormat.plain(v))")
        }
        if count == 0 { try run(elseBody, dot: dot); return }
        // the items one at a time: `range 100000000` makes no list
        func item(_ i: Int) -> (TemplateValue, TemplateValue) {
            switch v {
            case .list(let l, _): return (.int(i), l[i])
            case .map(let m, _): return (m[i].key, m[i].value)
            default: return (.int(i), .int(i))
            }
        }
        for i in 0..<count {
            try step(p.offset, "range")
            let (k, element) = item(i)
            scopes.append([])
            defer { scopes.removeLast() }
            if p.variables.count == 1 { scopes[scopes.count - 1].append((p.variables[0], element)) }
            if p.variables.count == 2 {
                scopes[scopes.count - 1].append((p.variables[0], k))
                scopes[scopes.count - 1].append((p.variables[1], element))
            }
            do { try run(body, dot: element) } catch Flow.breakLoop { break } catch Flow.continueLoop { continue }
        }
    }

    func lookup(_ name: String) -> TemplateValue? {
        for scope in scopes.reversed() { if let v = scope.last(where: { $0.0 == name }) { return v.1 } }
        return nil
    }

    mutating func assign(_ name: String, _ value: TemplateValue) {
        for s in scopes.indices.reversed() {
            if let k = scopes[s].lastIndex(where: { $0.0 == name }) { scopes[s][k].1 = value; return }
        }
    }

    /// A pipeline's value; its declarations made (`declareOnly`: an if/with/range's, in its own scope).
    mutating func pipeline(_ p: GoTemplate.Pipeline, dot: TemplateValue, declareOnly: Bool = false) throws -> TemplateValue {
        var value: TemplateValue?
        for (k, command) in p.commands.enumerated() {
            let positions = k < p.positions.count ? p.positions[k] : []
            value = try self.command(command, positions: positions, dot: dot, piped: value, offset: positions.first ?? p.offset)
        }
        let result = value ?? .null
        for v in p.variables {
            if p.assigns { assign(v, result) } else { scopes[scopes.count - 1].append((v, result)) }
        }
        return result
    }

    /// A command's text as Go prints it in messages.
    static func text(_ operands: [GoTemplate.Operand]) -> String { operands.map(TemplateFormat.describe).joined(separator: " ") }

    mutating func command(_ operands: [GoTemplate.Operand], positions: [Int], dot: TemplateValue, piped: TemplateValue?,
                          offset: Int) throws -> TemplateValue {
        guard let first = operands.first else { return .null }
        func position(_ k: Int) -> Int { k < positions.count ? positions[k] : offset }
        if case .function(let f) = first {
            let written = Self.text(operands)
            // `and` and `or` stop at the first argument that decides
            if f == "and" || f == "or" {
                var args = operands.indices.dropFirst().map { (operands[$0], position($0), TemplateValue?.none) }
                if let piped { args.append((.null, offset, piped)) }
                guard !args.isEmpty else { throw fail(offset, written, "wrong number of args for \(f): want at least 1 got 0") }
                var last = TemplateValue.null
                for (operand, at, given) in args {
                    last = try given ?? evaluate(operand, dot: dot, offset: at)
                    if TemplateFunctions.truth(last) == (f == "or") { return last }
                }
                return last
            }
            guard let signature = TemplateFunctions.signatures[f] else {
                throw fail(offset, written, "error calling \(f): \(f) is not supported by tagwarden's template runner")
            }
            // arguments as Go passes them: counted, then each evaluated and checked against its parameter's type in turn
            let count = operands.count - 1 + (piped == nil ? 0 : 1)
            let variadic = signature.last == .variadic
            let fixed = variadic ? signature.count - 1 : signature.count
            if variadic ? count < fixed : count != fixed {
                throw fail(offset, written, "wrong number of args for \(f): want \(variadic ? "at least " : "")\(fixed) got \(count)")
            }
            var args: [TemplateValue] = []
            for k in operands.indices.dropFirst() {
                let value = try evaluate(operands[k], dot: dot, offset: position(k))
                args.append(try convert(value, to: args.count < fixed ? signature[args.count] : .any, operand: operands[k], at: position(k)))
            }
            if let piped { args.append(try convert(piped, to: args.count < fixed ? signature[args.count] : .any, operand: nil, at: offset)) }
            do {
                return try TemplateFunctions.call(f, args)
            } catch let e as TemplateFunctions.Failure {
                throw fail(offset, written, "error calling \(f): \(e.message)", bound: e.bound)
            }
        }
        if operands.count > 1 || piped != nil {
            // a field chain with arguments (a method call) or a constant given a piped value
            if case .field(let chain) = first, !chain.isEmpty {
                throw fail(offset, TemplateFormat.describe(first), "\(chain.last!) has arguments but cannot be invoked as function")
            }
            throw fail(offset, TemplateFormat.describe(first), "can't give argument to non-function \(TemplateFormat.describe(first))")
        }
        return try evaluate(first, dot: dot, offset: offset)
    }

    /// A value passed for a parameter of `type`, as Go's reflection call checks it.
    func convert(_ v: TemplateValue, to type: TemplateFunctions.Param, operand: GoTemplate.Operand?, at: Int) throws -> TemplateValue {
        let written = operand.map(TemplateFormat.describe) ?? ""
        let constant: Bool = {
            switch operand {
            case .string?, .int?, .float?, .bool?, .null?: return true
            default: return false
            }
        }()
        switch type {
        case .any, .variadic:
            return v == .missing ? .null : v
        case .string:
            if case .string = v { return v }
            if case .null? = operand { throw fail(at, written, "cannot assign nil to string") }
            if constant { throw fail(at, written, "expected string; found \(written)") }
            if v == .missing { throw fail(at, written, "invalid value; expected string") }
            throw fail(at, written, "wrong type for value; expected string; got \(TemplateFormat.typeName(v))")
        case .int:
            if case .int = v { return v }
            if case .null? = operand { throw fail(at, written, "cannot assign nil to int") }
            if constant { throw fail(at, written, "expected integer; found \(written)") }
            if v == .missing { throw fail(at, written, "invalid value; expected int") }
            throw fail(at, written, "wrong type for value; expected int; got \(TemplateFormat.typeName(v))")
        }
    }

    mutating func evaluate(_ operand: GoTemplate.Operand, dot: TemplateValue, offset: Int) throws -> TemplateValue {
        switch operand {
        case .field(let chain): return try walk(dot, chain, offset: offset, written: "." + chain.joined(separator: "."))
        case .variable(let v, let chain):
            guard let base = lookup(v) else { throw fail(offset, v, "undefined variable: \(v)") }
            return try walk(base, chain, offset: offset, written: v + chain.map { "." + $0 }.joined())
        case .function:
            return try command([operand], positions: [offset], dot: dot, piped: nil, offset: offset)
        case .string(let s): return .string(s)
        case .int(let n, _): return .int(n)
        case .float(let x, _): return .float(x)
        case .bool(let b): return .bool(b)
        case .null: return .null
        case .group(let p, let chain):
            let v = try nested(offset, "(") { try $0.pipeline(p, dot: dot) }
            return try walk(v, chain, offset: offset, written: TemplateFormat.describe(operand))
        }
    }

    func walk(_ base: TemplateValue, _ chain: [String], offset: Int, written: String) throws -> TemplateValue {
        var v = base
        for name in chain {
            switch v {
            case .structure(let s):
                guard let member = s.member(name) else {
                    throw fail(offset, written, "can't evaluate field \(name) in type \(s.type)")
                }
                v = member
            case .map(let entries, let type):
                // a field of a map is a key, for maps with string keys only
                guard type.hasPrefix("map[string]") else { throw fail(offset, written, "can't evaluate field \(name) in type \(type)") }
                v = entries.first { $0.key == .string(name) }?.value ?? .missing
            case .missing:
                // a missing map key is Go's invalid Value, and a field of it is invalid too, without an error
                continue
            case .null:
                throw fail(offset, written, "nil pointer evaluating interface {}.\(name)")
            default:
                throw fail(offset, written, "can't evaluate field \(name) in type \(TemplateFormat.typeName(v))")
            }
        }
        return v
    }
}
