internal import CGit2
#if canImport(Glibc)
import Glibc
#endif

/// A git object id (SHA-1): 20 bytes held inline, a plain value that costs no allocation to copy, compare or hash.
public struct GitOID: Sendable, Hashable, CustomStringConvertible {
    /// The id as libgit2 holds it: pass `&copy.raw` where libgit2 wants a `git_oid *`.
    var raw: git_oid

    init(_ raw: git_oid) { self.raw = raw }

    /// The id libgit2 points at (an entry's, a commit's …); nil for a null pointer.
    init?(_ pointer: UnsafePointer<git_oid>?) {
        guard let pointer else { return nil }
        raw = pointer.pointee
    }

    /// Parses exactly 40 hex digits, either case; nil for anything else.
    public init?(hex: String) {
        var raw = git_oid()
        var utf8 = hex.utf8.makeIterator()
        let parsed: Bool = withUnsafeMutableBytes(of: &raw.id) { bytes in
            for i in 0..<20 {
                guard let hi = utf8.next().flatMap(Self.nibble), let lo = utf8.next().flatMap(Self.nibble) else { return false }
                bytes[i] = hi << 4 | lo
            }
            return utf8.next() == nil
        }
        guard parsed else { return nil }
        self.raw = raw
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The 40 lowercase hex digits.
    public var hex: String {
        withUnsafeBytes(of: raw.id) { bytes in
            String(unsafeUninitializedCapacity: 40) { out in
                for (i, b) in bytes.enumerated() {
                    out[2 * i] = Self.digit(b >> 4)
                    out[2 * i + 1] = Self.digit(b & 15)
                }
                return 40
            }
        }
    }

    @inline(__always) private static func digit(_ v: UInt8) -> UInt8 { v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10 }

    public var description: String { hex }

    /// The id of no object (all zeroes), as libgit2 reports an absent side.
    var isZero: Bool { withUnsafeBytes(of: raw.id) { $0.allSatisfy { $0 == 0 } } }

    public static func == (a: GitOID, b: GitOID) -> Bool {
        withUnsafeBytes(of: a.raw.id) { x in withUnsafeBytes(of: b.raw.id) { y in memcmp(x.baseAddress!, y.baseAddress!, 20) == 0 } }
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: raw.id) { hasher.combine(bytes: $0) }
    }
}
