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

struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Lint a working tree, or the tree of a commit.",
        discussion: """
        PATH (default ".") selects the repository that contains it; a path inside the repository limits what is \
        reported to that subtree, while policies, repositories and automations are always resolved over the whole tree. \
        Outside any git repository PATH is linted as a plain directory.

        Examples:
          tagwarden audit
          tagwarden audit apps/production --format json
          tagwarden audit --rev v1.4.0 --format sarif --output tagwarden.sarif
          tagwarden audit --no-baseline     (every finding, also those .tagwarden-baseline.json holds)
          tagwarden audit --registry        (adds image-tag-missing, image-digest-mismatch, marker-behind,
                                             promotion-overwritten, registry-unreachable)
        """
    )

    @Argument(help: "A directory or file in the repository.")
    var path: String = "."

    @Option(help: "Lint the tree of this commit-ish (a sha, branch, tag, HEAD~3 …) from the object database, without checkout.")
    var rev: String?

    @OptionGroup var options: CommonOptions

    @Flag(help: "Also ask the registries (OCI distribution API, docker's credentials): tags that do not exist, pins that are not the tag's digest, markers behind their policy. Off by default: the audit stays offline.")
    var registry = false

    @Option(help: "Judge the registry rules against a tag file instead of the registries (the format of update --tags; - for standard input).")
    var tags: String?

    @Flag(help: "With --registry or --tags: an image whose registry could not be asked is an error (registry-unreachable), not a warning.")
    var registryRequired = false

    @OptionGroup var access: RegistryAccess

    func validate() throws {
        if registryRequired && !registry && tags == nil { throw ValidationError("--registry-required goes with --registry or --tags") }
        if !registry && access.given { throw ValidationError("--registry-config, --ca-file, --registry-time-limit and --allow-insecure-credentials go with --registry") }
        if registry && tags != nil { throw ValidationError("give --registry or --tags, not both") }
    }

    /// What the registries say about the model's images, for `--registry`; notes and a count on standard error.
    func registryFacts(_ model: Model) throws -> RegistryFacts? {
        if let tags {
            let file = try Update.readTags(tags)
            let facts = RegistryAudit.facts(model, tags: file)
            if !options.quiet { for note in facts.notes { writeStderr("tagwarden: note: \(note)\n") } }
            return facts
        }
        guard registry else { return nil }
        let (credentials, client) = try access.client()
        // listed now (a listing the registry refuses falls back to the cache, with a note): the audit says what is true now
        let source = RegistryTagSource(model: model, client: client, credentials: credentials, cache: TagCache.user(), ttl: 0)
        let facts = RegistryAudit.facts(model, tags: source)
        if !options.quiet {
            for note in source.notes + facts.notes { writeStderr("tagwarden: note: \(note)\n") }
            writeStderr("tagwarden: registries: \(facts.tags.count) tags looked up, \(source.listed) repositories listed, \(source.cached) from the cache; "
                        + "\(source.requests) requests, \(source.retries) retried\n")
        }
        return facts
    }

    func run() throws {
        try guarded {
            Timings.mark("start")
            var ws = try Workspace.open(path: path, configPath: options.config, rev: rev, knownRules: Catalogue.ids)
            if registryRequired { ws.config.rules["registry-unreachable", default: RuleSetting()].severity = .error }
            ws.historyProgress = options.historyProgress
            let snapshot = try ws.snapshot(rev: rev, maxFileSize: options.maxFileSizeBytes)
            if !options.quiet { for note in snapshot.notes { writeStderr("tagwarden: note: \(note)\n") } }
            let tip = rev ?? ((ws.repo?.hasHead ?? false) ? "HEAD" : nil)
            var report = try ws.audit(snapshot, profile: options.profile, historyFrom: tip, registry: registryFacts)
            let told: [String]
            (report, told) = try ws.leavingOutBaseline(report, options.baselineChoice, from: rev.map { .commit($0) } ?? .workTree,
                                                      prefix: ws.prefix, judgesStale: true)
            if !options.quiet { for note in told { writeStderr("tagwarden: note: \(note)\n") } }
            let code = try options.emit(report)
            if report.summary.files == 0, !ws.prefix.isEmpty, !options.quiet {
                // say why a path that was asked for holds nothing to lint
                let ignored = rev == nil && (ws.repo.map { $0.isIgnored(ws.prefix) || $0.isIgnored(ws.prefix + "/") } ?? false)
                var st = stat()
                let isDirectory = stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
                writeStderr(ignored ? "tagwarden: note: \(path) is ignored by git and not tracked, so it is not linted\n"
                            : isDirectory ? "tagwarden: note: no *.yaml, *.yml or Kustomization file under \(path)\n"
                            : "tagwarden: note: \(path) is not a *.yaml, *.yml or Kustomization file\n")
            }
            exitKeeping(report, code: code)
        }
    }
}
