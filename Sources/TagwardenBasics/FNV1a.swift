/// The 64-bit FNV-1a hash: fast, stable across runs and platforms, for fingerprints and cache keys (not for anything
/// an adversary chooses to collide).
public struct FNV1a {
    public private(set) var value: UInt64 = 0xcbf29ce484222325
    public init() {}
    public mutating func add(_ b: UInt8) {
        value ^= UInt64(b)
        value = value &* 0x100000001b3
    }
    public mutating func add(_ s: String) {
        for b in s.utf8 { add(b) }
    }
    /// The hash of `s`.
    public static func hash(_ s: String) -> UInt64 {
        var h = FNV1a()
        h.add(s)
        return h.value
    }
}
