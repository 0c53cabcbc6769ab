/// Hexadecimal digits of `v`, at least `width` of them (zeros in front): the one way Tagwarden writes `\x1B`,
/// `\u00e9`, `%2F` and fingerprints.
public func hexDigits(_ v: some BinaryInteger, width: Int, uppercase: Bool = false) -> String {
    let digits = String(v, radix: 16, uppercase: uppercase)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// `s` with every byte but ASCII letters, digits and `-._~` (and those of `keeping`) written `%XX`, as a URI
/// component: a SARIF artifact URI keeps `/`, a query or form value does not.
public func percentEncoded(_ s: String, keeping: String = "") -> String {
    let extra = Array(keeping.utf8)
    var out = ""
    for b in s.utf8 {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(b))
        default:
            if extra.contains(b) { out.unicodeScalars.append(Unicode.Scalar(b)) } else { out += "%" + hexDigits(b, width: 2, uppercase: true) }
        }
    }
    return out
}
