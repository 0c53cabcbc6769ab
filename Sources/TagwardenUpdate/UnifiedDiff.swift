#if canImport(Glibc)
import Glibc
#endif
import TagwardenBasics

/// A unified diff of two versions of a file, as `git diff` prints it: `---`/`+++` headers, hunks of three lines of
/// context, `\ No newline at end of file` where a version ends without one.
public enum UnifiedDiff {
    /// `escape`, when given, rewrites each line's text (without its line break) for a terminal; without it the diff is
    /// byte-exact, so that `git apply` takes it.
    public static func render(path: String, before: [UInt8], after: [UInt8], color: Bool = false, context: Int = 3,
                              escape: (@Sendable (String) -> String)? = nil) -> String {
        let a = lines(before), b = lines(after)
        let ops = script(a, b)
        guard ops.contains(where: { $0 != .same }) else { return "" }
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        func text(_ line: ArraySlice<UInt8>) -> String {
            guard let escape else { return String(decoding: line, as: UTF8.self) }
            let body = chomp(line)
            return escape(String(decoding: body, as: UTF8.self)) + (body.count < line.count ? "\n" : "")
        }
        // the path quoted as git quotes it: a line break in a file name cannot start a line of its own
        var out = paint("--- " + Escape.gitPath("a/" + path), "1") + "\n" + paint("+++ " + Escape.gitPath("b/" + path), "1") + "\n"
        // positions in the script with where each op is in a and b
        var positions: [(op: Op, i: Int, j: Int)] = []
        var i = 0, j = 0
        for op in ops {
            positions.append((op, i, j))
            switch op {
            case .same: i += 1; j += 1
            case .delete: i += 1
            case .insert: j += 1
            }
        }
        // git's default function context after `@@`: the nearest line above the hunk that starts with a letter, `_` or
        // `$` (in YAML, the enclosing top-level key), searched down to where the previous hunk's search began
        var function = ""
        var searchedTo = -1
        func functionLine(above first: Int) -> String {
            var l = first - 1
            while l > searchedTo, l >= 0 {
                let line = chomp(a[l])
                if let c = line.first, (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 36 {
                    var bytes = Array(line.prefix(80))
                    while let last = bytes.last, [32, 9, 10, 11, 12, 13].contains(last) { bytes.removeLast() }
                    function = text(bytes[...])
                    break
                }
                l -= 1
            }
            searchedTo = first - 1
            return function
        }
        var k = 0
        while k < positions.count {
            guard positions[k].op != .same else { k += 1; continue }
            // a hunk: from `context` lines before this change to `context` lines after the last change that is
            // within 2 × context lines of the one before it
            let start = max(0, k - context)
            var end = k
            var last = k
            while end < positions.count {
                if positions[end].op != .same { last = end }
                if end - last > 2 * context { break }
                end += 1
            }
            let stop = min(positions.count, last + context + 1)
            let hunk = positions[start..<stop]
            let oldCount = hunk.filter { $0.op != .insert }.count, newCount = hunk.filter { $0.op != .delete }.count
            let oldStart = oldCount == 0 ? hunk.first!.i : hunk.first!.i + 1
            let newStart = newCount == 0 ? hunk.first!.j : hunk.first!.j + 1
            let heading = functionLine(above: hunk.first!.i)
            out += paint("@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@", "36") + (heading.isEmpty ? "" : " " + heading) + "\n"
            for p in hunk {
                switch p.op {
                case .same: out += " " + text(a[p.i])
                case .delete: out += paint("-" + text(chomp(a[p.i])), "31") + "\n" + noNewline(a[p.i])
                case .insert: out += paint("+" + text(chomp(b[p.j])), "32") + "\n" + noNewline(b[p.j])
                }
                if p.op == .same, a[p.i].last != 10 { out += "\n\\ No newline at end of file\n" }
            }
            k = stop
        }
        return out
    }

    static func range(_ start: Int, _ count: Int) -> String { count == 1 ? "\(start)" : "\(start),\(count)" }


    static func chomp(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> { line.last == 10 ? line.dropLast() : line }

    static func noNewline(_ line: ArraySlice<UInt8>) -> String { line.last == 10 ? "" : "\\ No newline at end of file\n" }

    /// The lines of `bytes`, each with its line break (the last may have none).
    static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        // (the line ends found by memchr: the byte loop cost 50 instructions a byte)
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            while start < b.count, let p = memchr(base + start, 10, b.count - start) {
                let end = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
                out.append(bytes[start...end])
                start = end + 1
            }
        }
        if start < bytes.count { out.append(bytes[start...]) }
        return out
    }

    enum Op: Equatable { case same, delete, insert }

    /// A shortest edit script from `a` to `b` (Myers' O(ND) algorithm), after the common head and tail: an update
    /// changes a few lines of a long file, so D is small.
    static func script(_ a: [ArraySlice<UInt8>], _ b: [ArraySlice<UInt8>]) -> [Op] {
        var head = 0
        while head < a.count, head < b.count, a[head] == b[head] { head += 1 }
        var tail = 0
        while tail < a.count - head, tail < b.count - head, a[a.count - 1 - tail] == b[b.count - 1 - tail] { tail += 1 }
        let x = Array(a[head..<(a.count - tail)]), y = Array(b[head..<(b.count - tail)])
        let n = x.count, m = y.count, max = n + m
        var middle: [Op] = []
        if max > 0 {
            var v = [Int](repeating: 0, count: 2 * max + 2)
            var trace: [[Int]] = []
            search: for d in 0...max {
                trace.append(v)
                for k in stride(from: -d, through: d, by: 2) {
                    var i = (k == -d || (k != d && v[max + k - 1] < v[max + k + 1])) ? v[max + k + 1] : v[max + k - 1] + 1
                    var j = i - k
                    while i < n, j < m, x[i] == y[j] { i += 1; j += 1 }
                    v[max + k] = i
                    if i >= n, j >= m { break search }
                }
            }
            // back from (n, m) through the saved frontiers
            var i = n, j = m
            for d in stride(from: trace.count - 1, through: 1, by: -1) {
                let v = trace[d]
                let k = i - j
                let down = k == -d || (k != d && v[max + k - 1] < v[max + k + 1])
                let prevK = down ? k + 1 : k - 1
                let prevI = v[max + prevK]
                let prevJ = prevI - prevK
                // the snake after the step, then the step itself
                while i > prevI + (down ? 0 : 1), j > prevJ + (down ? 1 : 0) { middle.append(.same); i -= 1; j -= 1 }
                middle.append(down ? .insert : .delete)
                i = prevI
                j = prevJ
            }
            while i > 0, j > 0 { middle.append(.same); i -= 1; j -= 1 }
            middle.reverse()
        }
        return Array(repeating: .same, count: head) + middle + Array(repeating: .same, count: tail)
    }
}
