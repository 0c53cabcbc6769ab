import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import TagwardenLint
import TagwardenReport
import TagwardenUpdate
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// An option's values, each named by its raw value. The argument parser's defaults name them by reflection
/// (`"\(value)"`): some 60,000 instructions a list, which it makes several times in every run, whatever the arguments.
protocol ArgumentChoice: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension ArgumentChoice {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
    /// (no value is described apart from its name)
    public static var allValueDescriptions: [String: String] { [:] }
    public var defaultValueDescription: String { rawValue }
}

extension ReportFormat: ArgumentChoice {}

/// The formats of the commands that print data rather than findings (`rules`, `env`, `policy eval`).
enum DataFormat: String, ArgumentChoice {
    case text, json
}

enum FailOn: String, ArgumentChoice {
    case error, warning, note, never
}

/// Where tags come from, for the commands that read them: a file, or the registries (with docker's credentials).
struct TagOptions: ParsableArguments {
    @Option(help: "The tags: a file, or - for standard input.")
    var tags: String?

    @Flag(help: "Read the tags from the registries the ImageRepositories name (OCI distribution API), with docker's credentials.")
    var registry = false

    @OptionGroup var access: RegistryAccess

    func validate() throws {
        if (tags == nil) == !registry { throw ValidationError("give the tags: --tags FILE (or - for standard input), or --registry") }
        if !registry && access.given {
            throw ValidationError("--registry-config, --ca-file, --registry-time-limit and --allow-insecure-credentials go with --registry")
        }
    }
}

/// How the registries are reached: docker's credentials and the certificates to trust.
struct RegistryAccess: ParsableArguments {
    @Option(help: "docker's config.json to take registry credentials from (default: DOCKER_CONFIG, else ~/.docker).")
    var registryConfig: String?

    @Option(help: "A CA bundle to trust besides the system's (a private registry's certificate).")
    var caFile: String?

    @Option(help: "The time all registry work of the run may take (e.g. 10m, the default; 90s, 1h).")
    var registryTimeLimit: String = "10m"

    @Flag(help: "Send registry credentials over plain HTTP to a host other than this machine (an ImageRepository with insecure: true); without it they are never sent in clear.")
    var allowInsecureCredentials = false

    var given: Bool { registryConfig != nil || caFile != nil || registryTimeLimit != "10m" || allowInsecureCredentials }

    func validate() throws {
        if GoDuration.nanoseconds(registryTimeLimit) == nil { throw ValidationError("--registry-time-limit must be a duration like 10m, 90s or 1h") }
    }

    /// The credentials, and a client that uses them, within the run's time limit (and `rate` requests a second per host).
    func client(rate: Double = 0) throws -> (credentials: DockerCredentials, client: RegistryClient) {
        var loaded = try DockerCredentials.load(path: registryConfig)
        let timeLimit = GoDuration.nanoseconds(registryTimeLimit).map { Double($0) / 1e9 }
        let limits = RegistryLimits(rate: rate, timeLimit: timeLimit)
        loaded.helperTimeout = min(loaded.helperTimeout, timeLimit ?? .infinity)
        let credentials = loaded
        return (credentials, try RegistryClient(caFile: caFile, limits: limits, allowInsecureCredentials: allowInsecureCredentials) {
            credentials.credential(for: $0)
        })
    }
}

/// Options of every linting command.
struct CommonOptions: ParsableArguments {
    @Option(help: "Output format: text, json, sarif, github, markdown, gitlab (GitLab's Code Quality report) or junit (JUnit XML).")
    var format: ReportFormat = .text

    @Option(help: "Start from a built-in profile of environment guardrails (strict).")
    var profile: String?

    @Option(name: .shortAndLong, help: "Write the report to FILE (atomically) instead of standard output ('-': standard output).")
    var output: String?

    /// The file to write, nil for standard output.
    var outputFile: String? { output == "-" ? nil : output }

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml from PATH up to the repository root, if any).")
    var config: String?

    @Option(help: "Exit 1 when a finding is at or above this severity: error, warning, note or never.")
    var failOn: FailOn = .error

    @Option(help: "Skip manifest files larger than this (e.g. 10MiB, the default).")
    var maxFileSize: String?

    @Flag(help: "Never colour the text report (NO_COLOR is honoured too).")
    var noColor = false

    @Flag(name: .shortAndLong, help: "Text report without the header and, when clean, without the summary.")
    var quiet = false

    @Option(help: "Leave out the findings this baseline file holds (default: .tagwarden-baseline.json beside the config in force, if there is one; tagwarden baseline writes it).")
    var baseline: String?

    @Flag(help: "Report every finding, whatever a baseline holds.")
    var noBaseline = false

    var baselineChoice: BaselineChoice { noBaseline ? .off : baseline.map { .file($0) } ?? .beside }

    func validate() throws {
        if noBaseline && baseline != nil { throw ValidationError("give --baseline FILE or --no-baseline, not both") }
        if let p = profile, p != "strict" { throw ValidationError("unknown profile '\(p)'; known profiles: strict") }
        if let m = maxFileSize, Config.parseSize(m) == nil { throw ValidationError("--max-file-size must be a size like 10MiB, 512K or 1048576 (K, M, G count in 1024s)") }
        if let n = maxFileSizeBytes, n > Config.largestFileSize { throw ValidationError(Config.largestFileSizeMessage("--max-file-size")) }
    }

    var maxFileSizeBytes: Int? { maxFileSize.flatMap(Config.parseSize) }

    /// A progress line while staging's history is read (a cold cache on a long history), on a terminal only.
    var historyProgress: History.Progress? {
        guard !quiet, isatty(STDERR_FILENO) == 1 else { return nil }
        return { read, of in
            writeAll(STDERR_FILENO, read == of ? "\r\u{1B}[K" : "\rtagwarden: reading staging's history: \(read) of \(of) commits\u{1B}[K")
        }
    }

    func useColor() -> Bool {
        format == .text && outputFile == nil && !noColor && getenv("NO_COLOR") == nil && isatty(STDOUT_FILENO) == 1
    }

    /// Writes the report and returns the exit code that `--fail-on` asks for.
    func emit(_ report: AuditReport) throws -> Int32 {
        if getenv("TAGWARDEN_TIMINGS") != nil {
            for t in report.ruleTimings.sorted(by: { $0.seconds > $1.seconds }) {
                writeStderr("timing \(t.rule) \(Int((t.seconds * 1e6).rounded())) us\n")
            }
        }
        let text = Reports.render(report, format: format, color: useColor(), quiet: quiet)
        if let outputFile { try writeFileAtomically(outputFile, text) } else { writeStdout(text) }
        Timings.mark("report")
        if getenv("TAGWARDEN_TIMINGS") != nil {
            writeStderrLines(Timings.lines())
        }
        let threshold: Severity?
        switch failOn {
        case .error: threshold = .error
        case .warning: threshold = .warning
        case .note: threshold = .note
        case .never: threshold = nil
        }
        guard let threshold else { return 0 }
        return report.findings.contains { $0.severity >= threshold } ? 1 : 0
    }
}

func writeAll(_ fd: Int32, _ s: String) { _ = TagwardenBasics.writeAll(fd, Array(s.utf8)) }

func writeStdout(_ s: String) { writeAll(STDOUT_FILENO, s) }

/// A message on standard error: one line, whatever repository content it quotes (`Escape.text`).
func writeStderr(_ s: String) {
    let body = s.hasSuffix("\n") ? String(s.dropLast()) : s
    writeAll(STDERR_FILENO, Escape.text(body) + "\n")
}

/// Text of several lines on standard output (not a report, whose renderers escape what they quote): each line
/// escaped, so that no line repository content makes can drive the terminal or start a workflow command.
func writeStdoutLines(_ s: String) { writeAll(STDOUT_FILENO, Escape.lines(s)) }

/// The same on standard error (the usage text that comes with an argument error).
func writeStderrLines(_ s: String) { writeAll(STDERR_FILENO, Escape.lines(s)) }

/// Ends the process with `code`, its output written, holding `kept` (the models and reports) to the end: torn down object
/// by object, a large repository's cost tens of millions of instructions on one core; the process frees them whole.
func exitKeeping<T>(_ kept: T, code: Int32) -> Never {
    withExtendedLifetime(kept) { Glibc.exit(code) }
}

/// Runs a command body: tool errors become exit code 2 with a one-line message, never a trace.
func guarded(_ body: () throws -> Int32) throws {
    let code: Int32
    do {
        code = try body()
    } catch let e as TagwardenError {
        writeStderr("tagwarden: error: \(e.message)\n")
        throw ExitCode(2)
    }
    if code != 0 { throw ExitCode(code) }
}
