/// The compiled program: an NFA in Thompson's instruction form.
enum Inst: Sendable {
    case set(Int)          // index into Program.sets; consumes one rune
    case split(Int, Int)   // try the first, then the second (leftmost-first priority)
    case jmp(Int)
    case save(Int)
    case assert(Assertion)
    case match
}

/// A character set with an ASCII bitmap for the common case.
struct RuneSet: Sendable {
    let set: CharSet
    let lo: UInt64
    let hi: UInt64

    init(_ set: CharSet) {
        self.set = set
        var lo: UInt64 = 0, hi: UInt64 = 0
        for r in set.ranges where r.lowerBound < 128 {
            for c in r.lowerBound...min(r.upperBound, 127) {
                if c < 64 { lo |= 1 << UInt64(c) } else { hi |= 1 << UInt64(c - 64) }
            }
        }
        self.lo = lo
        self.hi = hi
    }

    @inline(__always) func contains(_ c: UInt32) -> Bool {
        if c < 64 { return lo & (1 << UInt64(c)) != 0 }
        if c < 128 { return hi & (1 << UInt64(c - 64)) != 0 }
        return set.contains(c)
    }
}

struct Program: Sendable {
    var insts: [Inst] = []
    var sets: [RuneSet] = []
    /// The sets' ASCII bitmaps, flat, for the backtracker's inner loop.
    var asciiBits: [UInt64] = []
    var start = 0
    var slotCount = 2
    /// Bytes every match must start the text with (a pattern that begins `^literal`), for a quick reject.
    var anchoredPrefix: [UInt8]?
    /// The pattern starts with a start-of-text anchor: it can only match from position 0.
    var anchoredStart = false
    /// Bytes every match must end the text with (a pattern that ends `literal$`), for a quick reject.
    var anchoredSuffix: [UInt8]?
    static let maxInstructions = 100_000

    static func compile(_ re: ParsedRegex) throws -> Program {
        var p = Program()
        p.slotCount = 2 * (re.captureCount + 1)
        p.anchoredPrefix = literalPrefix(re.root)
        p.anchoredStart = startsAnchored(re.root)
        p.anchoredSuffix = literalSuffix(re.root)
        p.insts.append(.save(0))
        try p.emit(re.root)
        p.insts.append(.save(1))
        p.insts.append(.match)
        p.asciiBits = p.sets.flatMap { [$0.lo, $0.hi] }
        return p
    }

    /// The pattern as a flat sequence: concatenations and capture groups opened up.
    static func sequence(_ root: RegexNode) -> [RegexNode] {
        switch root {
        case .concat(let xs): return xs.flatMap(sequence)
        case .capture(_, _, let sub): return sequence(sub)
        default: return [root]
        }
    }

    /// The ASCII literal bytes at the start of `items`.
    static func leadingLiterals(_ items: some Sequence<RegexNode>) -> [UInt8] {
        var out: [UInt8] = []
        for item in items {
            guard case .set(let s) = item, s.ranges.count == 1, s.ranges[0].lowerBound == s.ranges[0].upperBound,
                  s.ranges[0].lowerBound < 0x80 else { break }
            out.append(UInt8(s.ranges[0].lowerBound))
        }
        return out
    }

    /// `…abc$` as bytes, when the pattern ends with ASCII literals and an end-of-text anchor.
    static func literalSuffix(_ root: RegexNode) -> [UInt8]? {
        let items = sequence(root)
        guard case .assert(.endText)? = items.last else { return nil }
        let out = leadingLiterals(items.dropLast().reversed())
        return out.isEmpty ? nil : out.reversed()
    }

    static func startsAnchored(_ n: RegexNode) -> Bool {
        switch n {
        case .assert(.beginText): return true
        case .concat(let xs): return xs.first.map(startsAnchored) ?? false
        case .capture(_, _, let sub): return startsAnchored(sub)
        case .alternate(let xs): return !xs.isEmpty && xs.allSatisfy(startsAnchored)
        default: return false
        }
    }

    /// `^abc…` as bytes, when the pattern starts with a start-of-text anchor and ASCII literals.
    static func literalPrefix(_ root: RegexNode) -> [UInt8]? {
        let items = sequence(root)
        guard case .assert(.beginText)? = items.first else { return nil }
        let out = leadingLiterals(items.dropFirst())
        return out.isEmpty ? nil : out
    }

    private mutating func add(_ i: Inst) throws -> Int {
        if insts.count >= Program.maxInstructions {
            throw RegexSyntaxError(code: "expression too large", expr: "", offset: 0)
        }
        insts.append(i)
        return insts.count - 1
    }

    private mutating func emit(_ node: RegexNode) throws {
        switch node {
        case .empty:
            break
        case .set(let s):
            sets.append(RuneSet(s))
            _ = try add(.set(sets.count - 1))
        case .assert(let a):
            _ = try add(.assert(a))
        case .capture(let index, _, let sub):
            _ = try add(.save(2 * index))
            try emit(sub)
            _ = try add(.save(2 * index + 1))
        case .concat(let xs):
            for x in xs { try emit(x) }
        case .alternate(let xs):
            var jumps: [Int] = []
            for (k, x) in xs.enumerated() {
                if k < xs.count - 1 {
                    let split = try add(.split(0, 0))
                    try emit(x)
                    jumps.append(try add(.jmp(0)))
                    insts[split] = .split(split + 1, insts.count)
                } else {
                    try emit(x)
                }
            }
            for j in jumps { insts[j] = .jmp(insts.count) }
        case .repeat(var sub, let lo, let hi, let greedy):
            // As Go simplifies and compiles repetitions (regexp/syntax simplify.go, compile.go), so that the
            // priorities — which match wins, what the groups hold — are Go's. A star, plus or quest directly of
            // the same operator and greediness is that operator once: (?:x*)* is x*.
            if case .repeat(let inner, let ilo, let ihi, let igreedy) = sub, igreedy == greedy, ilo == lo, ihi == hi,
               (lo, hi) == (0, nil) || (lo, hi) == (1, nil) || (lo, hi) == (0, 1) {
                sub = inner
                try emit(.repeat(sub, min: lo, max: hi, greedy: greedy))
                return
            }
            guard let hi else {
                // x* ; x+ ; x{n,} is n-1 copies of x, then x+
                if lo == 0 { try emitStar(sub, greedy: greedy); return }
                for _ in 0..<(lo - 1) { try emit(sub) }
                try emitPlus(sub, greedy: greedy)
                return
            }
            for _ in 0..<lo { try emit(sub) }
            // (x(x(x)?)?)? for the optional copies
            var splits: [Int] = []
            for _ in lo..<hi {
                splits.append(try add(.split(0, 0)))
                try emit(sub)
            }
            let end = insts.count
            for s in splits { insts[s] = greedy ? .split(s + 1, end) : .split(end, s + 1) }
        }
    }

    /// x+: x, then back to x's start or on.
    private mutating func emitPlus(_ sub: RegexNode, greedy: Bool) throws {
        let start = insts.count
        try emit(sub)
        let loop = try add(.split(0, 0))
        insts[loop] = greedy ? .split(start, loop + 1) : .split(loop + 1, start)
    }

    /// x*: a loop, or (x+)? when x can match the empty string — Go's order of priorities (golang.org/issue/46123):
    /// an empty iteration then counts as one, so `(a|)*` matches "" at 0 with the group set, as in Go.
    private mutating func emitStar(_ sub: RegexNode, greedy: Bool) throws {
        if Program.nullable(sub) {
            let quest = try add(.split(0, 0))
            try emitPlus(sub, greedy: greedy)
            let end = insts.count
            insts[quest] = greedy ? .split(quest + 1, end) : .split(end, quest + 1)
            return
        }
        let loop = try add(.split(0, 0))
        try emit(sub)
        _ = try add(.jmp(loop))
        let end = insts.count
        insts[loop] = greedy ? .split(loop + 1, end) : .split(end, loop + 1)
    }

    /// Whether the node can match the empty string (assertions are empty-width).
    static func nullable(_ node: RegexNode) -> Bool {
        switch node {
        case .empty, .assert: return true
        case .set: return false
        case .capture(_, _, let sub): return nullable(sub)
        case .concat(let xs): return xs.allSatisfy(nullable)
        case .alternate(let xs): return xs.isEmpty || xs.contains(where: nullable)
        case .repeat(let sub, let lo, _, _): return lo == 0 || nullable(sub)
        }
    }
}

/// Pike VM: simulates the NFA over the input once, carrying capture positions per thread.
/// Time is O(input × program) for every pattern; there is no backtracking. The thread lists and capture rows
/// live in buffers allocated once per search (on the stack when small), as in Go's and RE2's machines.
struct PikeVM {
    let prog: Program

    static func isWord(_ c: UInt32) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95
    }

    /// Whether an empty-width assertion holds between `prev` and `next` (nil: the start or end of the text).
    static func holds(_ a: Assertion, prev: UInt32?, next: UInt32?) -> Bool {
        switch a {
        case .beginText: return prev == nil
        case .endText: return next == nil
        case .beginLine: return prev == nil || prev == 10
        case .endLine: return next == nil || next == 10
        case .wordBoundary, .notWordBoundary:
            let w1 = prev.map(isWord) ?? false
            let w2 = next.map(isWord) ?? false
            return (w1 != w2) == (a == .wordBoundary)
        }
    }

    /// Runes of `input` with their byte offsets; invalid UTF-8 bytes decode as U+FFFD of width 1, as in Go.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> (runes: [UInt32], offsets: [Int]) {
        var runes: [UInt32] = []
        var offsets: [Int] = []
        runes.reserveCapacity(bytes.count)
        offsets.reserveCapacity(bytes.count + 1)
        var i = 0
        while i < bytes.count {
            offsets.append(i)
            let b0 = bytes[i]
            if b0 < 0x80 { runes.append(UInt32(b0)); i += 1; continue }
            let len = b0 >= 0xF8 ? 0 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0
            var ok = len > 0 && i + len <= bytes.count
            var v: UInt32 = 0
            if ok {
                v = UInt32(b0) & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07)
                for k in 1..<len {
                    let b = bytes[i + k]
                    if b & 0xC0 != 0x80 { ok = false; break }
                    v = v << 6 | UInt32(b & 0x3F)
                }
                if ok, (len == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) {
                    ok = false
                }
            }
            if ok { runes.append(v); i += len } else { runes.append(0xFFFD); i += 1 }
        }
        offsets.append(bytes.count)
        return (runes, offsets)
    }

    /// The leftmost-first match in `bytes` (unanchored unless `anchored`): capture slots as byte offsets, -1 if unset.
    /// Without `captures` only whether there is a match counts (the slots may then be left out).
    func run(_ bytes: UnsafeBufferPointer<UInt8>, anchored: Bool = false, longest: Bool = false, captures: Bool = true) -> [Int]? {
        var steps = 0
        return run(bytes, anchored: anchored, longest: longest, captures: captures, steps: &steps)
    }

    /// `steps` counts thread visits: at most (input length + 1) × program size, whatever the pattern.
    func run(_ bytes: UnsafeBufferPointer<UInt8>, anchored: Bool, longest: Bool, captures: Bool = true, steps: inout Int) -> [Int]? {
        // a pattern anchored at the start with a literal prefix cannot match text without it
        if let prefix = prog.anchoredPrefix {
            if bytes.count < prefix.count { return nil }
            for k in 0..<prefix.count where bytes[k] != prefix[k] { return nil }
        }
        if let suffix = prog.anchoredSuffix {
            if bytes.count < suffix.count { return nil }
            let base = bytes.count - suffix.count
            for k in 0..<suffix.count where bytes[base + k] != suffix[k] { return nil }
        }
        var ascii = true
        for b in bytes where b >= 0x80 { ascii = false; break }
        if ascii, !longest, !anchored, Backtracker.fits(prog, length: bytes.count) {
            return Backtracker(prog: prog).run(bytes, captures: captures, steps: &steps)
        }
        if ascii {
            return search(count: bytes.count, rune: { UInt32(bytes[$0]) }, offset: { $0 }, anchored: anchored, longest: longest, steps: &steps)
        }
        let (runes, offsets) = PikeVM.decode(bytes)
        return search(count: runes.count, rune: { runes[$0] }, offset: { offsets[$0] }, anchored: anchored, longest: longest, steps: &steps)
    }

    /// The Pike VM alone over ASCII text, without the backtracker's shortcut: tests hold both engines to one answer.
    func pikeOnly(_ bytes: UnsafeBufferPointer<UInt8>) -> [Int]? {
        var steps = 0
        return search(count: bytes.count, rune: { UInt32(bytes[$0]) }, offset: { $0 }, anchored: false, longest: false, steps: &steps)
    }

    private enum Work {
        case explore(Int)
        case restore(Int, Int)
    }

    @inline(__always)
    private func search(count n: Int, rune: (Int) -> UInt32, offset: (Int) -> Int, anchored: Bool, longest: Bool,
                        steps: inout Int) -> [Int]? {
        let ninst = prog.insts.count
        let slots = prog.slotCount
        var matched: [Int]? = nil
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: ninst * 4 + ninst * slots * 2 + slots) { mem -> [Int]? in
            let base = mem.baseAddress!
            // two queues: sparse index, dense pcs, capture rows
            var cSparse = base, cDense = base + ninst, nSparse = base + 2 * ninst, nDense = base + 3 * ninst
            var cCaps = base + 4 * ninst, nCaps = base + 4 * ninst + ninst * slots
            let cap = base + 4 * ninst + 2 * ninst * slots
            var cCount = 0, nCount = 0
            for k in 0..<slots { cap[k] = -1 }
            var stack: [Work] = []
            stack.reserveCapacity(16)

            func holds(_ a: Assertion, _ i: Int) -> Bool {
                PikeVM.holds(a, prev: i > 0 ? rune(i - 1) : nil, next: i < n ? rune(i) : nil)
            }

            // adds pc0 and its ε-closure at position i to the queue, threads carrying `cap`
            func add(_ sparse: UnsafeMutablePointer<Int>, _ dense: UnsafeMutablePointer<Int>, _ caps: UnsafeMutablePointer<Int>,
                     _ count: inout Int, _ pc0: Int, _ i: Int) {
                stack.append(.explore(pc0))
                while let w = stack.popLast() {
                    switch w {
                    case .restore(let k, let v):
                        cap[k] = v
                    case .explore(let pc):
                        let si = sparse[pc]
                        if si >= 0 && si < count && dense[si] == pc { continue }
                        sparse[pc] = count
                        dense[count] = pc
                        count += 1
                        steps += 1
                        switch prog.insts[pc] {
                        case .jmp(let x): stack.append(.explore(x))
                        case .split(let x, let y):
                            stack.append(.explore(y))
                            stack.append(.explore(x))
                        case .save(let k):
                            if k < slots {
                                stack.append(.restore(k, cap[k]))
                                cap[k] = offset(i)
                            }
                            stack.append(.explore(pc + 1))
                        case .assert(let a):
                            if holds(a, i) { stack.append(.explore(pc + 1)) }
                        case .set, .match:
                            (caps + pc * slots).update(from: cap, count: slots)
                        }
                    }
                }
            }

            var i = 0
            while true {
                if matched == nil, i == 0 || !anchored {
                    for k in 0..<slots { cap[k] = -1 }
                    add(cSparse, cDense, cCaps, &cCount, prog.start, i)
                }
                if cCount == 0 { break }
                nCount = 0
                var k = 0
                while k < cCount {
                    let pc = cDense[k]
                    k += 1
                    switch prog.insts[pc] {
                    case .set(let s):
                        if i < n, prog.sets[s].contains(rune(i)) {
                            cap.update(from: cCaps + pc * slots, count: slots)
                            add(nSparse, nDense, nCaps, &nCount, pc + 1, i + 1)
                        }
                    case .match:
                        let row = Array(UnsafeBufferPointer(start: cCaps + pc * slots, count: slots))
                        if longest {
                            if matched == nil || row[0] < matched![0] || (row[0] == matched![0] && row[1] > matched![1]) { matched = row }
                            continue
                        }
                        matched = row
                        k = cCount  // leftmost-first: lower-priority threads die
                    default:
                        continue
                    }
                }
                if i >= n { break }
                i += 1
                swap(&cSparse, &nSparse)
                swap(&cDense, &nDense)
                swap(&cCaps, &nCaps)
                cCount = nCount
                if matched != nil, cCount == 0 { break }
            }
            return matched
        }
    }
}
