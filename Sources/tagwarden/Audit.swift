import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import TagwardenLint
import TagwardenReport
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lint a working tree, or the tree of a commit.",
        discussion: """
        PATH (default ".") selects the repository that contains it; a path inside the repository limits what is \
        reported to that subtree, while policies, repositories and automations are always resolved over the whole tree. \
        Outside any git repository PATH is linted as a plain directory.

        Examples:
          tagwarden audit
          tagwarden audit apps/production --format json
          tagwarden audit --rev v1.4.0 --format sarif --output tagwarden.sarif
        """
    )

    @Argument(help: "A directory or file in the repository.")
    var path: String = "."

    @Option(help: "Lint the tree of this commit-ish (a sha, branch, tag, HEAD~3 …) from the object database, without checkout.")
    var rev: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        try guarded {
            Timings.mark("start")
            let ws = try Workspace.open(path: path, configPath: options.config, rev: rev)
            let snapshot = try ws.snapshot(rev: rev, maxFileSize: options.maxFileSizeBytes)
            if !options.quiet { for note in snapshot.notes { writeStderr("tagwarden: note: \(note)\n") } }
            let tip = rev ?? ((ws.repo?.hasHead ?? false) ? "HEAD" : nil)
            let report = try ws.audit(snapshot, profile: options.profile, historyFrom: tip)
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
            // The report is written: end the process without tearing down the model object by object.
            withExtendedLifetime(report) { Glibc.exit(code) }
        }
    }
}
