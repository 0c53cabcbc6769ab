import TagwardenBasics
import TagwardenGit
import TagwardenModel
import TagwardenLint
import TagwardenReport
import TagwardenUpdate
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

enum UpdateMode: String, EnumerableFlag {
    case dryRun, write, commit

    static func help(for value: UpdateMode) -> ArgumentHelp? {
        switch value {
        case .dryRun: "Show the changes as a unified diff and change nothing (the default)."
        case .write: "Write the changed files in place, atomically (refuses files with uncommitted changes unless --force)."
        case .commit: "Commit the changes on the automation's push branch with its commit template (the working tree is left alone unless the push branch is checked out)."
        }
    }
}

enum UpdateFormat: String, ArgumentChoice {
    case text, json, markdown
}

enum PushBranchModeArgument: String, ArgumentChoice {
    case stack, reset
    var mode: PushBranchMode { self == .stack ? .stack : .reset }
}

struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Run Flux's image update automation here: evaluate the ImagePolicies, rewrite the marked fields, show, write or commit the result.",
        discussion: """
        For each ImageUpdateAutomation (by namespace and name; --automation runs one), the ImagePolicies of its \
        namespace that its policySelector takes are evaluated against the tags given (--tags: a JSON or YAML file, \
        or - for standard input, mapping each ImageRepository spec.image to its tags, each a string or \
        {tag: ..., digest: sha256:...}). The fields marked with $imagepolicy under its update.path are rewritten as Flux \
        rewrites them — the same files, markers, values and quoting — but as edits of the original bytes: comments, \
        blank lines, ---, block scalars, CRLF and indentation stay exactly as they were.

        The diff goes to standard output (a patch git apply takes); the summary to standard error.

        Exit codes: 0 up to date, or the changes were written or committed; 1 an error (a policy an automation uses \
        selects no tag, an invalid reference); 2 usage, configuration or environment error; 3 (--dry-run) changes are \
        pending.

        Examples:
          tagwarden update --tags tags.yaml
          tagwarden update --tags tags.yaml --explain
          crane ls ghcr.io/acme/web | jq -R . | jq -s '{"ghcr.io/acme/web": .}' | tagwarden update --tags - --write
        """
    )

    @Argument(help: "A directory in the repository (the whole repository is updated).")
    var path: String = "."

    @OptionGroup var source: TagOptions

    @Option(help: "With --registry: how long listed tags stay fresh in the cache (e.g. 30m, the default; 90s, 2h).")
    var cacheTtl: String = "30m"

    @Flag(help: "With --registry: neither read nor write the tag cache.")
    var noCache = false

    @Flag(help: "With --registry: read tags from the cache only; no registry is asked.")
    var offline = false

    @Option(help: "With --registry: at most this many requests a second to one registry (0: no limit, the default).")
    var registryRate: Double = 0

    @Option(help: "Run only this automation, NAMESPACE/NAME.")
    var automation: String?

    @Option(help: "With --automation: run it only as this cluster's Flux does (a repository of several clusters runs an automation once per cluster that applies it).")
    var cluster: String?

    @Option(help: ArgumentHelp("Update only the fields of this image's policies (repeatable); the others are left alone.", valueName: "image"))
    var image: [String] = []

    @Flag(help: "Leave alone, with a note, the policies whose image the tag list does not mention (without it, each is an error).")
    var partial = false

    @Flag(help: ArgumentHelp("Write values the linter rejects at error (\(Update.guardingRules.sorted().joined(separator: ", "))); without it they are left as they are, with a warning."))
    var allowFindings = false

    @Flag var mode: UpdateMode = .dryRun

    @Flag(help: "With --write: write files that have uncommitted changes too.")
    var force = false

    @Flag(help: "With --commit: sign the commit as git does (gpg.format openpgp or ssh, user.signingKey); commit.gpgsign=true signs unasked.")
    var sign = false

    @Flag(help: "With --commit: push the push branch (SSH keys or agent; HTTPS with TAGWARDEN_GIT_TOKEN, GITHUB_TOKEN or git's credential helper).")
    var push = false

    @Flag(help: "With --push: open a pull request (GitHub, GITHUB_TOKEN) or merge request (GitLab, GITLAB_TOKEN) for each pushed branch, or update the one open for it; the commit message is its text.")
    var pullRequest = false

    @Option(help: "With --push: the remote, a name or a URL.")
    var remote: String = "origin"

    @Option(help: ArgumentHelp("With --push: push this git.push.refspec although it deletes, forces or pushes another ref than the automation's branch (repeatable; the refspec exactly as written).", valueName: "refspec"))
    var allowRefspec: [String] = []

    @Option(help: "With --commit: stack (commit on the push branch's tip, as Flux does) or reset (rebuild it from the checkout branch; pushed with a lease).")
    var pushBranchMode: PushBranchModeArgument = .stack

    @Flag(help: "List every ImagePolicy's choice and every marker with what happens to it (changed, already current, or skipped and why).")
    var explain = false

    @Option(help: "Output format: text, json or markdown.")
    var format: UpdateFormat = .text

    @Option(help: "Configuration file (default: the nearest .tagwarden.yaml).")
    var config: String?

    @Flag(help: "Never colour the diff (NO_COLOR is honoured too).")
    var noColor = false

    @Flag(name: .shortAndLong, help: "No summary on standard error.")
    var quiet = false

    func validate() throws {
        if !source.registry && (noCache || offline) { throw ValidationError("--no-cache and --offline go with --registry") }
        if Self.seconds(cacheTtl) == nil { throw ValidationError("--cache-ttl must be a duration like 30m, 90s or 2h") }
        if registryRate < 0 { throw ValidationError("--registry-rate must be 0 (no limit) or more") }
        if noCache && offline { throw ValidationError("--offline reads the cache, which --no-cache turns off") }
        if let a = automation, a.split(whereSeparator: { $0 == "/" || $0 == ":" }).count != 2 {
            throw ValidationError("--automation must be NAMESPACE/NAME, not '\(a)'")
        }
        for i in image where ImageReference.normalizeName(i) == nil {
            throw ValidationError("--image takes an image name without tag or digest (ghcr.io/acme/web), not '\(i)'")
        }
        if cluster != nil && automation == nil { throw ValidationError("--cluster goes with --automation") }
        if force && mode != .write { throw ValidationError("--force goes with --write") }
        if !allowRefspec.isEmpty && !push { throw ValidationError("--allow-refspec goes with --push") }
        if pullRequest && !push { throw ValidationError("--pull-request goes with --push") }
        if (sign || push || pushBranchMode != .stack) && mode != .commit {
            throw ValidationError("--sign, --push and --push-branch-mode go with --commit")
        }
    }

    func run() throws {
        try guarded {
            Timings.mark("start")
            let ws = try Workspace.open(path: path, configPath: config, knownRules: Catalogue.ids)
            // --commit works on commits, as Flux works on a clone: the automations are read from HEAD's tree
            let head = mode == .commit ? try ws.repo.map { try $0.resolveCommit("HEAD") } : nil
            let snapshot = try ws.snapshot(rev: head, maxFileSize: nil)
            let model = try Model.build(snapshot.files, config: ws.config, profile: nil, remoteURLs: snapshot.remoteURLs, checkout: snapshot.checkout)
            Timings.mark("model")
            let tagSource = try self.tagSource(model)
            let only = automation.map { a -> RunSelection in
                let parts = a.split(whereSeparator: { $0 == "/" || $0 == ":" }).map(String.init)
                return RunSelection(namespace: parts[0], name: parts[1], cluster: cluster)
            }
            var planOptions = PlanOptions(only: only)
            planOptions.images = image.isEmpty ? nil : Set(image.compactMap(ImageReference.normalizeName))
            planOptions.partial = partial
            // the lint of the written files, its model and report kept to the exit as the update's own are
            let guardAudits = Locked<[AuditReport]>([])
            if !allowFindings { planOptions.guardWrites = Self.guardWrites(snapshot, config: ws.config, keeping: guardAudits) }
            var report: UpdateReport
            if mode == .commit {
                guard let repo = ws.repo else { throw TagwardenError("--commit needs a git repository, and \(ws.root) is not inside one") }
                // the forge, its API and the token, known before anything is committed
                let forge = pullRequest ? try PullRequests(remote: try repo.remoteURL(remote), environment: ProcessInfo.environment) : nil
                var options = CommitRun.Options()
                options.remote = remote
                options.mode = pushBranchMode.mode
                options.sign = sign
                options.push = push
                options.allowedRefspecs = allowRefspec
                options.plan = planOptions
                let (plans, commits, recovered) = try CommitRun(repo: repo, config: ws.config, tags: tagSource, options: options,
                                                     workdir: repo.workdir.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
                    .run(model, files: snapshot.files, commit: GitOID(hex: head!)!)
                var merged = UpdatePlan.merging(plans)
                merged.notes = recovered + merged.notes
                report = UpdateReport(mode: .commit, plan: merged)
                report.commits = commits.map { (automation: $0.automation, branch: $0.branch, commit: $0.commit.hex, pushed: $0.pushed) }
                report.written = commits.flatMap(\.written)
                if let forge {
                    report.pullRequests = try commits.filter { $0.pushed && $0.branch != $0.base }.map { c in
                        let opened = try forge.open(branch: c.branch, base: c.base, message: c.message)
                        return (c.branch, opened.url, opened.created)
                    }
                }
            } else {
                let plan = try Updater.plan(model, files: snapshot.files, tags: tagSource, options: planOptions)
                report = UpdateReport(mode: mode == .write ? .write : .dryRun, plan: plan)
                if mode == .write {
                    let lock = try ws.repo.map { try UpdateLock(gitDir: $0.commonDir) }
                    defer { lock?.release() }
                    report.written = try write(plan, root: snapshot.root, repo: ws.repo)
                }
            }
            let plan = report.plan
            Timings.mark("update")
            if let registry = tagSource as? RegistryTagSource, !quiet {
                // the progress line ends before the summary, whether or not every repository was listed
                if registry.progress != nil { writeAll(STDERR_FILENO, "\r\u{1B}[K") }
                for note in registry.notes { writeStderr("tagwarden: note: \(note)\n") }
                writeStderr("tagwarden: registries: \(registry.listed) repositories listed, \(registry.cached) from the cache; "
                            + "\(registry.requests) requests, \(registry.retries) retried\n")
            }
            emit(report, model: model)
            Timings.mark("report")
            if getenv("TAGWARDEN_TIMINGS") != nil {
                writeStderrLines(Timings.lines())
            }
            let code: Int32 = !plan.errors.isEmpty ? 1 : mode == .dryRun && !report.isUpToDate ? 3 : 0
            exitKeeping((ws, snapshot, model, report, guardAudits), code: code)
        }
    }

    /// The rules that judge a written value and whose error refuses it.
    static let guardingRules: Set<String> = ["image-env-prefix", "image-tag-pattern", "image-not-pinned", "image-latest-tag"]

    /// The files as an update would leave them, linted: the changed lines a guarding rule rejects at error, and why.
    static func guardWrites(_ snapshot: SourceSnapshot, config: Config, keeping kept: Locked<[AuditReport]>)
        -> ([SourceFile]) throws -> [String: String] {
        // only the guarding rules run, with the severities the config gives them
        var guarding = config
        for id in Catalogue.ids.subtracting(guardingRules) { guarding.rules[id, default: RuleSetting()].enabled = false }
        return { [guarding] files in
            var after = snapshot
            after.files = files
            let report = try Linter.audit(AuditRequest(snapshot: after, config: guarding))
            defer { kept.withLock { $0.append(report) } }
            var rejected: [String: String] = [:]
            for f in report.findings where f.severity == .error && guardingRules.contains(f.rule) {
                rejected["\(f.file):\(f.span.start.line)"] = rejected["\(f.file):\(f.span.start.line)"]
                    ?? "\(f.rule): \(f.message) (--allow-findings writes it)"
            }
            return rejected
        }
    }

    /// A Go duration (`30m`, `90s`, `1h30m`, `0`), read as Flux's durations are read, in seconds.
    static func seconds(_ text: String) -> Double? {
        GoDuration.nanoseconds(text).map { Double($0) / 1e9 }
    }

    /// The tag file, or the registries.
    func tagSource(_ model: Model) throws -> any TagSource {
        guard source.registry else { return try Self.readTags(source.tags!) }
        let (credentials, client) = try source.access.client(rate: registryRate)
        let registries = RegistryTagSource(model: model, client: client, credentials: credentials, cache: noCache ? nil : TagCache.user(),
                                           ttl: Self.seconds(cacheTtl)!, offline: offline)
        // a progress line on a terminal, nothing in a log
        if !quiet, isatty(STDERR_FILENO) == 1 {
            registries.progress = { [unowned registries] done, tags in
                writeAll(STDERR_FILENO, "\rtagwarden: registries: \(done)/\(registries.images) repositories, \(tags) tags, "
                         + "\(registries.requests) requests, \(registries.retries) retried\u{1B}[K")
                if done == registries.images { writeAll(STDERR_FILENO, "\r\u{1B}[K") }
            }
        }
        return registries
    }

    static func readTags(_ tags: String) throws -> TagFile {
        let name = tags == "-" ? "<stdin>" : tags
        let bytes: [UInt8]
        if tags == "-" {
            var all: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(STDIN_FILENO, &buf, buf.count)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                all += buf[0..<n]
            }
            bytes = all
        } else {
            switch FileSystem.readFile(tags, limit: 256 << 20) {
            case .success(let b): bytes = b
            case .failure(let e): throw TagwardenError("\(tags): \(e.message)")
            }
        }
        return try TagFile.parse(bytes, path: name)
    }

    /// Writes every changed file, each atomically, after checking them all: none is written when one is refused.
    func write(_ plan: UpdatePlan, root: String, repo: GitRepository?) throws -> [String] {
        if let repo, !force {
            let dirty = try plan.files.map(\.path).filter { try repo.hasUncommittedChanges($0) }
            if !dirty.isEmpty {
                throw TagwardenError("\(dirty.joined(separator: ", ")) \(dirty.count == 1 ? "has" : "have") uncommitted changes: "
                                     + "commit or stash them, or use --force to write over them")
            }
        }
        for f in plan.files {
            let full = root + "/" + f.path
            // the file as the plan read it: if it changed since, writing would lose that change
            guard case .success(let now) = FileSystem.readFile(full, limit: Int.max), now == f.before else {
                throw TagwardenError("\(f.path) changed while the update ran: run it again")
            }
            try Interruption.whole { try writeFileAtomically(full, bytes: f.after) }
        }
        return plan.files.map(\.path)
    }

    func emit(_ report: UpdateReport, model: Model) {
        switch format {
        case .json:
            writeStdout(report.json(model).serialized(pretty: true) + "\n")
        case .markdown:
            writeStdout(report.markdown())
        case .text:
            let tty = isatty(STDOUT_FILENO) == 1
            let color = tty && !noColor && getenv("NO_COLOR") == nil
            if explain { writeStdoutLines(report.explanation(model)) }
            if report.mode == .dryRun {
                // on a terminal, repository text is escaped; into a pipe or file, the diff is byte-exact for git apply
                let escapeLine: @Sendable (String) -> String = { line in
                    line.split(separator: "\t", omittingEmptySubsequences: false).map { Escape.text(String($0)) }.joined(separator: "\t")
                }
                let escape = tty ? escapeLine : nil
                // rendered on all cores, written in order
                let files = report.plan.files
                let diffs: [String] = concurrentChunks(files.count, chunkSize: 32) { range in
                    range.map { k -> String in
                        UnifiedDiff.render(path: files[k].path, before: files[k].before, after: files[k].after, color: color, escape: escape)
                    }
                }
                writeAll(STDOUT_FILENO, diffs.joined())
            } else {
                for c in report.plan.changes {
                    writeStdoutLines("\(c.file):\(c.line): \(c.oldValue) -> \(c.newValue) (\(c.setter))\n")
                }
            }
            for e in report.plan.errors { writeStderr("tagwarden: error: \(e)\n") }
            for w in report.plan.warnings { writeStderr("tagwarden: warning: \(w)\n") }
            if !quiet { for n in report.plan.notes { writeStderr("tagwarden: note: \(n)\n") } }
            if !quiet {
                for line in report.summary() { writeStderr("tagwarden: \(line)\n") }
                let n = report.plan.changes.count, files = report.plan.files.count
                if report.isUpToDate {
                    writeStderr("tagwarden: \(report.noChange("above"))\n")
                } else {
                    let what = "\(n) change\(n == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s")"
                    switch report.mode {
                    case .dryRun: writeStderr("tagwarden: \(what) pending (--write writes them, --commit commits them)\n")
                    case .write: writeStderr("tagwarden: wrote \(what)\n")
                    case .commit:
                        for c in report.commits {
                            writeStderr("tagwarden: \(c.automation): committed \(c.commit) on \(c.branch)\(c.pushed ? ", pushed to \(GitRepository.redacted(remote))" : "")\n")
                        }
                        if report.commits.isEmpty { writeStderr("tagwarden: \(what), not committed\n") }
                        for p in report.pullRequests {
                            writeStderr("tagwarden: pull request \(p.created ? "opened" : "updated") for \(p.branch): \(p.url)\n")
                        }
                    }
                }
            }
        }
    }
}
