import TagwardenFixtures
import Foundation
import Testing

/// `tagwarden graph`: the wiring as Mermaid, DOT (read by Graphviz itself) and JSON, problems red, suppressed ones grey.
@Suite struct GraphTests {
    /// Two environments, one automation; production's markers: one right, one naming staging's policy, one naming
    /// nothing, one naming nothing with its finding suppressed.
    func fleet() throws -> TempRepo {
        let r = try TempRepo()
        let marker = { (policy: String) in #" # {"$imagepolicy": "flux-system:\#(policy)"}"# }
        try r.write([
            "flux/images.yaml": [imageRepository(image: "ghcr.io/acme/web"), imagePolicy(name: "api-production", repository: "api"),
                                 imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n"),
            "apps/staging/policy.yaml": imagePolicy(name: "web-staging", repository: "web", pattern: "^staging-v(?P<v>.*)$", extract: "$v"),
            "apps/production/policy.yaml": imagePolicy(name: "web-production", repository: "web", pattern: "^production-v(?P<v>.*)$", extract: "$v"),
            "apps/staging/web.yaml": "image: ghcr.io/acme/web:staging-v1.0.0" + marker("web-staging") + "\n",
            "apps/production/web.yaml": "image: ghcr.io/acme/web:production-v1.0.0" + marker("web-production") + "\n",
            "apps/production/worker.yaml": "image: ghcr.io/acme/web:staging-v1.0.0" + marker("web-staging") + "\n",
            "apps/production/typo.yaml": "image: ghcr.io/acme/web:production-v1.0.0" + marker("web-prod") + "\n",
            "apps/production/known.yaml": "# tagwarden:ignore marker-unknown-policy the policy comes from another repository\n"
                + "image: ghcr.io/acme/web:production-v1.0.0" + marker("web-elsewhere") + "\n",
        ])
        try r.commitAll("fleet")
        return r
    }

    @Test func theWiringWithItsProblems() throws {
        let r = try fleet()
        let res = try tagwarden(["graph", "--format", "json"], in: r.path)
        #expect(res.code == 0, "\(res.described)")
        let g = try #require(try JSONSerialization.jsonObject(with: Data(res.stdout.utf8)) as? [String: Any], "\(res.described)")
        let nodes = try #require(g["nodes"] as? [[String: Any]])
        let label = Dictionary(uniqueKeysWithValues: nodes.map { ($0["id"] as! String, $0["label"] as! String) })
        let environment = Dictionary(uniqueKeysWithValues: nodes.map { ($0["id"] as! String, $0["environment"] as? String ?? "-") })
        let edges = try #require(g["edges"] as? [[String: Any]]).map { e in
            "\(label[e["from"] as! String]!) -> \(label[e["to"] as! String]!) [\(e["state"]!)]"
        }
        #expect(edges.sorted() == [
            "ImagePolicy flux-system/api-production -> no ImageRepository api [broken]",
            "ImagePolicy flux-system/web-production -> ImageRepository flux-system/web [ok]",
            "ImagePolicy flux-system/web-staging -> ImageRepository flux-system/web [ok]",
            "ImageRepository flux-system/web -> ghcr.io/acme/web [ok]",
            "ImageUpdateAutomation flux-system/apps -> ImagePolicy flux-system/api-production [ok]",
            "ImageUpdateAutomation flux-system/apps -> ImagePolicy flux-system/web-production [ok]",
            "ImageUpdateAutomation flux-system/apps -> ImagePolicy flux-system/web-staging [ok]",
            "apps/production/known.yaml -> no ImagePolicy flux-system/web-elsewhere [suppressed]",
            "apps/production/typo.yaml -> no ImagePolicy flux-system/web-prod [broken]",
            "apps/production/web.yaml -> ImagePolicy flux-system/web-production [ok]",
            "apps/production/worker.yaml -> ImagePolicy flux-system/web-staging [cross-environment]",
            "apps/staging/web.yaml -> ImagePolicy flux-system/web-staging [ok]",
        ], "\(res.stdout)")
        // each object drawn in its environment, or the one environment of the markers that use it
        let byLabel = Dictionary(uniqueKeysWithValues: label.map { ($1, environment[$0]!) })
        #expect(byLabel["ImagePolicy flux-system/web-staging"] == "staging" && byLabel["ImagePolicy flux-system/web-production"] == "production")
        #expect(byLabel["ImagePolicy flux-system/api-production"] == "-" && byLabel["ImageRepository flux-system/web"] == "-")
        #expect(byLabel["apps/staging/web.yaml"] == "staging" && byLabel["apps/production/worker.yaml"] == "production")
        #expect((g["environments"] as? [Any])?.map { $0 as? String ?? "-" } == ["staging", "production", "-"])

        // --environment: staging's nodes and what its edges reach
        let staging = try tagwarden(["graph", "--format", "json", "--environment", "stage"], in: r.path)
        let sg = try #require(try JSONSerialization.jsonObject(with: Data(staging.stdout.utf8)) as? [String: Any], "\(staging.described)")
        #expect(Set((sg["nodes"] as? [[String: Any]] ?? []).map { $0["label"] as! String }) == [
            "apps/staging/web.yaml", "ImagePolicy flux-system/web-staging", "ImageUpdateAutomation flux-system/apps",
            "ImageRepository flux-system/web", "apps/production/worker.yaml"], "\(staging.stdout)")
        let unknown = try tagwarden(["graph", "--environment", "qa"], in: r.path)
        #expect(unknown.code == 2 && unknown.stderr.contains("no environment 'qa'"), "\(unknown.described)")
    }

    @Test func mermaidAndDot() throws {
        let r = try fleet()
        let mermaid = try tagwarden(["graph"], in: r.path)
        #expect(mermaid.code == 0 && mermaid.stdout.hasPrefix("flowchart LR\n  subgraph env0[\"staging\"]\n"), "\(mermaid.described)")
        // the red and the grey edges are styled by their index among the edges
        let lines = mermaid.stdout.split(separator: "\n").map(String.init)
        let edges = lines.filter { $0.contains(" --> ") || $0.contains(" -->|") }
        func indexes(_ state: String) -> String { edges.indices.filter { edges[$0].contains("-->|\(state)|") }.map(String.init).joined(separator: ",") }
        let red = edges.indices.filter { edges[$0].contains("-->|broken|") || edges[$0].contains("-->|cross-environment|") }.map(String.init).joined(separator: ",")
        #expect(lines.contains("  linkStyle \(red) stroke:#d00,stroke-width:2px,color:#d00"), "\(mermaid.stdout)")
        #expect(lines.contains("  linkStyle \(indexes("suppressed")) stroke:#999,stroke-dasharray:4 4"), "\(mermaid.stdout)")
        #expect(red.split(separator: ",").count == 3)

        // Graphviz reads the DOT and draws it
        let dot = try tagwarden(["graph", "--format", "dot"], in: r.path)
        #expect(dot.code == 0 && dot.stdout.hasPrefix("digraph tagwarden {\n  rankdir=LR;"), "\(dot.described)")
        try r.write(".git/graph.dot", dot.stdout)
        let svg = try run("/usr/bin/dot", ["-Tsvg", ".git/graph.dot", "-o", ".git/graph.svg"], cwd: r.path)
        #expect(svg.code == 0 && svg.stderr.isEmpty, "\(svg.described)")
        let drawn = try String(contentsOfFile: r.path + "/.git/graph.svg", encoding: .utf8)
        #expect(drawn.contains("<title>cluster_0</title>") && drawn.contains("apps/production/worker.yaml"))
        #expect(drawn.components(separatedBy: "stroke=\"#dd0000\"").count - 1 >= 3, "three red edges")
    }

    @Test func aPullRequestsMarkdownShowsTheWiringItsFindingsTouch() throws {
        let r = try fleet()
        let base = try r.git("rev-parse", "HEAD").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // the pull request points another production field at staging's policy
        try r.write("apps/production/batch.yaml", #"image: ghcr.io/acme/web:staging-v1.0.0 # {"$imagepolicy": "flux-system:web-staging"}"# + "\n")
        try r.commitAll("batch")
        // (the fleet describes no cluster: the mismatch is a warning that says so)
        let res = try tagwarden(["check", "--base", base, "--format", "markdown", "--fail-on", "warning"], in: r.path)
        #expect(res.code == 1, "\(res.described)")
        let block = try #require(res.stdout.range(of: "<details><summary>The wiring these findings touch</summary>\n\n```mermaid\n").map { res.stdout[$0.upperBound...] },
                                 "\(res.stdout)")
        let mermaid = String(block.prefix { _ in true }).components(separatedBy: "```").first ?? ""
        // the new file, the policy it names and what that policy connects to; not the rest of the fleet
        #expect(mermaid.contains("[/\"apps/production/batch.yaml\"/]") && mermaid.contains("{{\"ImagePolicy flux-system/web-staging\"}}"), "\(mermaid)")
        #expect(!mermaid.contains("typo.yaml") && !mermaid.contains("web-production"), "\(mermaid)")
        // the new cross-environment edge is red; worker.yaml's (an older one, two steps away) is not drawn
        #expect(mermaid.contains("-->|cross-environment| ") && mermaid.contains("  linkStyle 0 stroke:#d00"), "\(mermaid)")
        #expect(!mermaid.contains("worker.yaml"), "\(mermaid)")
        // a check with nothing new draws nothing
        let clean = try tagwarden(["check", "--base", "HEAD", "--format", "markdown"], in: r.path)
        #expect(clean.code == 0 && !clean.stdout.contains("mermaid"), "\(clean.described)")
    }

    /// Two clusters, each bootstrapped with its automation and its policy of the same namespace: an automation takes
    /// the policies of its own cluster only.
    @Test func anAutomationTakesThePoliciesOfItsOwnCluster() throws {
        let r = try TempRepo()
        var files: [String: String] = [:]
        for env in ["staging", "production"] {
            files.merge(bootstrapFiles("clusters/\(env)", flux: "v2.6.0")) { a, _ in a }
            files["clusters/\(env)/images.yaml"] = [imageRepository(), imagePolicy(name: "web-\(env)"),
                                                   imageUpdateAutomation(name: "apps-\(env)", path: "./clusters/\(env)")].joined(separator: "---\n")
            files["clusters/\(env)/web.yaml"] = "image: ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:web-\(env)\"}\n"
        }
        try r.write(files)
        try r.commitAll("two clusters")
        let res = try tagwarden(["graph", "--format", "json"], in: r.path)
        let g = try #require(try JSONSerialization.jsonObject(with: Data(res.stdout.utf8)) as? [String: Any], "\(res.described)")
        let label = Dictionary(uniqueKeysWithValues: (g["nodes"] as? [[String: Any]] ?? []).map { ($0["id"] as! String, $0["label"] as! String) })
        let takes = (g["edges"] as? [[String: Any]] ?? []).filter { $0["relation"] as? String == "takes" }
            .map { "\(label[$0["from"] as! String]!) -> \(label[$0["to"] as! String]!)" }.sorted()
        #expect(takes == ["ImageUpdateAutomation flux-system/apps-production -> ImagePolicy flux-system/web-production",
                          "ImageUpdateAutomation flux-system/apps-staging -> ImagePolicy flux-system/web-staging"], "\(res.stdout)")
    }

    /// Two bootstrapped clusters and a directory both apply: each node in the box of the clusters that apply its file,
    /// and red where an error-level finding names its object (a file's node where the object is not drawn).
    @Test func eachNodeInItsClustersAndErrorsRed() throws {
        let r = try TempRepo()
        var files: [String: String] = [:]
        for env in ["staging", "production"] {
            files.merge(bootstrapFiles("clusters/\(env)", flux: "v2.7.0")) { a, _ in a }
            let pattern = env == "production" ? "^production-(?P<v" : "^staging-(?P<v>.*)$"
            files["clusters/\(env)/images.yaml"] = [imageRepository(), imagePolicy(name: "web-\(env)", repository: "web", pattern: pattern, extract: "$v"),
                                                   imageUpdateAutomation(name: "apps-\(env)", path: "./clusters/\(env)")].joined(separator: "---\n")
            files["clusters/\(env)/apps.yaml"] = fluxKustomizations([(name: "apps", path: "./apps/\(env)"), (name: "shared", path: "./apps/shared")])
        }
        files["apps/staging/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - web.yaml\n  - missing.yaml\n"
        files["apps/staging/web.yaml"] = "image: ghcr.io/acme/web:staging-1.0.0 # {\"$imagepolicy\": \"flux-system:web-staging\"}\n"
        files["apps/production/web.yaml"] = "image: ghcr.io/acme/web:production-1.0.0 # {\"$imagepolicy\": \"flux-system:web-production\"}\n"
        files["apps/shared/web.yaml"] = "image: ghcr.io/acme/web:staging-1.0.0 # {\"$imagepolicy\": \"flux-system:web-staging\"}\n"
        try r.write(files)
        try r.commitAll("two clusters")
        let res = try tagwarden(["graph", "--format", "json"], in: r.path)
        let g = try #require(try JSONSerialization.jsonObject(with: Data(res.stdout.utf8)) as? [String: Any], "\(res.described)")
        #expect(g["clusters"] as? [[String]] == [["clusters/production"], ["clusters/staging"], ["clusters/production", "clusters/staging"]],
                "\(res.stdout)")
        let nodes = try #require(g["nodes"] as? [[String: Any]])
        // (each cluster's Kustomizations have one label)
        let clusters = Dictionary(nodes.map { ($0["label"] as! String, ($0["clusters"] as? [String] ?? []).joined(separator: " + ")) }) { $0 + " | " + $1 }
        #expect(clusters["ImagePolicy flux-system/web-production"] == "clusters/production", "\(res.stdout)")
        #expect(clusters["apps/staging/web.yaml"] == "clusters/staging" && clusters["apps/production/web.yaml"] == "clusters/production")
        #expect(clusters["apps/shared/web.yaml"] == "clusters/production + clusters/staging", "\(res.stdout)")
        let red = nodes.filter { !($0["errors"] as? [String] ?? []).isEmpty }.map { n in
            "\(n["label"]!) <- " + (n["errors"] as! [String]).map { $0.components(separatedBy: ": ").prefix(2).joined(separator: ": ") }.joined(separator: ", ")
        }
        // (a file of a bare `image:` under a path without a kustomization fails the build Flux generates there)
        #expect(red.sorted() == ["ImagePolicy flux-system/web-production <- line 11: policy-invalid-regex",
                                 "apps/production/web.yaml <- line 1: kustomization-build-fails",
                                 "apps/shared/web.yaml <- line 1: kustomization-build-fails",
                                 "apps/staging/kustomization.yaml <- line 5: kustomization-build-fails"], "\(res.stdout)")

        // Mermaid: a box per cluster, the environment inside it, the red nodes of the error class
        let mermaid = try tagwarden(["graph"], in: r.path).stdout
        #expect(mermaid.contains("  subgraph cluster0[\"cluster clusters/production\"]\n    subgraph c0env0[\"production\"]\n"), "\(mermaid)")
        #expect(mermaid.contains("  subgraph cluster2[\"clusters clusters/production, clusters/staging\"]\n"), "\(mermaid)")
        let ids = Dictionary(nodes.map { ($0["label"] as! String, $0["id"] as! String) }) { a, _ in a }
        let failing: Set = [ids["ImagePolicy flux-system/web-production"]!, ids["apps/staging/kustomization.yaml"]!,
                            ids["apps/production/web.yaml"]!, ids["apps/shared/web.yaml"]!]
        let inOrder = nodes.map { $0["id"] as! String }.filter(failing.contains)
        #expect(mermaid.contains("  class \(inOrder.joined(separator: ",")) error\n"), "\(mermaid)")

        // Graphviz reads the nested boxes and draws the red nodes
        let dot = try tagwarden(["graph", "--format", "dot"], in: r.path)
        try r.write(".git/graph.dot", dot.stdout)
        let svg = try run("/usr/bin/dot", ["-Tsvg", ".git/graph.dot", "-o", ".git/graph.svg"], cwd: r.path)
        #expect(svg.code == 0 && svg.stderr.isEmpty, "\(svg.described)")
        let drawn = try String(contentsOfFile: r.path + "/.git/graph.svg", encoding: .utf8)
        #expect(drawn.contains("<title>cluster_c0</title>") && drawn.contains("<title>cluster_c0_0</title>") && drawn.contains(">cluster clusters/production</text>"),
                "\(drawn)")
        func strokedRed(_ id: String) -> Bool {
            drawn.components(separatedBy: "<title>\(id)</title>").dropFirst().first?.components(separatedBy: "</g>").first?.contains("stroke=\"#dd0000\"") ?? false
        }
        #expect(failing.allSatisfy(strokedRed) && !strokedRed(ids["apps/staging/web.yaml"]!), "\(drawn)")
    }
}
