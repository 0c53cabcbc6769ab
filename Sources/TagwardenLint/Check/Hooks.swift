import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
#if canImport(Glibc)
import Glibc
#endif

/// Installs the pre-commit hook where git will run it: `core.hooksPath` when set, else the common git
/// directory's `hooks/` (shared by linked worktrees).
public enum HookInstaller {
    static let marker = "# tagwarden-hook"

    public static func hooksDirectory(_ repo: GitRepository) -> String {
        if var p = repo.configString("core.hooksPath"), !p.isEmpty {
            if p.hasPrefix("~/"), let home = getenv("HOME") { p = String(cString: home) + String(p.dropFirst(1)) }
            if !p.hasPrefix("/") {
                let base = repo.workdir ?? repo.gitDir
                p = (base.hasSuffix("/") ? base : base + "/") + p
            }
            return p
        }
        let common = repo.commonDir
        return (common.hasSuffix("/") ? common : common + "/") + "hooks"
    }

    /// The hook as installed: hooks/pre-commit with the installing binary as the last fallback.
    public static func script(binary: String) -> String {
        Catalogue.preCommitHook.replacingOccurrences(of: "@TAGWARDEN_PATH@", with: binary) + "\n"
    }

    static func read(_ path: String) -> String? {
        guard case .success(let b) = FileSystem.readFile(path, limit: 1 << 20) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Writes the hook; refuses to replace a hook that is not Tagwarden's unless `force` (the old one is kept as `pre-commit.orig`).
    public static func install(_ repo: GitRepository, binary: String, force: Bool) throws -> String {
        let dir = hooksDirectory(repo)
        try makeDirectories(dir)
        let path = dir + "/pre-commit"
        var note = ""
        if exists(path) {
            let current = read(path) ?? ""
            if !current.contains(marker) {
                guard force else {
                    throw TagwardenError("\(path) exists and is not Tagwarden's hook; --force replaces it (keeping it as pre-commit.orig)")
                }
                guard rename(path, path + ".orig") == 0 else {
                    throw TagwardenError("cannot move \(path) aside: \(String(cString: strerror(errno)))")
                }
                note = " (the previous hook is kept as \(path).orig)"
            }
        }
        try writeFileAtomically(path, script(binary: binary))
        guard chmod(path, 0o755) == 0 else { throw TagwardenError("cannot make \(path) executable: \(String(cString: strerror(errno)))") }
        return "installed \(path)\(note)"
    }

    public static func uninstall(_ repo: GitRepository) throws -> String {
        let path = hooksDirectory(repo) + "/pre-commit"
        guard exists(path) else { return "no pre-commit hook at \(path)" }
        guard read(path)?.contains(marker) == true else {
            throw TagwardenError("\(path) is not Tagwarden's hook: left in place")
        }
        guard unlink(path) == 0 else { throw TagwardenError("cannot remove \(path): \(String(cString: strerror(errno)))") }
        if exists(path + ".orig") {
            _ = rename(path + ".orig", path)
            return "removed Tagwarden's hook and restored the previous one at \(path)"
        }
        return "removed \(path)"
    }

    static func makeDirectories(_ path: String) throws {
        var cur = ""
        for part in path.split(separator: "/") {
            cur += "/" + part
            if mkdir(cur, 0o755) != 0, errno != EEXIST {
                throw TagwardenError("cannot create \(cur): \(String(cString: strerror(errno)))")
            }
        }
    }
}
