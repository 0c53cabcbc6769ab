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
    var start = 0
    var slotCount = 2
    static let maxInstructions = 100_000

    static func compile(_ re: ParsedRegex) throws -> Program {
        var p = Program()
        p.slotCount = 2 * (re.captureCount + 1)
        p.insts.append(.save(0))
        try p.emit(re.root)
        p.insts.append(.save(1))
        p.insts.append(.match)
        return p
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
        case .repeat(let sub, let lo, let hi, let greedy):
            for _ in 0..<lo { try emit(sub) }
            if let hi {
                // (x(x(x)?)?)? for the optional copies
                var splits: [Int] = []
                for _ in lo..<hi {
                    splits.append(try add(.split(0, 0)))
                    try emit(sub)
                }
                let end = insts.count
                for s in splits { insts[s] = greedy ? .split(s + 1, end) : .split(end, s + 1) }
            } else {
                let loop = try add(.split(0, 0))
                try emit(sub)
                _ = try add(.jmp(loop))
                let end = insts.count
                insts[loop] = greedy ? .split(loop + 1, end) : .split(end, loop + 1)
            }
        }
    }
}

/// Pike VM: simulates the NFA over the input once, carrying capture positions per thread.
/// Time is O(input × program) for every pattern; there is no backtracking.
struct PikeVM {
    let prog: Program

    private struct Queue {
        var sparse: [Int]
        var densePC: [Int] = []
        var denseCaps: [[Int]] = []
        init(_ n: Int) { sparse = Array(repeating: -1, count: n) }
        func contains(_ pc: Int) -> Bool {
            let i = sparse[pc]
            return i >= 0 && i < densePC.count && densePC[i] == pc
        }
        mutating func clear() {
            densePC.removeAll(keepingCapacity: true)
            denseCaps.removeAll(keepingCapacity: true)
        }
    }

    static func isWord(_ c: UInt32) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95
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
    func run(_ bytes: UnsafeBufferPointer<UInt8>, anchored: Bool = false, longest: Bool = false) -> [Int]? {
        var steps = 0
        return run(bytes, anchored: anchored, longest: longest, steps: &steps)
    }

    /// `steps` counts thread visits: at most (input length + 1) × program size, whatever the pattern.
    func run(_ bytes: UnsafeBufferPointer<UInt8>, anchored: Bool, longest: Bool, steps: inout Int) -> [Int]? {
        let (runes, offsets) = PikeVM.decode(bytes)
        let n = runes.count
        var clist = Queue(prog.insts.count)
        var nlist = Queue(prog.insts.count)
        var matched: [Int]? = nil
        let empty = Array(repeating: -1, count: prog.slotCount)
        var stack: [(Int, [Int])] = []

        func holds(_ a: Assertion, _ i: Int) -> Bool {
            let prev: UInt32? = i > 0 ? runes[i - 1] : nil
            let next: UInt32? = i < n ? runes[i] : nil
            switch a {
            case .beginText: return i == 0
            case .endText: return i == n
            case .beginLine: return prev == nil || prev == 10
            case .endLine: return next == nil || next == 10
            case .wordBoundary, .notWordBoundary:
                let w1 = prev.map(PikeVM.isWord) ?? false
                let w2 = next.map(PikeVM.isWord) ?? false
                return (w1 != w2) == (a == .wordBoundary)
            }
        }

        func add(_ q: inout Queue, _ pc0: Int, _ caps0: [Int], _ i: Int) {
            stack.append((pc0, caps0))
            while let (pc, caps) = stack.popLast() {
                if q.contains(pc) { continue }
                steps += 1
                q.sparse[pc] = q.densePC.count
                switch prog.insts[pc] {
                case .jmp(let x):
                    q.densePC.append(pc); q.denseCaps.append([])
                    stack.append((x, caps))
                case .split(let x, let y):
                    q.densePC.append(pc); q.denseCaps.append([])
                    stack.append((y, caps))
                    stack.append((x, caps))
                case .save(let k):
                    q.densePC.append(pc); q.denseCaps.append([])
                    var c = caps
                    if k < c.count { c[k] = offsets[i] }
                    stack.append((pc + 1, c))
                case .assert(let a):
                    q.densePC.append(pc); q.denseCaps.append([])
                    if holds(a, i) { stack.append((pc + 1, caps)) }
                case .set, .match:
                    q.densePC.append(pc); q.denseCaps.append(caps)
                }
            }
        }

        var i = 0
        while true {
            if matched == nil, i == 0 || !anchored {
                add(&clist, prog.start, empty, i)
            }
            if clist.densePC.isEmpty { break }
            nlist.clear()
            for k in 0..<clist.densePC.count {
                let pc = clist.densePC[k]
                switch prog.insts[pc] {
                case .set(let s):
                    if i < n, prog.sets[s].contains(runes[i]) {
                        add(&nlist, pc + 1, clist.denseCaps[k], i + 1)
                    }
                case .match:
                    let caps = clist.denseCaps[k]
                    if longest {
                        if matched == nil || caps[0] < matched![0] || (caps[0] == matched![0] && caps[1] > matched![1]) {
                            matched = caps
                        }
                        continue
                    }
                    matched = caps
                    // leftmost-first: lower-priority threads die
                    break
                default:
                    continue
                }
                if case .match = prog.insts[pc], !longest { break }
            }
            if i >= n { break }
            i += 1
            swap(&clist, &nlist)
            if matched != nil, clist.densePC.isEmpty { break }
        }
        return matched
    }
}
