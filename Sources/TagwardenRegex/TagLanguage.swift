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

    /// The outcome of a search: a witness, proof that there is none, or a search that ran out of budget.
    public enum Search: Equatable, Sendable {
        case witness(String)
        case none
        /// The automata grew past the budget (a pattern such as `(a|b)*a(a|b){40}` has exponentially many
        /// states): nothing was proved either way.
        case undecided
    }

    /// Work allowed to one search, in NFA instructions visited while building automaton states: a fraction of a
    /// second, far above what real policy patterns need (tens of thousands).
    public static let defaultBudget = 2_000_000

    /// The shortest tag (smallest in byte order among the shortest) in both languages, or nil when they do not
    /// meet or the search ran out of budget.
    public static func witness(_ a: TagLanguage, _ b: TagLanguage) -> String? {
        witness([a, b])
    }

    /// `search`'s witness, or nil.
    public static func witness(_ languages: [TagLanguage], tagGrammar: Bool = true) -> String? {
        if case .witness(let w) = search(languages, tagGrammar: tagGrammar) { return w }
        return nil
    }

    /// The shortest string in every language, smallest first in byte order. With `tagGrammar` it must be a
    /// valid tag (non-empty, first character not `.` or `-`); without, it may be empty (an extracted key).
    public static func search(_ languages: [TagLanguage], tagGrammar: Bool = true, budget: Int = defaultBudget) -> Search {
        var spent = 0
        return search(languages, tagGrammar: tagGrammar, budget: budget, spent: &spent)
    }

    /// The same, saying how much of the budget the search took (for a caller that bounds many searches).
    public static func search(_ languages: [TagLanguage], tagGrammar: Bool = true, budget: Int, spent work: inout Int) -> Search {
        var autos = languages.map(Automaton.init)
        struct Key: Hashable { let states: [Int32], start: Bool }  // the start is not re-entered: a tag is never empty
        let start = Key(states: autos.map { Int32($0.start) }, start: true)
        var seen: Set<Key> = [start]
        func spent() -> Bool { autos.reduce(seen.count * 64) { $0 + $1.work } > budget }
        defer { work = autos.reduce(seen.count * 64) { $0 + $1.work } }
        var parent: [Key: (Key, UInt8)] = [:]
        func accepting(_ k: Key) -> Bool {
            for i in autos.indices where !autos[i].accepts(Int(k.states[i])) { return false }
            return true
        }
        if !tagGrammar, accepting(start) { return .witness("") }
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
                if spent() { return .undecided }
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
                return .witness(String(decoding: bytes.reversed(), as: UTF8.self))
            }
            if spent() { return .undecided }
            layer = next
        }
        return .none
    }
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
    /// NFA instructions visited so far (the search's budget).
    var work = 0
    /// Per instruction, the fewest characters still needed to reach `match` (Int.max: never). A thread that
    /// needs more than a tag can hold is dropped, so `x{1000}` costs nothing.
    var distance: [Int] = []
    /// A state without threads stays without them: the fresh thread started at each later position never gets
    /// anywhere (an anchored pattern, `^staging-…`). Such a state is dead, and the product search stops there
    /// instead of carrying it along while another language is explored.
    var emptyIsDead = false

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
            distance = Automaton.distances(re.program)
            emptyIsDead = Automaton.freshStartIsFutile(re.program, distance)
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
                work += prog.insts.count
                var pcs: [Int] = []
                if !matched {
                    for pc in consuming {
                        if case .set(let k) = prog.insts[pc], prog.sets[k].contains(UInt32(c)), !pcs.contains(pc + 1),
                           distance[pc + 1] < TagLanguage.maxLength {
                            pcs.append(pc + 1)
                        }
                    }
                    pcs.sort()
                }
                next = SearchState(pcs: pcs, atStart: false, prevWord: PikeVM.isWord(UInt32(c)), matched: matched)
            }
            if emptyIsDead, next.pcs.isEmpty, !next.matched {
                transitions[state][si] = -1
                return nil
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
            work += prog.insts.count
            acceptCache[state] = yes ? 1 : 0
            return yes
        }
    }

    /// Fewest characters from each instruction to `match`, assertions taken as passable (a lower bound).
    static func distances(_ prog: Program) -> [Int] {
        var d = [Int](repeating: Int.max, count: prog.insts.count)
        var changed = true
        while changed {
            changed = false
            for pc in prog.insts.indices.reversed() {
                var v: Int
                switch prog.insts[pc] {
                case .match: v = 0
                case .set: v = d[pc + 1] == Int.max ? Int.max : d[pc + 1] + 1
                case .jmp(let x): v = d[x]
                case .split(let x, let y): v = min(d[x], d[y])
                case .save, .assert: v = d[pc + 1]
                }
                if v < d[pc] {
                    d[pc] = v
                    changed = true
                }
            }
        }
        return d
    }

    /// Whether a thread started after the first position can neither match nor consume a character that
    /// leads anywhere, whatever comes before and after it.
    static func freshStartIsFutile(_ prog: Program, _ distance: [Int]) -> Bool {
        for prevWord in [false, true] {
            let s = SearchState(pcs: [], atStart: false, prevWord: prevWord, matched: false)
            for next in [nil] + TagLanguage.symbols.map({ UInt32($0) }) as [UInt32?] {
                let (consuming, matched) = closure(prog, s, next: next)
                if matched { return false }
                guard let c = next else { continue }
                for pc in consuming {
                    if case .set(let k) = prog.insts[pc], prog.sets[k].contains(c), distance[pc + 1] < TagLanguage.maxLength { return false }
                }
            }
        }
        return true
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
