#if canImport(Glibc)
import Glibc
#endif
import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// A container image reference parsed by the distribution reference grammar
/// (`[host[:port]/]path[:tag][@algorithm:hex]`).
public struct ImageReference: Sendable, Hashable {
    /// The registry host as written (with port), or nil when the reference names none.
    public private(set) var domain: String?
    /// The repository path as written.
    public private(set) var path: String
    public private(set) var tag: String?
    public private(set) var digest: String?
    /// Everything before the tag and digest, as written: `domain/path`, or `path`. (Kept, not composed: most
    /// names are also their own normalised name, which then shares its storage.)
    public let name: String

    /// Docker Hub normalisation, for comparing names: `nginx` = `docker.io/library/nginx` = `index.docker.io/nginx`
    /// (as distribution's ParseNormalizedNamed has it), and = `registry-1.docker.io/library/nginx`, the Hub's registry
    /// named directly, where no `library/` is implied (`registry-1.docker.io/nginx` is another name).
    public var normalizedName: String {
        let d = domain ?? "docker.io"
        if d == "registry-1.docker.io" { return "docker.io/\(path)" }
        guard d == "docker.io" || d == "index.docker.io" else { return name }
        return "docker.io/" + (path.contains("/") ? path : "library/" + path)
    }

    public var description: String {
        var s = name
        if let tag { s += ":" + tag }
        if let digest { s += "@" + digest }
        return s
    }

    public enum ParseError: Error, Sendable, Equatable {
        case empty
        case invalid(String)
    }

    public static func normalizeName(_ name: String) -> String? {
        guard case .success(let r) = parse(name), r.tag == nil, r.digest == nil else { return nil }
        return r.normalizedName
    }

    public static func parse(_ text: String) -> Result<ImageReference, ParseError> {
        if text.isEmpty { return .failure(.empty) }
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Result<ImageReference, ParseError> {
        func str(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self) }
        // 64 hex characters alone are an image ID, which runtimes refuse to read as a repository name
        if b.count == 64, b.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) {
            return .failure(.invalid("64 hexadecimal characters are an image ID, not a repository name"))
        }
        var end = b.count
        var digest: String?
        if let at = b.firstIndex(of: UInt8(ascii: "@")) {
            let d = str((at + 1)..<b.count)
            if let problem = checkDigest(d) { return .failure(.invalid(problem)) }
            digest = d
            end = at
        }
        // the tag follows the last ':' that comes after the last '/'
        var lastColon = -1
        for i in 0..<end {
            if b[i] == UInt8(ascii: "/") { lastColon = -1 } else if b[i] == UInt8(ascii: ":") { lastColon = i }
        }
        var tag: String?
        if lastColon >= 0 {
            let t = (lastColon + 1)..<end
            if t.isEmpty { return .failure(.invalid("the tag after ':' is empty")) }
            if t.count > 128 { return .failure(.invalid("the tag is longer than 128 characters")) }
            guard isTag(b[t]) else {
                return .failure(.invalid("tag '\(str(t))' has characters outside [A-Za-z0-9_.-] or starts with '.' or '-'"))
            }
            tag = str(t)
            end = lastColon
        }
        if end == 0 { return .failure(.invalid("the repository name is empty")) }
        var pathStart = 0
        var domain: String?
        if let firstSlash = b[..<end].firstIndex(of: UInt8(ascii: "/")) {
            let first = b[0..<firstSlash]
            let isDomain = first.contains(UInt8(ascii: ".")) || first.contains(UInt8(ascii: ":"))
                || first.elementsEqual("localhost".utf8) || first.contains(where: { $0 >= 65 && $0 <= 90 })
            if isDomain {
                let d = str(0..<firstSlash)
                if let problem = checkDomain(UnsafeBufferPointer(rebasing: first), d) { return .failure(.invalid(problem)) }
                domain = d
                pathStart = firstSlash + 1
            }
        }
        var compStart = pathStart
        for i in pathStart...end where i == end || b[i] == UInt8(ascii: "/") {
            if let problem = checkPathComponent(UnsafeBufferPointer(rebasing: b[compStart..<i])) { return .failure(.invalid(problem)) }
            compStart = i + 1
        }
        let path = str(pathStart..<end)
        let reference = ImageReference(domain: domain, path: path, tag: tag, digest: digest, name: domain == nil ? path : str(0..<end))
        // the limit is on the name as the runtime completes it: `nginx` is docker.io/library/nginx
        let full = domain == nil || domain == "index.docker.io" ? reference.normalizedName.utf8.count : end
        if full > 255 { return .failure(.invalid("the repository name is longer than 255 characters (\(full) as \(domain == nil ? "Docker Hub's" : "the runtime's") full name)")) }
        return .success(reference)
    }

    /// Whether `s` is a tag: the grammar `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`.
    package static func isTag(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { isTag($0) }   // (over the bytes in place: the generic form, called across modules, is not specialised)
    }

    static func isTag<C: Collection<UInt8>>(_ b: C) -> Bool {
        guard let first = b.first, isWordByte(first), b.count <= 128 else { return false }
        return b.allSatisfy { isWordByte($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95
    }

    /// Why `d` is not a digest (`sha256:`, `sha384:` or `sha512:` and lower-case hexadecimal of the algorithm's length); nil when it is.
    package static func checkDigest(_ d: String) -> String? {
        var bytes = d
        return bytes.withUTF8 { b in
            guard let colon = b.firstIndex(of: UInt8(ascii: ":")) else { return "digest '\(d)' has no algorithm (expected sha256:<hex>)" }
            let alg = UnsafeBufferPointer(rebasing: b[..<colon])
            let hex = b[(colon + 1)...]
            let want: Int
            // (compared in place, not as a generic sequence of a String's UTF-8)
            func named(_ s: StaticString) -> Bool { alg.count == s.utf8CodeUnitCount && memcmp(alg.baseAddress!, s.utf8Start, alg.count) == 0 }
            if named("sha256") { want = 64 }
            else if named("sha384") { want = 96 }
            else if named("sha512") { want = 128 }
            else { return "digest algorithm '\(String(decoding: alg, as: UTF8.self))' is not one of sha256, sha384, sha512" }
            var name: String { String(decoding: alg, as: UTF8.self) }
            guard hex.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else {
                return "\(name) digest must be lower-case hexadecimal"
            }
            if hex.count != want {
                return "\(name) digest must have \(want) hex digits, not \(hex.count)"
            }
            return nil
        }
    }

    /// `host[:port]` or `[ipv6][:port]`: `b` is `domain`'s UTF-8.
    static func checkDomain(_ b: UnsafeBufferPointer<UInt8>, _ domain: String) -> String? {
        func isDigits(_ s: Slice<UnsafeBufferPointer<UInt8>>) -> Bool { !s.isEmpty && s.allSatisfy { $0 >= 48 && $0 <= 57 } }
        if b.first == UInt8(ascii: "[") {
            guard let close = b.firstIndex(of: UInt8(ascii: "]")) else { return "registry '\(domain)' has an unterminated IPv6 address" }
            let after = b[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":"), isDigits(after.dropFirst()) else {
                    return "registry port in '\(domain)' is not a number"
                }
            }
            return nil
        }
        var hostEnd = b.count
        if let colon = b.lastIndex(of: UInt8(ascii: ":")) {
            guard isDigits(b[(colon + 1)...]) else { return "registry port in '\(domain)' is not a number" }
            hostEnd = colon
        }
        // each label between dots: letters, digits and '-', neither first nor last
        var labelStart = 0
        for i in 0...hostEnd where i == hostEnd || b[i] == UInt8(ascii: ".") {
            guard i > labelStart, isAlnum(b[labelStart]), isAlnum(b[i - 1]),
                  b[labelStart..<i].allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "-") }) else {
                return "registry host '\(domain)' is not a valid host name"
            }
            labelStart = i + 1
        }
        return nil
    }

    static func isAlnum(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
    }

    /// path-component := [a-z0-9]+ ((\.|_|__|-+)[a-z0-9]+)*
    static func checkPathComponent(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        var c: String { String(decoding: b, as: UTF8.self) }
        if b.isEmpty { return "the repository path has an empty component" }
        if b.contains(where: { $0 >= 65 && $0 <= 90 }) {
            return "repository path '\(c)' must be lower case"
        }
        func lowerAlnum(_ x: UInt8) -> Bool { (x >= 48 && x <= 57) || (x >= 97 && x <= 122) }
        var i = 0
        guard lowerAlnum(b[0]) else { return "repository path component '\(c)' must start with a letter or digit" }
        while i < b.count {
            if lowerAlnum(b[i]) { i += 1; continue }
            // a separator
            let sepStart = i
            if b[i] == UInt8(ascii: ".") { i += 1 }
            else if b[i] == UInt8(ascii: "_") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "_") { i += 1 }
            } else if b[i] == UInt8(ascii: "-") {
                while i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
            } else {
                let lead = b[i]   // name the whole character, not its first byte
                let len = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                return "repository path '\(c)' contains '\(String(decoding: b[i..<min(i + len, b.count)], as: UTF8.self))'"
            }
            guard i < b.count, lowerAlnum(b[i]), i > sepStart else {
                return "repository path component '\(c)' has a misplaced separator"
            }
        }
        return nil
    }
}

extension Character {
    package var isASCIIDigit: Bool { isASCII && isNumber }
}
