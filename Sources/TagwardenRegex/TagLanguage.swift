/// Regular languages of container image tags, and the decision whether two of them meet.
///
/// A tag is `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`. Flux matches a policy's pattern anywhere in the tag
/// (unanchored), so the tags a pattern can select are the tags that *contain* a match. Each language is a
/// deterministic automaton built on the fly (subset construction over the pattern's NFA); two languages meet
/// when their product reaches a state both accept. Breadth-first search in byte order yields the shortest
/// witness, smallest first.
public enum TagLanguage: Sendable {
    /// Tags containing a match of the pattern (Go semantics: unanchored, leftmost-first irrelevant here).
    case matching(GoRegex)
    /// Tags starting with a literal prefix.
    case prefix(String)
    /// Every valid tag.
    case any

    public static let maxLength = 128
    /// The tag alphabet in byte order.
    static let symbols: [UInt8] = Array("-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    /// The shortest tag (smallest in byte order among the shortest) in both languages, or nil when they do not meet.
    public static func witness(_ a: TagLanguage, _ b: TagLanguage) -> String? {
        witness([a, b])
    }

    /// The shortest string in every language, smallest first in byte order. With `tagGrammar` it must be a
    /// valid tag (non-empty, first character not `.` or `-`); without, it may be empty (an extracted key).
    public static func witness(_ languages: [TagLanguage], tagGrammar: Bool = true) -> String? {
        var autos = languages.map(Automaton.init)
        struct Key: Hashable { let states: [Int32], start: Bool }  // the start is not re-entered: a tag is never empty
        var parent: [Key: (Key, UInt8)] = [:]
        let start = Key(states: autos.map { Int32($0.start) }, start: true)
        func accepting(_ k: Key) -> Bool {
            for i in autos.indices where !autos[i].accepts(Int(k.states[i])) { return false }
            return true
        }
        if !tagGrammar, accepting(start) { return "" }
        var seen: Set<Key> = [start]
        var layer = [start]
        var length = 0
        while !layer.isEmpty, length < maxLength {
            var next: [Key] = []
            for k in layer {
                symbols: for c in symbols where !(tagGrammar && length == 0 && (c == UInt8(ascii: "-") || c == UInt8(ascii: "."))) {
                    var states: [Int32] = []
                    states.reserveCapacity(autos.count)
                    for i in autos.indices {
                        guard let s = autos[i].step(Int(k.states[i]), c) else { continue symbols }
                        states.append(Int32(s))
                    }
                    let n = Key(states: states, start: false)
                    if seen.insert(n).inserted {
                        parent[n] = (k, c)
                        next.append(n)
                    }
                }
            }
            length += 1
            // the first accepting state of the layer, in discovery (= byte) order, spells the smallest witness
            for n in next where accepting(n) {
                var bytes: [UInt8] = []
                var cur = n
                while let (p, c) = parent[cur] {
                    bytes.append(c)
                    cur = p
                }
                return String(decoding: bytes.reversed(), as: UTF8.self)
            }
            layer = next
        }
        return nil
    }

    /// Whether any valid tag is in the language.
    public static func isEmpty(_ a: TagLanguage) -> Bool { witness(a, .any) == nil }
}

/// A lazily built DFA over the tag alphabet. States are small integers; `nil` steps are dead.
struct Automaton {
    enum Kind {
        case search(Program)
        case prefix([UInt8])
        case any
    }

    /// A search state: the NFA threads waiting at `position`, what came before, and whether a match was seen.
    struct SearchState: Hashable {
        var pcs: [Int]
        var atStart: Bool
        var prevWord: Bool
        var matched: Bool
    }

    let kind: Kind
    var start = 0
    var states: [SearchState] = []
    var index: [SearchState: Int] = [:]
    var transitions: [[Int32]] = []   // per state, per symbol class: -2 unknown, -1 dead, else state
    var acceptCache: [Int8] = []      // -1 unknown, 0 no, 1 yes
    /// Symbols that every set of the pattern (and \b) treats alike share a class, and so their transitions.
    var classOf: [Int] = []
    var classCount = 1

    init(_ language: TagLanguage) {
        switch language {
        case .matching(let re):
            kind = .search(re.program)
            var signatures: [[Bool]: Int] = [:]
            for c in TagLanguage.symbols {
                let sig = [PikeVM.isWord(UInt32(c))] + re.program.sets.map { $0.contains(UInt32(c)) }
                if let k = signatures[sig] { classOf.append(k) } else {
                    signatures[sig] = signatures.count
                    classOf.append(signatures.count - 1)
                }
            }
            classCount = signatures.count
            start = intern(SearchState(pcs: [], atStart: true, prevWord: false, matched: false))
        case .prefix(let p): kind = .prefix(Array(p.utf8))
        case .any: kind = .any
        }
    }

    static let symbolIndex: [Int] = (0..<256).map { b in TagLanguage.symbols.firstIndex(of: UInt8(b)) ?? 0 }

    mutating func intern(_ s: SearchState) -> Int {
        if let i = index[s] { return i }
        let i = states.count
        states.append(s)
        index[s] = i
        transitions.append(Array(repeating: -2, count: classCount))
        acceptCache.append(-1)
        return i
    }

    mutating func step(_ state: Int, _ c: UInt8) -> Int? {
        switch kind {
        case .any:
            return 0
        case .prefix(let p):
            // states 0..<p.count: matched that much of the prefix; p.count: past it
            if state >= p.count { return state }
            return p[state] == c ? state + 1 : nil
        case .search(let prog):
            let si = classOf[Automaton.symbolIndex[Int(c)]]
            let cached = transitions[state][si]
            if cached != -2 { return cached < 0 ? nil : Int(cached) }
            let s = states[state]
            var next: SearchState
            if s.matched {
                next = SearchState(pcs: [], atStart: false, prevWord: false, matched: true)
            } else {
                let (consuming, matched) = Automaton.closure(prog, s, next: UInt32(c))
                var pcs: [Int] = []
                if !matched {
                    for pc in consuming {
                        if case .set(let k) = prog.insts[pc], prog.sets[k].contains(UInt32(c)), !pcs.contains(pc + 1) {
                            pcs.append(pc + 1)
                        }
                    }
                    pcs.sort()
                }
                next = SearchState(pcs: pcs, atStart: false, prevWord: PikeVM.isWord(UInt32(c)), matched: matched)
            }
            let id = intern(next)
            transitions[state][si] = Int32(id)
            return id
        }
    }

    mutating func accepts(_ state: Int) -> Bool {
        switch kind {
        case .any: return true
        case .prefix(let p): return state >= p.count
        case .search(let prog):
            if acceptCache[state] >= 0 { return acceptCache[state] == 1 }
            let s = states[state]
            let yes = s.matched || Automaton.closure(prog, s, next: nil).1
            acceptCache[state] = yes ? 1 : 0
            return yes
        }
    }

    /// The ε-closure of a state's threads plus a fresh start thread (unanchored search), in the context of
    /// the next symbol (`nil`: the end of the tag). Returns the consuming instructions and whether `match` is reached.
    static func closure(_ prog: Program, _ s: SearchState, next: UInt32?) -> ([Int], Bool) {
        var visited = [Bool](repeating: false, count: prog.insts.count)
        // the threads already waiting, and a fresh start: the match may begin at any position
        var stack = [prog.start] + s.pcs.reversed()
        var consuming: [Int] = []
        var matched = false
        let previous: UInt32? = s.atStart ? nil : (s.prevWord ? UInt32(UInt8(ascii: "a")) : UInt32(UInt8(ascii: "-")))
        while let pc = stack.popLast() {
            if visited[pc] { continue }
            visited[pc] = true
            switch prog.insts[pc] {
            case .set: consuming.append(pc)
            case .match: matched = true
            case .jmp(let x): stack.append(x)
            case .split(let x, let y):
                stack.append(y)
                stack.append(x)
            case .save: stack.append(pc + 1)
            case .assert(let a):
                // only the kind of the previous character matters here (tags hold no newlines)
                if PikeVM.holds(a, prev: previous, next: next) { stack.append(pc + 1) }
            }
        }
        return (consuming, matched)
    }
}
