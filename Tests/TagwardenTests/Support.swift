#if canImport(Glibc)
import Glibc
#endif
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

func listDirectory(_ path: String) throws -> [String] { try FileSystem.directoryEntries(path) }

func readText(_ path: String) throws -> String {
    switch FileSystem.readFile(path, limit: 1 << 26) {
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
