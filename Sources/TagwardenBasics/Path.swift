#if canImport(Glibc)
import Glibc
#endif

/// `/`-separated relative paths, as git and the report name files.
public enum Path {
    /// The last component of a `/`-separated path.
    public static func basename(_ p: String) -> String {
        var bytes = p
        return bytes.withUTF8 { b in
            lastSlash(b).map { String(decoding: UnsafeBufferPointer(rebasing: b[($0 + 1)...]), as: UTF8.self) }
        } ?? p
    }

    public static func dirname(_ p: String) -> String {
        if p.isEmpty { return "" }   // (the extractor's scratch facts, twice a file: not worth a look at the bytes)
        var p = p
        return p.withUTF8 { b in
            guard let slash = lastSlash(b) else { return "" }
            return String(decoding: UnsafeBufferPointer(rebasing: b[..<slash]), as: UTF8.self)
        }
    }

    /// Whether `path` names an entry of directory `dir` itself ("" the root), not one below it: `dirname(path) == dir`
    /// for a path that ends in a name, without making the directory's string.
    public static func isDirectlyIn(_ path: String, _ dir: String) -> Bool {
        var p = path, d = dir
        return p.withUTF8 { b in
            d.withUTF8 { dir in
                let slash = lastSlash(b)
                guard (slash.map { $0 + 1 } ?? 0) < b.count else { return false }
                guard let slash else { return dir.isEmpty }
                // (memcmp: with the generic `elementsEqual` a call cost nine hundred instructions, three hundred now)
                return slash == dir.count && (slash == 0 || memcmp(b.baseAddress!, dir.baseAddress!, slash) == 0)
            }
        }
    }

    /// Whether `path` is below directory `dir` ("" the root: every path), compared by bytes as Go compares paths
    /// (`strings.HasPrefix(path, dir+"/")`), without making `dir + "/"`.
    public static func isBelow(_ path: String, _ dir: String) -> Bool {
        if dir.isEmpty { return true }
        var p = path, d = dir
        return p.withUTF8 { b in
            d.withUTF8 { dir in
                b.count > dir.count && b[dir.count] == UInt8(ascii: "/") && memcmp(b.baseAddress!, dir.baseAddress!, dir.count) == 0
            }
        }
    }

    /// The offset of the last `/`.
    private static func lastSlash(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = b.count - 1
        while i >= 0 {
            if b[i] == UInt8(ascii: "/") { return i }
            i -= 1
        }
        return nil
    }
}
