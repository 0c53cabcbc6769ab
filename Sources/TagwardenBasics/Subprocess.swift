#if canImport(Glibc)
import Glibc
#endif

/// Runs helper programs (a signer, a credential helper) with input, and collects what they print.
public enum Subprocess {
    public struct Output: Sendable {
        /// The exit status; 128 + the signal's number when a signal killed it.
        public let status: Int32
        public let stdout: [UInt8]
        public let stderr: [UInt8]
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
        /// It was killed for outliving its time or printing past its output limit.
        public var stopped: String? = nil
    }

    /// Runs `program` (looked up in PATH) with `arguments`, writing `input` to its standard input; `environment`
    /// entries are added to this process's. Past `timeout` seconds, or `maxOutput` bytes printed, it is killed and the
    /// output says why (`stopped`). Throws only when it cannot be started.
    public static func run(_ program: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:],
                           timeout: Double? = nil, maxOutput: Int = 64 << 20) throws -> Output {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw TagwardenError("cannot run \(program): \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in inPipe + outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        var env: [String: String] = [:]
        var e = environ
        while let entry = e.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            e += 1
        }
        for (k, v) in environment { env[k] = v }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        // its own process group: stopped, it is stopped with whatever it started (a helper's `sleep` holds no pipe of ours)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw TagwardenError("cannot run \(program): \(String(cString: strerror(rc)))")
        }
        // feed the input and drain both outputs together, so that no pipe fills and blocks the child
        var stdout: [UInt8] = [], stderr: [UInt8] = []
        var written = 0
        var inFD: Int32 = inPipe[1]
        if input.isEmpty { close(inFD); inFD = -1 } else { _ = fcntl(inFD, F_SETFL, fcntl(inFD, F_GETFL) | O_NONBLOCK) }
        var open: [Int32] = [outPipe[0], errPipe[0]]
        var buffer = [UInt8](repeating: 0, count: 65536)
        signal(SIGPIPE, SIG_IGN)
        let deadline = timeout.map { monotonicSeconds() + $0 }
        var stopped: String?
        while !open.isEmpty || inFD >= 0 {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if inFD >= 0 { fds.append(pollfd(fd: inFD, events: Int16(POLLOUT), revents: 0)) }
            let wait = deadline.map { Int32(max(0, min(60_000, ($0 - monotonicSeconds()) * 1000)).rounded(.up)) } ?? -1
            if let deadline, monotonicSeconds() >= deadline { stopped = "it did not finish within \(formatSeconds(timeout!))" }
            if stdout.count + stderr.count > maxOutput { stopped = "it printed more than \(maxOutput >> 20) MiB" }
            if stopped != nil {
                kill(-pid, SIGKILL)
                for fd in open + (inFD >= 0 ? [inFD] : []) { close(fd) }
                break
            }
            if poll(&fds, nfds_t(fds.count), wait) < 0 {
                if errno == EINTR { continue }
                break
            }
            for p in fds where p.revents != 0 {
                if p.fd == inFD {
                    let n = input.withUnsafeBytes { write(inFD, $0.baseAddress! + written, input.count - written) }
                    if n > 0 { written += n }
                    if n < 0, errno != EAGAIN, errno != EINTR { written = input.count }
                    if written >= input.count { close(inFD); inFD = -1 }
                    continue
                }
                let n = read(p.fd, &buffer, buffer.count)
                if n > 0 {
                    if p.fd == outPipe[0] { stdout += buffer[0..<n] } else { stderr += buffer[0..<n] }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(p.fd)
                    open.removeAll { $0 == p.fd }
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7f == 0
        return Output(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), stdout: stdout, stderr: stderr, stopped: stopped)
    }

    static func monotonicSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func formatSeconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
}
