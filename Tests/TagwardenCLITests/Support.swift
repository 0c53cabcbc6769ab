import Foundation
import Testing

/// The built `tagwarden` binary, next to this test bundle.
let binary: String = {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return exe.deletingLastPathComponent().appendingPathComponent("tagwarden").path
}()

let packageRoot: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}()

struct RunResult {
    var stdout: String
    var stderr: String
    var code: Int32

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
    }

    /// `rule file:line:column` of every finding in a JSON report.
    var findings: [String] {
        (json["findings"] as? [[String: Any]] ?? []).map {
            "\($0["rule"]!) \($0["file"]!):\($0["line"]!):\($0["column"]!)"
        }
    }

    var findingObjects: [[String: Any]] { json["findings"] as? [[String: Any]] ?? [] }
}

@discardableResult
func run(_ executable: String, _ args: [String], cwd: String, env: [String: String] = [:], stdin: String? = nil) throws -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = args
    p.currentDirectoryURL = URL(fileURLWithPath: cwd)
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = nil
    environment["GIT_DIR"] = nil
    environment["GIT_INDEX_FILE"] = nil
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
    try inp.fileHandleForWriting.close()
    // read both pipes fully before waiting, so a large output cannot block the child
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let group = DispatchGroup()
    group.enter()
    let errHandle = err.fileHandleForReading
    DispatchQueue.global().async {
        errBox.data = errHandle.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    let errData = errBox.data
    p.waitUntilExit()
    return RunResult(stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
                     code: p.terminationStatus)
}

func tagwarden(_ args: [String], in dir: String, env: [String: String] = [:], stdin: String? = nil) throws -> RunResult {
    try run(binary, args, cwd: dir, env: env, stdin: stdin)
}

/// A temporary directory, optionally a git repository, removed at deinit.
final class TempRepo {
    let path: String

    init(git: Bool = true) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tagwarden-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.resolvingSymlinksInPath().path
        if git {
            try self.git("init", "-q", "-b", "main")
            try self.git("config", "user.email", "test@example.com")
            try self.git("config", "user.name", "Test")
            try self.git("config", "commit.gpgsign", "false")
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ rel: String, _ content: String) throws {
        try write(rel, Data(content.utf8))
    }

    func write(_ rel: String, _ data: Data) throws {
        let url = URL(fileURLWithPath: path).appendingPathComponent(rel)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    func remove(_ rel: String) throws {
        try FileManager.default.removeItem(atPath: path + "/" + rel)
    }

    @discardableResult
    func git(_ args: String...) throws -> RunResult {
        let r = try run("/usr/bin/git", args, cwd: path)
        if r.code != 0 { throw NSError(domain: "git", code: Int(r.code), userInfo: [NSLocalizedDescriptionKey: "git \(args.joined(separator: " ")): \(r.stderr)"]) }
        return r
    }

    func commitAll(_ message: String) throws {
        try git("add", "-A")
        try git("commit", "-q", "-m", message)
    }

    func audit(_ args: String..., env: [String: String] = [:]) throws -> RunResult {
        try tagwarden(["audit"] + args, in: path, env: env)
    }
}

/// A Pod manifest with the given container images.
func pod(_ name: String, namespace: String? = nil, images: [String]) -> String {
    var s = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \(name)\n"
    if let namespace { s += "  namespace: \(namespace)\n" }
    s += "spec:\n  containers:\n"
    for (i, img) in images.enumerated() { s += "    - name: c\(i)\n      image: \(img)\n" }
    return s
}
