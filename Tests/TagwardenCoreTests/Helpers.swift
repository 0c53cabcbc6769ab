#if canImport(Glibc)
import Glibc
#endif
@testable import TagwardenCore

func listDirectory(_ path: String) throws -> [String] {
    guard let d = opendir(path) else { throw TagwardenError("cannot list \(path)") }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name != "." && name != ".." { out.append(name) }
    }
    return out
}

func readText(_ path: String) throws -> String {
    switch Sources.readFile(path, limit: 1 << 26) {
    case .success(let b): return String(decoding: b, as: UTF8.self)
    case .failure(let e): throw e
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
