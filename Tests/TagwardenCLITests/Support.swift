import Foundation
import Synchronization
import Testing

/// The built `tagwarden` binary, next to this test bundle.
let binary: String = {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return exe.deletingLastPathComponent().appendingPathComponent("tagwarden").path
}()

let packageRoot: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}()

/// A value one thread writes and another reads, behind a lock the compiler checks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}

/// What a process printed and how it ended. Reading `json`, `findings` or `findingObjects` records a test failure
/// (at the line that ran the process) when standard output is not a JSON report (a JSON object holding a `findings`
/// array): a crash or an error message never passes for "no findings". `sarif` does the same for a SARIF log.
struct RunResult {
    var stdout: String
    var stderr: String
    var code: Int32
    /// The process was killed by a signal (`code` is then the signal's number).
    var signalled = false
    /// Where the process was run: failures about its output are recorded there.
    var sourceLocation: SourceLocation
    private let parsed: ParsedOutput

    init(stdout: String, stderr: String, code: Int32, signalled: Bool = false, sourceLocation: SourceLocation) {
        self.stdout = stdout
        self.stderr = stderr
        self.code = code
        self.signalled = signalled
        self.sourceLocation = sourceLocation
        parsed = ParsedOutput(stdout)
    }

    /// The JSON report on standard output.
    var json: [String: Any] { parsed.object(holding: "findings", of: self) }

    /// The SARIF log on standard output.
    var sarif: [String: Any] { parsed.object(holding: "runs", of: self) }

    /// `rule file:line:column` of every finding in a JSON report.
    var findings: [String] {
        findingObjects.map { "\($0["rule"]!) \($0["file"]!):\($0["line"]!):\($0["column"]!)" }
    }

    var findingObjects: [[String: Any]] { json["findings"] as? [[String: Any]] ?? [] }

    /// How the process ended and the start of what it printed, for a failure's message.
    var described: String {
        "\(signalled ? "killed by signal" : "exit code") \(code)\nstdout: \(stdout.prefix(2_000))\nstderr: \(stderr.prefix(2_000))"
    }
}

/// Standard output parsed once; a failure recorded once per result.
private final class ParsedOutput {
    let object: [String: Any]?
    var recorded = false

    init(_ stdout: String) {
        object = stdout.first == "{" ? (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] : nil
    }

    func object(holding key: String, of result: RunResult) -> [String: Any] {
        if let object, object[key] is [Any] { return object }
        if !recorded {
            recorded = true
            Issue.record("standard output is not a JSON object holding a '\(key)' array: \(result.described)", sourceLocation: result.sourceLocation)
        }
        return [:]
    }
}

@discardableResult
func run(_ executable: String, _ args: [String], cwd: String, env: [String: String] = [:], stdin: String? = nil,
         sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
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
    let errData = Locked(Data())
    let group = DispatchGroup()
    group.enter()
    let errHandle = err.fileHandleForReading
    DispatchQueue.global().async {
        errData.value = errHandle.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    p.waitUntilExit()
    return RunResult(stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData.value, as: UTF8.self),
                     code: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal, sourceLocation: sourceLocation)
}

/// Runs the built binary. Its death by a signal (a crash, an abort) is a test failure: no test expects one.
func tagwarden(_ args: [String], in dir: String, env: [String: String] = [:], stdin: String? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
    let res = try run(binary, args, cwd: dir, env: env, stdin: stdin, sourceLocation: sourceLocation)
    recordDeath(of: res, running: args)
    return res
}

    /// The binary under `prlimit`: killed (and the test failing on its exit code) past `seconds` of CPU or
/// `megabytes` of address space; `/usr/bin/time` reports the peak resident memory, which must stay under
/// `rssMB`.
/// Under a sanitizer (`scripts/sanitize`) the bounds of memory are not the binary's own and are left out, and CPU
/// time gets ten times as long.
func bounded(_ args: [String], in dir: String, seconds: Int = 60, megabytes: Int = 3000, rssMB: Int? = nil,
             env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
    let rssFile = dir + "/.rss-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: rssFile) }
    // under a sanitizer: no address-space bound (the shadow memory is reserved up front), and the CPU bound fifty times
    // as long: the audit of 2,000 unknown markers against 2,000 policies takes 0.3 s of CPU in release, 32 s in the
    // AddressSanitizer debug build, and over 400 s (ten times its bound) with scripts/sanitize's full stack unwinding
    // at every allocation, which tells libgit2's own leaks from a handle of ours
    let limits = sanitized ? ["--cpu=\(seconds * 50)"] : ["--cpu=\(seconds)", "--as=\(megabytes << 20)"]
    let r = try run("/usr/bin/prlimit", limits + ["/usr/bin/time", "-o", rssFile, "-f", "%M", binary] + args,
                    cwd: dir, env: env, sourceLocation: sourceLocation)
    if let rssMB, !sanitized {
        let text = (try? String(contentsOfFile: rssFile, encoding: .utf8)) ?? ""
        let kb = Int(text.split(separator: "\n").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? Int.max
        #expect(kb < rssMB << 10, "peak resident memory \(kb) KB, bound \(rssMB) MB", sourceLocation: sourceLocation)
    }
    return r
}

/// The suite runs under a sanitizer (`scripts/sanitize` says so).
let sanitized = ProcessInfo.processInfo.environment["TAGWARDEN_SANITIZER"] != nil

/// Records a test failure when the process of `res` was killed by a signal.
func recordDeath(of res: RunResult, running args: [String]) {
    if res.signalled {
        Issue.record("tagwarden \(args.joined(separator: " ")) died: \(res.described)", sourceLocation: res.sourceLocation)
    }
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

    /// Writes every file of `files` (path → text).
    func write(_ files: [String: String]) throws {
        for (rel, text) in files.sorted(by: { $0.key < $1.key }) { try write(rel, text) }
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

    func audit(_ args: String..., env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        try tagwarden(["audit"] + args, in: path, env: env, sourceLocation: sourceLocation)
    }
}

/// `.tagwarden.yaml`'s `clusters:` declaring one cluster that applies every file, as a repository that describes no
/// cluster of its own (applied from elsewhere) declares it: its findings are then facts, not warnings that say no
/// cluster here applies the file.
let oneClusterConfig = "clusters:\n  - name: applied\n    paths: [\"**\"]\n"

extension TempRepo {
    /// Writes `.tagwarden.yaml`: `oneClusterConfig`, then `more`.
    func declareOneCluster(_ more: String = "") throws {
        try write(".tagwarden.yaml", oneClusterConfig + more)
    }
}
