#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// Whether this string's UTF-8 ends with `suffix`'s, as Go's `strings.HasSuffix` compares paths, kinds and groups:
    /// bytes, not Characters, from the last byte back. `hasSuffix` breaks graphemes and cost about 170 instructions a
    /// call, on paths the model asks about for every file.
    @inlinable
    package func hasBytesSuffix(_ suffix: StaticString) -> Bool {
        let n = suffix.utf8CodeUnitCount
        let wanted = UnsafeBufferPointer(start: suffix.utf8Start, count: n)
        return utf8.withContiguousStorageIfAvailable { b -> Bool in
            guard b.count >= n else { return false }
            var i = n - 1, j = b.count - 1
            while i >= 0 {
                if b[j] != wanted[i] { return false }
                i -= 1
                j -= 1
            }
            return true
        } ?? utf8.reversed().starts(with: wanted.reversed())
    }

    /// Whether the UTF-8 of `needle` occurs in this string's UTF-8 (byte search, no Character work). Mostly asked of
    /// names and short values (`${`), in the string's own storage: a copy's `withUTF8` and a generic search cost about
    /// 290 instructions a call.
    @inlinable
    package func containsBytes(_ needle: StaticString) -> Bool {
        let n = needle.utf8CodeUnitCount
        guard n > 0 else { return false }
        let wanted = UnsafeBufferPointer(start: needle.utf8Start, count: n)
        if let found = utf8.withContiguousStorageIfAvailable({ hay -> Bool in
            guard hay.count >= n, let base = hay.baseAddress else { return false }
            let last = hay.count - n
            var i = 0
            while i <= last {
                guard let p = memchr(base + i, Int32(wanted[0]), last - i + 1) else { return false }
                let at = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + at, needle.utf8Start, n) == 0 { return true }
                i = at + 1
            }
            return false
        }) {
            return found
        }
        var contiguous = self
        contiguous.makeContiguousUTF8()
        return contiguous.containsBytes(needle)
    }
}
