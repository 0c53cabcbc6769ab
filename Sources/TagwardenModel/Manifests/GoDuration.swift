import TagwardenBasics

/// Go's `time.Duration` as Flux's CRDs write it.
package enum GoDuration {
    /// The nanoseconds of a duration that matches the CRD pattern (or `0`), with Go's `time.ParseDuration` arithmetic
    /// (integer parts must not overflow; a fraction's excess digits are dropped); nil where Go reports overflow.
    package static func nanoseconds(_ s: String) -> UInt64? {
        if s == "0" { return 0 }
        let b = Array(s.utf8)
        guard !b.isEmpty else { return nil }
        let limit: UInt64 = 1 << 63
        var i = 0
        var total: UInt64 = 0
        while i < b.count {
            let start = i
            var v: UInt64 = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if v > limit / 10 { return nil }
                v = v * 10 + UInt64(b[i] - 48)
                if v > limit { return nil }
                i += 1
            }
            var f: UInt64 = 0, scale = 1.0, dropping = false
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                while i < b.count, b[i] >= 48, b[i] <= 57 {
                    defer { i += 1 }
                    if dropping { continue }
                    if f > (limit - 1) / 10 { dropping = true; continue }
                    let y = f * 10 + UInt64(b[i] - 48)
                    if y > limit { dropping = true; continue }
                    f = y
                    scale *= 10
                }
            }
            // a number before each unit (`h` alone is none)
            guard i > start, b[start] != UInt8(ascii: ".") || i > start + 1 else { return nil }
            let unit: UInt64
            if i + 1 < b.count, b[i] == UInt8(ascii: "m"), b[i + 1] == UInt8(ascii: "s") { unit = 1_000_000; i += 2 }
            else if i < b.count, b[i] == UInt8(ascii: "s") { unit = 1_000_000_000; i += 1 }
            else if i < b.count, b[i] == UInt8(ascii: "m") { unit = 60_000_000_000; i += 1 }
            else if i < b.count, b[i] == UInt8(ascii: "h") { unit = 3_600_000_000_000; i += 1 }
            else { return nil }
            if v > limit / unit { return nil }
            v *= unit
            if f > 0 {
                v += UInt64(Double(f) * (Double(unit) / scale))
                if v > limit { return nil }
            }
            total &+= v   // Go's uint64 wraps here too
            if total > limit { return nil }
        }
        return total > limit - 1 ? nil : total
    }
}
