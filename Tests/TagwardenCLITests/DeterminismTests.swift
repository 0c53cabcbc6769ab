import TagwardenFixtures
import Foundation
import Testing

/// The same input gives the same bytes: every report format, the graph, the topology, the update's diff and its commit,
/// whatever the order the file system lists files in, the locale, the time zone and the cores the threads get. The
/// bundled example is written twice, its files created in opposite orders, and each copy is run under other settings.
@Suite struct DeterminismTests {
    static let tags = """
        ghcr.io/acme/web: [develop-3f9c2ab-1718000000, develop-4a5b6c7-1718900000, staging-v1.4.3-4a5b6c7-1718900000,
                           production-v1.4.3-4a5b6c7-1718900000, production-v1.5.0-5b6c7d8-1719000000]
        ghcr.io/acme/api: [production-v2.3.1-a1b2c3d-1718100000, production-v2.4.0-b2c3d4e-1719000000]

        """

    /// The example in a repository of its own, its files written in path order or the reverse.
    func example(reversed: Bool) throws -> TempRepo {
        let r = try TempRepo()
        let root = packageRoot + "/examples/fleet"
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
        for f in reversed ? files.reversed() : files {
            try r.write("examples/fleet/" + f, try String(contentsOfFile: root + "/" + f, encoding: .utf8))
        }
        try r.write(".git/tags.yaml", Self.tags)
        try r.commitAll("the example")
        return r
    }

    /// One command in each copy under its settings: the outputs with each copy's path written the same way.
    func same(_ args: [String], _ a: TempRepo, _ b: TempRepo, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let first = try run(binary, args, cwd: a.path, env: ["TZ": "UTC", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"])
        let second = try run("/usr/bin/taskset", ["-c", "0", binary] + args, cwd: b.path,
                             env: ["TZ": "Asia/Kolkata", "LC_ALL": "POSIX", "LANG": "tr_TR.UTF-8"])
        func normal(_ s: String, _ r: TempRepo) -> String { s.replacingOccurrences(of: r.path, with: "<repo>") }
        #expect(first.code == second.code, "\(args): exit \(first.code) and \(second.code)", sourceLocation: sourceLocation)
        #expect(normal(first.stdout, a) == normal(second.stdout, b), "\(args): the outputs differ", sourceLocation: sourceLocation)
        #expect(normal(first.stderr, a) == normal(second.stderr, b), "\(args): the messages differ", sourceLocation: sourceLocation)
        #expect(!first.stdout.isEmpty, "\(args): nothing was written: \(first.described)", sourceLocation: sourceLocation)
    }

    /// The clusters a hub reaches through its Kustomizations' kubeConfigs are found while walking sets of files, whose
    /// order each process draws anew: they are numbered, listed and named in findings alike in every run.
    @Test func theClustersOfKubeConfigsAreTheSameInEveryRun() throws {
        let r = try TempRepo()
        try r.write(bootstrapFiles("clusters/hub", flux: "v2.8.0"))
        // (each spoke's Kustomization in a file of its own: the hub's walk meets them in the order of its set of files)
        for spoke in ["staging", "production", "qa", "dev", "test", "edge"] {
            try r.write("clusters/hub/\(spoke).yaml",
                        fluxKustomization(name: spoke, path: "./spokes/\(spoke)", spec: "  kubeConfig:\n    secretRef: {name: \(spoke)-kubeconfig}\n"))
            try r.write("spokes/\(spoke)/web.yaml", deployment(namespace: "web", image: "nginx:latest"))
        }
        try r.commitAll("hub and spokes")
        let runs = try (0..<6).map { _ in try run(binary, ["env", "--applied", "--format", "json"], cwd: r.path).stdout }
        #expect(Set(runs).count == 1, "\(runs)")
        #expect(runs[0].contains("clusters/hub → Secret flux-system/dev-kubeconfig"), "\(runs[0])")
    }

    @Test func everyReportAndTheUpdateAreTheSameBytesUnderOtherSettings() throws {
        let a = try example(reversed: false), b = try example(reversed: true)
        for format in ["text", "json", "sarif", "github", "markdown", "gitlab", "junit"] {
            try same(["audit", "--format", format, "--no-color"], a, b)
        }
        for format in ["mermaid", "dot", "json"] { try same(["graph", "--format", format], a, b) }
        try same(["env", "--applied", "--format", "json"], a, b)
        for format in ["text", "json", "markdown"] { try same(["update", "--tags", ".git/tags.yaml", "--format", format], a, b) }
        // the commit: the same tree, author and message (its date is the clock's, in each run's own time zone, as git's,
        // so its id differs)
        #expect(try run(binary, ["update", "--tags", ".git/tags.yaml", "--commit"], cwd: a.path, env: ["TZ": "UTC"]).code == 0)
        #expect(try run("/usr/bin/taskset", ["-c", "0", binary, "update", "--tags", ".git/tags.yaml", "--commit"], cwd: b.path,
                        env: ["TZ": "Asia/Kolkata", "LC_ALL": "POSIX"]).code == 0)
        let made = try [a, b].map { try $0.git("log", "-1", "--format=%T%n%an <%ae>%n%B", "image-updates").stdout }
        let tree = try a.git("rev-parse", "image-updates^{tree}").stdout
        #expect(made[0] == made[1] && made[0].hasPrefix(tree), "\(made)")
    }
}
