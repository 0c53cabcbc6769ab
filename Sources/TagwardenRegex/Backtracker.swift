/// Go's bounded backtracker (`regexp/backtrack.go`): depth-first in priority order, so the first match found
/// is the leftmost-first one, with a visited bit per (instruction, position) so that no state is explored twice
/// — linear in the input like the Pike VM, and much faster on short inputs such as image tags. Used when the
/// bit vector stays small; the Pike VM handles everything else.
struct Backtracker {
    let prog: Program
    static let maxBits = 256 * 1024

    static func fits(_ prog: Program, length: Int) -> Bool {
        prog.insts.count <= 500 && prog.insts.count * (length + 1) <= maxBits
    }

    private struct Job {
        var pc: Int32
        var arg: Bool
        var pos: Int   // a position, or the saved capture value when restoring
    }

    /// Leftmost-first match over ASCII `bytes` (positions are byte offsets); without `captures`, an empty array
    /// stands for a match (Go's `MatchString`: saves are skipped, which changes no path the search takes).
    func run(_ bytes: UnsafeBufferPointer<UInt8>, captures: Bool = true, steps: inout Int) -> [Int]? {
        let n = bytes.count
        let ninst = prog.insts.count
        let slots = captures ? prog.slotCount : 0
        let bits = ninst * (n + 1)
        let words = (bits + 63) / 64
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: words) { visited -> [Int]? in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: slots) { cap -> [Int]? in
                prog.insts.withUnsafeBufferPointer { insts in
                    prog.asciiBits.withUnsafeBufferPointer { bitsOfSets in
                        // every visit pushes at most one job, so the stack never outgrows the bit vector; but on a tag it
                        // stays a few jobs deep, and room for them all was a heap allocation for each search (one over
                        // 1 KB is). So a search runs first with a stack of `shallowJobs`, and again with the whole
                        // room only when it fills that.
                        let shallow = withUnsafeTemporaryAllocation(of: Job.self, capacity: Backtracker.shallowJobs) { jobs in
                            search(bytes, insts, bitsOfSets, visited, jobs, cap, &steps)
                        }
                        if case .done(let found) = shallow { return found }
                        return withUnsafeTemporaryAllocation(of: Job.self, capacity: bits + 2) { jobs -> [Int]? in
                            guard case .done(let found) = search(bytes, insts, bitsOfSets, visited, jobs, cap, &steps) else {
                                preconditionFailure("a job for each visit outgrew the bit vector")
                            }
                            return found
                        }
                    }
                }
            }
        }
    }

    /// Jobs a first search may stack: 1 KB, which a temporary allocation keeps on the machine stack.
    static var shallowJobs: Int { 1024 / MemoryLayout<Job>.stride }

    private enum Outcome {
        /// The capture slots of the match (nil: no match).
        case done([Int]?)
        /// The job stack filled: nothing is known (no steps counted).
        case outOfJobs
    }

    private func search(_ bytes: UnsafeBufferPointer<UInt8>, _ insts: UnsafeBufferPointer<Inst>, _ setBits: UnsafeBufferPointer<UInt64>,
                        _ visited: UnsafeMutableBufferPointer<UInt64>, _ jobs: UnsafeMutableBufferPointer<Job>,
                        _ cap: UnsafeMutableBufferPointer<Int>, _ steps: inout Int) -> Outcome {
        let n = bytes.count
        let width = n &+ 1
        let slots = cap.count
        let startPC = prog.start
        visited.initialize(repeating: 0)
        var visits = 0
        // a pattern anchored at the start of the text can only match from position 0
        let last = prog.anchoredStart ? 0 : n
        var start = 0
        while start <= last {
            for k in 0..<slots { cap[k] = -1 }
            var top = 0
            let sbit = startPC &* width &+ start
            if visited[sbit &>> 6] & (UInt64(1) &<< UInt64(sbit & 63)) == 0 {
                visited[sbit &>> 6] |= UInt64(1) &<< UInt64(sbit & 63)
                visits &+= 1
                jobs[0] = Job(pc: Int32(startPC), arg: false, pos: start)
                top = 1
            }
            while top > 0 {
                top &-= 1
                let job = jobs[top]
                var pc = Int(job.pc)
                var pos = job.pos
                var arg = job.arg
                var first = true
                while true {
                    if !first {
                        let bit = pc &* width &+ pos
                        let w = bit &>> 6, m = UInt64(1) &<< UInt64(bit & 63)
                        if visited[w] & m != 0 { break }
                        visited[w] |= m
                        visits &+= 1
                    }
                    first = false
                    switch insts[pc] {
                    case .split(let x, let y):
                        if arg {
                            arg = false
                            pc = y
                            continue
                        }
                        guard top < jobs.count else { return .outOfJobs }
                        jobs[top] = Job(pc: Int32(pc), arg: true, pos: pos)
                        top &+= 1
                        pc = x
                        continue
                    case .set(let s):
                        guard pos < n else { break }
                        let c = bytes[pos]   // ASCII: the set's bitmap decides
                        let word = c < 64 ? setBits[2 &* s] : setBits[2 &* s &+ 1]
                        guard word & (UInt64(1) &<< UInt64(c & 63)) != 0 else { break }
                        pos &+= 1
                        pc &+= 1
                        continue
                    case .save(let k):
                        if arg {
                            cap[k] = pos      // restoring the value saved below
                            break
                        }
                        if k < slots {
                            guard top < jobs.count else { return .outOfJobs }
                            jobs[top] = Job(pc: Int32(pc), arg: true, pos: cap[k])
                            top &+= 1
                            cap[k] = pos
                        }
                        pc &+= 1
                        continue
                    case .assert(let a):
                        guard Backtracker.holds(a, bytes, pos) else { break }
                        pc &+= 1
                        continue
                    case .jmp(let x):
                        pc = x
                        continue
                    case .match:
                        steps &+= visits
                        return .done(Array(cap))
                    }
                    break
                }
            }
            start &+= 1
        }
        steps &+= visits
        return .done(nil)
    }

    static func holds(_ a: Assertion, _ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        PikeVM.holds(a, prev: i > 0 ? UInt32(bytes[i - 1]) : nil, next: i < bytes.count ? UInt32(bytes[i]) : nil)
    }
}
