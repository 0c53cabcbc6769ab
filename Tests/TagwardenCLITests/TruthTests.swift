import TagwardenFixtures
import Foundation
import Testing

/// The clusters' truth end to end: the Flux each runs, in the findings and in the report's header and `env`; what
/// `env --applied` lists; `init`; and what git (remotes, a base branch) changes. The rules over files alone are in
/// TruthRuleTests.
@Suite struct TruthTests {
    /// `rule:line:severity` of the api findings of `file`.
    func apiFindings(_ res: RunResult, _ file: String) -> [String] {
        res.findingObjects.filter { ($0["rule"] as? String ?? "").hasPrefix("api-") && $0["file"] as? String == file }
            .map { "\($0["rule"]!):\($0["line"]!):\($0["severity"]!)" }
    }

    @Test func apiVersionsAreJudgedAgainstTheClustersFlux() throws {
        // each document starts at lines 1, 7, 13, 19, 25: v1beta1 IR, v1beta2 IP, v1beta1 IUA, v1beta2 IUA, v1 IR
        let expected: [String: [String]] = [
            // 2.2: v1beta1 and v1beta2 IR/IP served, removed far ahead (notes); IUA v1beta2 and v1 not yet served
            "v2.2.3": ["api-deprecated:1:note", "api-deprecated:7:note", "api-deprecated:13:note", "api-removed:19:error", "api-removed:25:error"],
            // 2.6: v1beta1 goes in 2.7 (warnings), v1beta2 in 2.9 (notes); v1 not yet served
            "v2.6.0": ["api-deprecated:1:warning", "api-deprecated:7:note", "api-deprecated:13:warning", "api-deprecated:19:note", "api-removed:25:error"],
            // 2.7: v1beta1 gone; v1beta2 removal two releases ahead (notes); v1 served
            "v2.7.0": ["api-removed:1:error", "api-deprecated:7:note", "api-removed:13:error", "api-deprecated:19:note"],
            // 2.8: v1beta2 goes in the next release
            "v2.8.1": ["api-removed:1:error", "api-deprecated:7:warning", "api-removed:13:error", "api-deprecated:19:warning"],
            // 2.9: only v1
            "v2.9.0": ["api-removed:1:error", "api-removed:7:error", "api-removed:13:error", "api-removed:19:error"],
        ]
        for (version, findings) in expected.sorted(by: { $0.key < $1.key }) {
            let r = try TempRepo()
            try bootstrap("clusters/prod", flux: version, in: r)
            try r.write("clusters/prod/image.yaml", imageAPIObjects())
            let res = try r.audit("--format", "json")
            #expect(apiFindings(res, "clusters/prod/image.yaml") == findings, "Flux \(version): \(apiFindings(res, "clusters/prod/image.yaml"))")
            let messages = res.findingObjects.filter { ($0["rule"] as? String ?? "").hasPrefix("api-") }.map { $0["message"] as? String ?? "" }
            // never advise an apiVersion this Flux does not serve
            if version == "v2.2.3" {
                #expect(messages[2] == "image.toolkit.fluxcd.io/v1beta1 ImageUpdateAutomation is removed in Flux 2.7; Flux 2.2.3 (app.kubernetes.io/version "
                        + "v2.2.3 of Namespace flux-system in clusters/prod/flux-system/gotk-components.yaml) still serves it: no later apiVersion "
                        + "of ImageUpdateAutomation is served there: upgrade Flux first (v1 from Flux 2.7), then move to it")
                #expect(messages[4].hasPrefix("image.toolkit.fluxcd.io/v1 ImageRepository is not served by Flux 2.2.3 (") && messages[4].hasSuffix("(v1 came in Flux 2.7): the API server refuses it, and whatever applies it fails (a Flux Kustomization as a whole); use image.toolkit.fluxcd.io/v1beta2"), "\(messages[4])")
            }
            if version == "v2.6.0" {
                #expect(messages[0].hasSuffix("still serves it: use image.toolkit.fluxcd.io/v1beta2, which it serves"), "\(messages[0])")
            }
            if version == "v2.9.0" {
                #expect(messages[1].hasPrefix("image.toolkit.fluxcd.io/v1beta2 ImagePolicy is not served by Flux 2.9.0 (") && messages[1].contains("(removed in Flux 2.9)")
                        && messages[1].hasSuffix("use image.toolkit.fluxcd.io/v1"), "\(messages[1])")
            }
            // the header and `env` say which Flux, and where it was read
            let text = try r.audit("--no-color")
            #expect(text.stdout.contains("\nflux: \(version.dropFirst()) in cluster clusters/prod (app.kubernetes.io/version \(version) of Namespace flux-system in clusters/prod/flux-system/gotk-components.yaml)\n"),
                    "\(text.stdout.prefix(400))")
            let env = try tagwarden(["env"], in: r.path)
            #expect(env.stdout.contains("  cluster clusters/prod: Flux \(version.dropFirst()) (app.kubernetes.io/version \(version) of Namespace flux-system in clusters/prod/flux-system/gotk-components.yaml)\n"))
        }
    }

    @Test func theConfigsFluxVersionOverridesDetectionForEveryRule() throws {
        let r = try TempRepo()
        try bootstrap("clusters/prod", flux: "v2.9.0", in: r)
        try r.write("clusters/prod/image.yaml", imageAPIObjects())
        try r.write(".tagwarden.yaml", "fluxVersion: \"2.6\"\n")
        let res = try r.audit("--format", "json")
        #expect(apiFindings(res, "clusters/prod/image.yaml") == ["api-deprecated:1:warning", "api-deprecated:7:note", "api-deprecated:13:warning",
                                                                  "api-deprecated:19:note", "api-removed:25:error"])
        let text = try r.audit("--no-color")
        #expect(text.stdout.contains("\nflux: 2.6 (fluxVersion in .tagwarden.yaml)\n"))
    }

    @Test func anUnknownFluxIsCurrentFluxAndTheHeaderSaysSo() throws {
        let r = try TempRepo()
        try r.write("flux/image.yaml", imageAPIObjects())
        let res = try r.audit("--format", "json")
        // the version is an assumption: warnings that name it, and the key that settles it
        #expect(apiFindings(res, "flux/image.yaml") == ["api-removed:1:warning", "api-removed:7:warning", "api-removed:13:warning", "api-removed:19:warning"])
        let message = res.findingObjects.first { $0["rule"] as? String == "api-removed" }?["message"] as? String ?? ""
        #expect(message == "image.toolkit.fluxcd.io/v1beta1 ImageRepository is not served by current Flux (2.9) (removed in Flux 2.7): the API server refuses it, and whatever applies it fails (a Flux Kustomization as a whole); use image.toolkit.fluxcd.io/v1 (no Flux version is written here, so current Flux (2.9) is assumed: this holds if it runs Flux 2.7 or later; set fluxVersion in .tagwarden.yaml) (no cluster in this repository applies this file)")
        let text = try r.audit("--no-color")
        #expect(text.stdout.contains("\nflux: version unknown: current Flux (2.9) assumed; set fluxVersion in .tagwarden.yaml to name yours\n"))
        let env = try tagwarden(["env"], in: r.path)
        #expect(env.stdout.contains("no cluster is described here (no flux bootstrap sync, FluxInstance or Flux Kustomization builds this repository's "
                                    + "files; Flux version unknown: current Flux (2.9) assumed"))
        #expect(env.stdout.contains("1 file is reached by no cluster here: judged, findings at most warnings (declare what applies them under "
                                    + "clusters: in .tagwarden.yaml); by directory:\n    flux/  1\n"), "\(env.stdout)")
    }

    @Test func clustersOfDifferentFluxJudgeWhatEachApplies() throws {
        let r = try TempRepo()
        try bootstrap("clusters/old", flux: "v2.8.0", in: r)
        try bootstrap("clusters/new", flux: "v2.9.1", in: r)
        for c in ["old", "new"] {
            try r.write("clusters/\(c)/apps.yaml", fluxKustomization(path: "./apps/\(c)"))
            try r.write("apps/\(c)/kustomization.yaml", "resources: [../base]\n")
        }
        try r.write("apps/base/kustomization.yaml", "resources: [policy.yaml]\n")
        try r.write("apps/base/policy.yaml", "apiVersion: image.toolkit.fluxcd.io/v1beta2\nkind: ImagePolicy\nmetadata:\n  name: web\n  namespace: flux-system\n")
        try r.write("apps/old/only.yaml", "apiVersion: image.toolkit.fluxcd.io/v1beta2\nkind: ImageRepository\nmetadata:\n  name: web\n  namespace: flux-system\n")
        try r.write("apps/old/kustomization.yaml", "resources: [../base, only.yaml]\n")
        let res = try r.audit("--format", "json")
        // the shared policy: 2.9 (cluster clusters/new) does not serve v1beta2; the old cluster's own object only warns
        #expect(apiFindings(res, "apps/base/policy.yaml") == ["api-removed:1:error"])
        #expect(apiFindings(res, "apps/old/only.yaml") == ["api-deprecated:1:warning"])
        let message = res.findingObjects.first { $0["file"] as? String == "apps/base/policy.yaml" }?["message"] as? String ?? ""
        #expect(message.contains("not served by Flux 2.9.1 of cluster clusters/new ("), "\(message)")
        let text = try r.audit("--no-color")
        #expect(text.stdout.contains("\nflux: 2.8.0 in cluster clusters/old; 2.9.1 in cluster clusters/new\n"), "\(text.stdout.prefix(300))")
    }

    /// A bootstrapped cluster with apps, an archive no Kustomization applies, and kustomize configuration files.
    func appliedRepo() throws -> TempRepo {
        let r = try TempRepo()
        try r.write(appliedRepoFiles())
        return r
    }

    /// Each finding as "rule file:line:severity".
    func severities(_ res: RunResult) -> [String] {
        res.findingObjects.map { "\($0["rule"]!) \($0["file"]!):\($0["line"]!):\($0["severity"]!)" }
    }

    @Test func filesNoClusterReachesAreJudgedAsWarningsThatSaySo() throws {
        let r = try appliedRepo()
        let res = try r.audit("--format", "json")
        // archive/ may be applied from outside: judged, nothing above a warning, every message naming the premise
        #expect(severities(res) == ["api-removed archive/api.yaml:1:warning", "policy-unknown-repository archive/api.yaml:2:warning",
                                    "policy-unused archive/api.yaml:2:note", "image-latest-tag archive/web.yaml:9:warning"], "\(res.described)")
        for f in res.findingObjects {
            #expect((f["message"] as? String)?.hasSuffix(" (no cluster in this repository applies this file)") == true, "\(f)")
            #expect(f["assumption"] as? String == "no cluster in this repository applies this file")
        }
        let text = try r.audit("--no-color")
        #expect(text.stdout.contains("\napplied: 3 files that no cluster here applies, judged as warnings at most (declare what applies them "
                                     + "under clusters: in .tagwarden.yaml); tagwarden env --applied lists them\n"), "\(text.stdout)")
        // the header counts the files under PATH
        #expect(!(try r.audit("--no-color", "apps")).stdout.contains("\napplied:"))
        let env = try tagwarden(["env", "--applied"], in: r.path)
        #expect(env.stdout.contains("  archive/web.yaml  reached by no cluster here (judged, findings at most warnings)\n"))
        #expect(env.stdout.contains("  apps/prod/web.yaml  cluster clusters/prod by flux-system/apps\n"), "\(env.stdout)")
        #expect(env.stdout.contains("  3 files are reached by no cluster here: judged, findings at most warnings (declare what applies them "
                                    + "under clusters: in .tagwarden.yaml); by directory:\n    archive/  3\n"), "\(env.stdout)")
        // a marker in a file Flux's automation updates is read there, applied or not: a fact
        try r.write("archive/web.yaml", pod("web", namespace: "web", images: ["ghcr.io/acme/web:1.0.0"])
            .replacingOccurrences(of: "web:1.0.0", with: "web:1.0.0 # {\"$imagepolicy\": \"flux-system:wbe\"}"))
        try r.write("clusters/prod/auto.yaml", imageUpdateAutomation(name: "auto", path: "./archive"))
        #expect(severities(try r.audit("--format", "json")).filter { $0.hasPrefix("marker") } == ["marker-unknown-policy archive/web.yaml:9:error"])
        // outside every update.path, what updates it is not known
        try r.remove("clusters/prod/auto.yaml")
        #expect(severities(try r.audit("--format", "json")).filter { $0.hasPrefix("marker") } == ["marker-unknown-policy archive/web.yaml:9:warning"])
    }

    @Test func declaringWhatAppliesAFileMakesItsFindingsFacts() throws {
        let r = try appliedRepo()
        try r.write(".tagwarden.yaml", "clusters:\n  - name: by-hand\n    paths: [archive]\n    fluxVersion: \"2.6\"\n")
        let res = try r.audit("--format", "json")
        // Flux 2.6 still serves v1beta1 (deprecated); the rest are errors and notes as anywhere applied
        #expect(severities(res) == ["api-deprecated archive/api.yaml:1:warning", "policy-unknown-repository archive/api.yaml:2:error",
                                    "policy-unused archive/api.yaml:2:note", "image-latest-tag archive/web.yaml:9:error"], "\(res.described)")
        #expect(res.findingObjects.allSatisfy { $0["assumption"] == nil })
        let text = try r.audit("--no-color")
        #expect(!text.stdout.contains("\napplied:"))
        let env = try tagwarden(["env"], in: r.path)
        #expect(env.stdout.contains("  cluster by-hand: Flux 2.6 (fluxVersion of cluster by-hand in .tagwarden.yaml:2)\n    declared in: .tagwarden.yaml:2\n"
                                    + "    applies: 3 files through 0 Flux Kustomizations\n"), "\(env.stdout)")
    }

    @Test func aFileItsDirectorysKustomizationLeavesOutIsNotDeployed() throws {
        let r = try appliedRepo()
        try r.remove("archive/web.yaml")
        try r.remove("archive/api.yaml")
        try r.write("apps/prod/kustomization.yaml", "resources:\n  - web.yaml\n  # - old.yaml\ntransformers: [labels.yaml]\n")
        try r.write("apps/prod/old.yaml", pod("old", namespace: "web", images: ["ghcr.io/acme/old:latest"]))
        try r.write("apps/prod/unlisted.yaml", pod("unlisted", namespace: "web", images: ["ghcr.io/acme/unlisted:latest"]))
        // (a name that ends a listed one is not named: jesse-gonzalez/nai-llm-fleet-infra's `.sops.yaml` beside `cluster-secrets.sops.yaml`)
        try r.write("apps/prod/b.yaml", pod("b", namespace: "web", images: ["ghcr.io/acme/b:latest"]))
        try r.write("apps/prod/web-b.yaml", pod("wb", namespace: "web", images: ["ghcr.io/acme/wb:1.0.0"]))
        try r.write("apps/prod/kustomization.yaml", "resources:\n  - web.yaml\n  - web-b.yaml\n  # - old.yaml\ntransformers: [labels.yaml]\n")
        // a Flux Kustomization in a bootstrapped cluster's directory that its kustomization does not list is not a
        // second cluster, and what it builds is not deployed either
        try r.write("clusters/prod/kustomization.yaml", "resources: [flux-system, apps.yaml]\n")
        try r.write("clusters/prod/backup.yaml", fluxKustomization(name: "backup", path: "./backup"))
        try r.write("backup/job.yaml", pod("backup", namespace: "backup", images: ["ghcr.io/acme/backup:latest"]))
        let res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        let env = try tagwarden(["env", "--applied"], in: r.path)
        #expect(env.stdout.contains("  apps/prod/old.yaml  not deployed: commented out of apps/prod/kustomization.yaml, which builds its directory\n"), "\(env.stdout)")
        #expect(env.stdout.contains("  apps/prod/unlisted.yaml  not deployed: apps/prod/kustomization.yaml, which builds its directory, does not list it\n"))
        #expect(env.stdout.contains("  apps/prod/b.yaml  not deployed: apps/prod/kustomization.yaml, which builds its directory, does not list it\n"))
        #expect(env.stdout.contains("  clusters/prod/backup.yaml  not deployed: clusters/prod/kustomization.yaml, which builds its directory, does not list it\n"))
        #expect(env.stdout.contains("  backup/job.yaml  not deployed: only Flux Kustomization backup of clusters/prod/backup.yaml builds it, and that file is not deployed\n"))
        #expect(!env.stdout.contains("cluster clusters/prod/backup") && env.stdout.components(separatedBy: "\n  cluster ").count == 2, "\(env.stdout)")
        // a marker there is still judged, as a warning that says the file is not deployed
        try r.write("apps/prod/old.yaml", pod("old", namespace: "web", images: ["ghcr.io/acme/old:1.0.0"])
            .replacingOccurrences(of: "old:1.0.0", with: "old:1.0.0 # {\"$imagepolicy\": \"flux-system:old\"}"))
        let marked = try r.audit("--format", "json")
        // (the repository holds no ImagePolicy and no automation: a note that says the policy is made elsewhere)
        #expect(severities(marked) == ["marker-unknown-policy apps/prod/old.yaml:9:note"])
        #expect(marked.findingObjects.first?["assumption"] as? String
                == "this file is not deployed: commented out of apps/prod/kustomization.yaml, which builds its directory")
    }

    /// khzaw/rangoonpulse's layout: the cluster's kustomization lists the Flux Kustomizations of a subdirectory one by
    /// one; one it leaves out is not deployed, not the root of a cluster of its own.
    @Test func aFileAKustomizationAboveListsItsSiblingsOfIsLeftOut() throws {
        let r = try appliedRepo()
        try r.remove("archive/web.yaml")
        try r.remove("archive/api.yaml")
        try r.write("clusters/prod/kustomization.yaml", "resources:\n  - flux-system\n  - apps.yaml\n  - ./more/listed.yaml\n")
        try r.write("clusters/prod/more/listed.yaml", fluxKustomization(name: "listed", path: "./apps/prod"))
        try r.write("clusters/prod/more/backup.yaml", fluxKustomization(name: "backup", path: "./backup"))
        try r.write("backup/job.yaml", pod("backup", namespace: "backup", images: ["ghcr.io/acme/backup:latest"]))
        let res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        let env = try tagwarden(["env", "--applied"], in: r.path)
        #expect(env.stdout.contains("  clusters/prod/more/backup.yaml  not deployed: clusters/prod/kustomization.yaml, which lists the files of "
                                    + "clusters/prod/more one by one, does not list it\n"), "\(env.stdout)")
        #expect(env.stdout.components(separatedBy: "\n  cluster ").count == 2, "\(env.stdout)")
        // a Flux Kustomization whose generated build takes the directory whole: nothing is left out, and listed.yaml is
        // applied by it and by flux-system, whose kustomization lists the file
        try r.write("clusters/prod/sync-more.yaml", fluxKustomization(name: "more", path: "./clusters/prod/more"))
        try r.write("clusters/prod/kustomization.yaml", "resources:\n  - flux-system\n  - apps.yaml\n  - ./more/listed.yaml\n  - sync-more.yaml\n")
        let more = try r.audit("--format", "json")
        #expect(severities(more) == ["image-latest-tag backup/job.yaml:9:error", "object-duplicate clusters/prod/flux-system/gotk-sync.yaml:16:warning"],
                "\(more.described)")
    }

    @Test func aSyncAppliedByHandBesideItsKustomizationIsNotLeftOut() throws {
        // cpho-phase2's layout: each directory's sync.yaml builds its own directory and is applied with kubectl apply -f
        let r = try TempRepo()
        try r.write("k8s/db/kustomization.yaml", "resources: [db.yaml]\n")
        try r.write("k8s/db/db.yaml", pod("db", namespace: "db", images: ["ghcr.io/acme/db:latest"]))
        try r.write("k8s/db/sync.yaml", fluxKustomization(name: "db", path: "./k8s/db"))
        // a cluster of its own, inferred: nothing here applies its root, so its findings are warnings until it is declared
        let res = try r.audit("--format", "json")
        #expect(severities(res) == ["image-latest-tag k8s/db/db.yaml:9:warning"], "\(res.described)")
        #expect(res.findingObjects.first?["assumption"] as? String == "cluster k8s/db is taken to be applied from outside this repository "
                + "(nothing here applies k8s/db/sync.yaml); declare it under clusters: in .tagwarden.yaml")
        let env = try tagwarden(["env", "--applied"], in: r.path)
        #expect(!env.stdout.contains("not deployed"), "\(env.stdout)")
        #expect(env.stdout.contains("    inferred: cluster k8s/db is taken to be applied from outside this repository"), "\(env.stdout)")
        try r.write(".tagwarden.yaml", "clusters:\n  - name: k8s/db\n")
        #expect(severities(try r.audit("--format", "json")) == ["image-latest-tag k8s/db/db.yaml:9:error"])
    }

    /// Shapes `scripts/applied-vs-kustomize` found on real repositories, each checked against `kubectl kustomize`.
    @Test func topologyAsKustomizeBuildsIt() throws {
        let r = try TempRepo()
        // stuttgart-things: bootstrap's sync file holds a second Flux Kustomization, which the cluster applies too
        let sync = fluxKustomization(name: "flux-system", path: "./clusters/prod") + "---\n" + fluxKustomization(name: "extra", path: "./extra")
        try r.write("clusters/prod/flux-system/gotk-sync.yaml", sync)
        try r.write("clusters/prod/flux-system/kustomization.yaml", "resources: [gotk-sync.yaml]\n")
        try r.write("extra/job.yaml", pod("job", namespace: "jobs", images: ["ghcr.io/acme/job:1.0.0"]))
        // Tomyail/talos-cluster: an app's Flux Kustomization in the directory it builds, which a parent's generated build
        // takes too through a kustomization that sets its namespace: the namespace both builds give it
        try r.write("clusters/prod/apps.yaml", fluxKustomization(name: "apps", path: "./apps"))
        try r.write("apps/network/kustomization.yaml", "namespace: network\nresources: [./dns/ks.yaml]\n")
        try r.write("apps/network/dns/ks.yaml", fluxKustomization(name: "dns", namespace: "network", path: "./apps/network/dns", spec: "  targetNamespace: network\n")
            .replacingOccurrences(of: "  namespace: network\n", with: ""))
        // wahooli: an inline `$patch: delete` of a workload: its image runs nowhere
        try r.write("apps/network/dns/kustomization.yaml", "resources: [web.yaml]\npatches:\n  - target: {kind: Deployment, name: web}\n    patch: |\n      $patch: delete\n"
                    + "      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: web}\n")
        try r.write("apps/network/dns/web.yaml", deployment(name: "web", namespace: "network", image: "ghcr.io/acme/web:1.0.0"))
        let env = try JSONSerialization.jsonObject(with: Data(try tagwarden(["env", "--format", "json"], in: r.path).stdout.utf8)) as? [String: Any]
        let cluster = try #require((env?["clusters"] as? [[String: Any]])?.first)
        let builds = (cluster["builds"] as? [[String: Any]] ?? []).map { "\($0["namespace"] ?? "-")/\($0["name"]!) \($0["path"]!)" }
        #expect(builds == ["network/dns apps/network/dns", "flux-system/apps apps", "flux-system/flux-system clusters/prod", "flux-system/extra extra"],
                "\(builds)")
        let job = (cluster["images"] as? [[String: Any]] ?? []).first { $0["file"] as? String == "extra/job.yaml" }
        #expect(job?["writtenTagRuns"] as? Bool == true && job?["builtBy"] as? [String] == ["flux-system/extra"], "\(String(describing: job))")
        let web = (cluster["images"] as? [[String: Any]] ?? []).first { $0["file"] as? String == "apps/network/dns/web.yaml" }
        #expect(web?["writtenTagRuns"] as? Bool == false, "\(String(describing: web))")
    }

    @Test func placeholdersAndMisformedMarkersAreNoImages() throws {
        let r = try TempRepo()
        // Istio's injection fills `image: auto`
        try r.write("apps/web.yaml", pod("web", namespace: "web", images: ["ghcr.io/acme/web:1.0.0", "auto"]))
        // a whole-reference marker on a tag: the field is a tag, which marker-wrong-form judges, not an image without one
        try r.write("apps/values.yaml", "image:\n  repository: ghcr.io/acme/web\n  tag: 1.21.1 # {\"$imagepolicy\": \"flux-system:web\"}\n")
        try r.write("flux/images.yaml", imageRepository() + "---\n" + imagePolicy() + "---\n" + imageUpdateAutomation(name: "apps", path: "./apps"))
        let res = try r.audit("--format", "json")
        #expect(res.findings.filter { !$0.hasPrefix("automation-") && !$0.hasPrefix("policy-") } == ["marker-wrong-form apps/values.yaml:3:15"], "\(res.described)")
    }

    @Test func aPatternWithVariablesIsNotJudgedAsWritten() throws {
        // cpho-phase2's sync-template.yaml: a template CI fills in per branch
        let r = try TempRepo()
        try r.write("flux/images.yaml", imageRepository() + """
            ---
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImagePolicy
            metadata: {name: "${BRANCH_NAME}-web", namespace: flux-system}
            spec:
              imageRepositoryRef: {name: web}
              filterTags: {pattern: '^${BRANCH_NAME}-[a-fA-F0-9]+-(?P<ts>[0-9]+)', extract: $ts}
              policy: {numerical: {order: asc}}

            """)
        let res = try r.audit("--format", "json")
        // as written, `^$` would match no tag; the pattern is what the substitution makes of it
        #expect(res.findings == ["policy-unused flux/images.yaml:7:7"], "\(res.described)")
    }

    @Test func syntaxAndComposedChartImagesWhereNoClusterApplies() throws {
        let r = try appliedRepo()
        try r.remove("archive/web.yaml")
        try r.remove("archive/api.yaml")
        // a template no cluster applies: its syntax errors are notes that say so
        try r.write("archive/claim.yaml", "metadata:\n  name: {{ .name }\n")
        // Istio's values compose hub/image:tag: `image: pilot` is no image without a tag
        try r.write("archive/istiod.yaml", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: istiod, namespace: istio-system}\n"
                    + "spec:\n  values:\n    pilot:\n      hub: docker.io/istio\n      tag: 1.22.3\n      image: pilot\n"
                    + "    global:\n      hub: docker.io/istio\n      tag: 1.22.3\n      proxy:\n        image: proxyv2\n")
        let res = try r.audit("--format", "json")
        #expect(severities(res) == ["yaml-syntax archive/claim.yaml:2:note", "yaml-syntax archive/claim.yaml:3:note"], "\(res.described)")
        #expect(res.findingObjects.allSatisfy { ($0["message"] as? String)?.hasSuffix("(no cluster in this repository applies this file)") == true })
    }

    @Test func aFluxInstanceSyncAppliesItsPath() throws {
        // flux-operator's flux-instance chart, as the cluster templates lay it out: the values name the path it syncs
        let r = try TempRepo()
        try r.write("kubernetes/apps/flux-system/flux-instance/app/helm/values.yaml",
                    "instance:\n  sync:\n    kind: GitRepository\n    url: https://github.com/acme/cluster.git\n    path: kubernetes/flux/cluster\n")
        try r.write("kubernetes/flux/cluster/ks.yaml", fluxKustomization(name: "apps", path: "./kubernetes/apps/web"))
        try r.write("kubernetes/apps/web/web.yaml", pod("web", namespace: "web", images: ["ghcr.io/acme/web:latest"]))
        let res = try r.audit("--format", "json")
        #expect(severities(res) == ["image-latest-tag kubernetes/apps/web/web.yaml:9:error"], "\(res.described)")
        let env = try tagwarden(["env"], in: r.path)
        #expect(env.stdout.contains("  cluster kubernetes/flux/cluster: Flux version unknown: current Flux (2.9) assumed\n"
                                    + "    synced by: the FluxInstance sync at kubernetes/apps/flux-system/flux-instance/app/helm/values.yaml:5\n"), "\(env.stdout)")
    }

    @Test func theFluxInstanceChartsValuesSayWhichFluxTheClusterRuns() throws {
        // Tomyail/talos-cluster: the cluster applies the chart's values, which a configMapGenerator hands the release
        let r = try TempRepo()
        try r.write("kubernetes/apps/flux-system/flux-instance/app/helm/values.yaml",
                    "instance:\n  distribution:\n    version: 2.3.x\n  sync:\n    kind: GitRepository\n    url: https://github.com/acme/cluster.git\n"
                        + "    path: kubernetes/flux/cluster\n")
        try r.write("kubernetes/apps/flux-system/flux-instance/app/kustomization.yaml",
                    "resources: [helmrelease.yaml]\nconfigMapGenerator:\n  - name: flux-instance-values\n    files: [values.yaml=./helm/values.yaml]\n")
        try r.write("kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml",
                    "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: flux-instance, namespace: flux-system}\n"
                        + "spec:\n  chartRef: {kind: OCIRepository, name: flux-instance}\n  valuesFrom:\n    - {kind: ConfigMap, name: flux-instance-values}\n")
        try r.write("kubernetes/flux/cluster/ks.yaml", fluxKustomizations([("flux-instance", "./kubernetes/apps/flux-system/flux-instance/app"),
                                                                          ("web", "./kubernetes/apps/web")]))
        // Flux 2.3 serves image.toolkit.fluxcd.io/v1beta2, which current Flux no longer does
        try r.write("kubernetes/apps/web/policy.yaml", imagePolicy(apiVersion: "v1beta2"))
        let env = try tagwarden(["env"], in: r.path)
        #expect(env.stdout.contains("  cluster kubernetes/flux/cluster: Flux 2.3 (flux-instance chart values in "
                                    + "kubernetes/apps/flux-system/flux-instance/app/helm/values.yaml:3, distribution 2.3.x)\n"), "\(env.stdout)")
        let res = try r.audit("--format", "json")
        #expect(!res.findings.contains { $0.hasPrefix("api-removed") }, "\(res.findings)")
    }

    @Test func aMarkerOfARepositoryWithoutPoliciesNamesAPolicyMadeElsewhere() throws {
        // markers only: the ImagePolicies (and the automation) live in the platform's repository
        let r = try TempRepo()
        try r.write("deploy/web.yaml", pod("web", namespace: "web", images: [#"ghcr.io/acme/web:1.0.0 # {"$imagepolicy": "flux-system:web"}"#]))
        let res = try r.audit("--format", "json")
        // (nor any automation: the one that reads the marker, and its policy, are made elsewhere, and not judged)
        #expect(severities(res) == ["marker-unknown-policy deploy/web.yaml:9:note"], "\(res.described)")
        #expect((res.findingObjects.first?["message"] as? String)?.hasPrefix("ImagePolicy flux-system/web is not in the repository, which "
                + "defines no ImagePolicy and no ImageUpdateAutomation: the automation that reads this marker and its policy are made elsewhere, "
                + "so whether Flux updates this field is not judged here") == true, "\(res.described)")
        // an automation of this repository reads it: the policy made elsewhere is a premise
        try r.write("flux/automation.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\n"
                    + "metadata: {name: auto, namespace: flux-system}\nspec:\n  sourceRef: {kind: GitRepository, name: flux-system}\n"
                    + "  git: {commit: {author: {email: bot@example.com}}, push: {branch: main}}\n  update: {path: ./deploy}\n")
        #expect(severities(try r.audit("--format", "json")).filter { $0.hasPrefix("marker-") } == ["marker-unknown-policy deploy/web.yaml:9:warning"])
        // a cluster declared here is one whose objects are all here: then the absence is a fact
        try r.write(".tagwarden.yaml", "clusters:\n  - name: tenant\n    paths: [deploy]\n")
        #expect(severities(try r.audit("--format", "json")).filter { $0.hasPrefix("marker-") } == ["marker-unknown-policy deploy/web.yaml:9:error"])
    }

    @Test func aPrefixOfOneEnvironmentIsABranchName() throws {
        // Flux's own guide: builds tagged main-<sha>-<ts>, one environment
        let r = try TempRepo()
        try r.write("apps/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:1.4.2"]))
        try r.write("apps/production/policies.yaml", ["web", "api"].map {
            imagePolicy(name: $0, repository: "web", pattern: "^main-[a-fA-F0-9]+-(?P<ts>[0-9]+)", extract: "$ts", order: .numerical("asc"))
        }.joined(separator: "---\n"))
        try r.write("flux/repo.yaml", imageRepository())
        let res = try r.audit("--format", "json")
        #expect(!res.findings.contains { $0.hasPrefix("image-env-prefix") || $0.hasPrefix("policy-selects-nothing") }, "\(res.findings)")
        let env = try tagwarden(["env"], in: r.path)
        #expect(env.stdout.contains("  tag prefix:     none  ('main-' inferred from 2 of 2 ImagePolicies, but no other environment has a prefix of its own"), "\(env.stdout)")
    }

    @Test func envReadsTheRepositoryAsTheAuditDoes() throws {
        // a chart's templates, an ignored directory and a ytt template are not the audit's input, nor env's
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "ignore: [\"vendor/**\"]\n")
        try r.write("apps/web.yaml", pod("web", images: ["nginx:1.25.3"]))
        try r.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n")
        try r.write("charts/web/templates/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n")
        try r.write("vendor/thing.yaml", pod("thing", images: ["nginx:latest"]))
        try r.write("ytt/values.yaml", "#@data/values\n---\nimage: nginx\n")
        let audit = try r.audit("--no-color")
        #expect(audit.stdout.contains("\napplied: 2 files that no cluster here applies"), "\(audit.stdout)")
        let env = try tagwarden(["env", "--applied"], in: r.path)
        #expect(env.stdout.contains("  2 files are reached by no cluster here"), "\(env.stdout)")
        #expect(env.stdout.contains("apps/web.yaml  reached by no cluster here") && !env.stdout.contains("templates/deploy.yaml")
                && !env.stdout.contains("vendor/") && !env.stdout.contains("ytt/"), "\(env.stdout)")
    }

    @Test func initWritesTheClustersAndListsWhatNoClusterApplies() throws {
        let r = try appliedRepo()
        let text = try tagwarden(["init", "--stdout"], in: r.path).stdout
        #expect(text.contains("clusters:\n  - name: clusters/prod\n    fluxVersion: 2.7.0  # app.kubernetes.io/version v2.7.0 of Namespace "
                              + "flux-system in clusters/prod/flux-system/gotk-components.yaml\n"), "\(text)")
        #expect(text.contains("#   - name: applied-by-hand\n#     paths:\n#       - archive  # 3 files\n"), "\(text)")
        // what it writes is a valid config, and declaring the listed directory makes its findings facts
        try r.write(".tagwarden.yaml", text.replacingOccurrences(of: "#   - name: applied-by-hand\n#     paths:\n#       - archive",
                                                                   with: "  - name: applied-by-hand\n    paths:\n      - archive"))
        let res = try r.audit("--format", "json")
        #expect(res.code == 1 && res.findingObjects.contains { $0["rule"] as? String == "image-latest-tag" && $0["severity"] as? String == "error" },
                "\(res.described)")
    }

    @Test func initWritesAPatternThatAgreesWithThePrefix() throws {
        let r = try TempRepo()
        try r.write("apps/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:k8s-v1.4.2-3f9c2ab-1718000000", "ghcr.io/acme/api:k8s-v2.0.0-abcdef1-1718000001"]))
        try r.write("apps/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:stg-v1.5.0-0a1b2c3-1718000100"]))
        try r.write("flux/repo.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata:\n  name: web\nspec:\n  image: ghcr.io/acme/web\n---\n"
                    + "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata:\n  name: api\nspec:\n  image: ghcr.io/acme/api\n")
        let text = try tagwarden(["init", "--stdout"], in: r.path).stdout
        #expect(text.contains("    tagPrefix: k8s-  # what every production tag seen has\n"
                              + "    tagPattern: '^k8s-v[0-9]+\\.[0-9]+\\.[0-9]+-[0-9a-f]{7,40}-[0-9]+$'  # what every production tag seen has\n"), "\(text)")
        #expect(text.contains("    tagPrefix: stg-  # what every staging tag seen has\n"), "\(text)")
        #expect(text.contains("# Flux's own controllers (flux bootstrap's gotk-components.yaml) need no digests"))
        // the config it writes passes its own tags
        try r.write(".tagwarden.yaml", text)
        #expect(try r.audit("--format", "json").findings.filter { $0.hasPrefix("image-tag-pattern") || $0.hasPrefix("image-env-prefix") } == [])
        // tags the strict pattern does not fit: no pattern rather than a wrong one
        try r.write("apps/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:k8s-20240101"]))
        let other = try tagwarden(["init", "--stdout"], in: r.path).stdout
        #expect(other.contains("    tagPrefix: k8s-  # what every production tag seen has\n") && !other.contains("    tagPattern:"), "\(other)")
        // one environment's prefix alone may be the branch builds come from: a comment, not a setting
        try r.remove("apps/staging/web.yaml")
        let alone = try tagwarden(["init", "--stdout"], in: r.path).stdout
        #expect(alone.contains("    # tag prefixes seen: k8s-\n") && !alone.contains("    tagPrefix:"), "\(alone)")
    }

    @Test func aFluxUpgradeOrALabelChangeReportsNothingNew() throws {
        let r = try TempRepo()
        try bootstrap("clusters/prod", flux: "v2.7.0", in: r)
        try r.write("clusters/prod/policy.yaml", imagePolicy(apiVersion: "v1beta2") + "---\n" + imageRepository())
        try r.write("clusters/prod/app.yaml", pod("app", namespace: "apps", images: ["ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:wb\"}", "nginx:latest"]))
        try r.write("clusters/prod/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n  labels: {team: a}\n")
        try r.commitAll("base")
        let before = try r.audit("--format", "json")
        #expect(before.findings == ["marker-unknown-policy clusters/prod/app.yaml:9:37", "image-latest-tag clusters/prod/app.yaml:11:14",
                                    "api-deprecated clusters/prod/policy.yaml:1:13", "policy-unused clusters/prod/policy.yaml:2:7"], "\(before.findings)")
        try r.git("checkout", "-q", "-b", "upgrade")
        // the Flux upgrade: new version labels (api-deprecated's message and severity change), a namespace label, another
        // policy that changes the marker's "did you mean", an unrelated file
        let components = try String(contentsOfFile: r.path + "/clusters/prod/flux-system/gotk-components.yaml", encoding: .utf8)
        try r.write("clusters/prod/flux-system/gotk-components.yaml", components.replacingOccurrences(of: "v2.7.0", with: "v2.8.1")
            .replacingOccurrences(of: "source-controller:v1.3.0", with: "source-controller:v1.4.0"))
        try r.write("clusters/prod/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n  labels: {team: b, environment: prod}\n")
        try r.write("clusters/prod/policy2.yaml", imagePolicy(name: "wb2", repository: "web"))
        try r.write("README.yaml", "note: unrelated\n")
        try r.commitAll("upgrade Flux")
        let after = try r.audit("--format", "json")
        #expect(Set(after.findingObjects.map { $0["message"] as? String ?? "" }) != Set(before.findingObjects.map { $0["message"] as? String ?? "" }),
                "the messages change")
        // nothing the base had is new: only the new policy's own note
        let res = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(res.code == 0 && res.findings == ["policy-unused clusters/prod/policy2.yaml:2:7"], "\(res.findings) \(res.stderr)")
        // while a new problem is new
        try r.write("clusters/prod/app2.yaml", pod("app2", namespace: "apps", images: ["redis:latest"]))
        try r.commitAll("a new latest")
        let more = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path).findings
        #expect(more == ["image-latest-tag clusters/prod/app2.yaml:9:14", "policy-unused clusters/prod/policy2.yaml:2:7"], "\(more)")
    }

    @Test func messagesAboutSkippedMarkersAndOtherRepositories() throws {
        let r = try TempRepo()
        try r.git("remote", "add", "origin", "git@github.com:acme/fleet.git")
        func gitRepository(_ name: String, _ namespace: String, _ url: String) -> String {
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: \(name), namespace: \(namespace)}\nspec: {url: '\(url)'}\n"
        }
        try r.write("flux/flux.yaml", [
            imagePolicy(pattern: "^v[0-9]+\\.[0-9]+\\.[0-9]+$"), imagePolicy(name: "app", namespace: "apps"),
            imageRepository(), imageRepository(name: "app", namespace: "apps", image: "ghcr.io/acme/app"),
            gitRepository("flux-system", "flux-system", "https://github.com/acme/fleet"), gitRepository("app-repo", "apps", "https://github.com/acme/app"),
            imageUpdateAutomation(name: "fleet", path: "./apps"), imageUpdateAutomation(name: "app", namespace: "apps", source: "app-repo", path: "./deploy"),
        ].joined(separator: "---\n"))
        try r.write("apps/web.yaml", pod("web", images: ["ghcr.io/acme/web:v1.0.0 # {\"$imagepolicy\": \"flux-system:web\"}"]))
        // outside every update.path: Flux skips the marker, so nothing is said of what it would write
        try r.write("other/web.yaml", pod("web2", images: ["ghcr.io/acme/web:main # {\"$imagepolicy\": \"flux-system:web\"}"]))
        let res = try r.audit("--format", "json")
        // the app policy's markers live in the app repository, which its automation updates: not unused
        #expect(res.findings == ["image-floating-tag other/web.yaml:8:14", "marker-ignored other/web.yaml:8:36"], "\(res.findings)")
        // ./deploy is a path of the app repository: not looked for here
        #expect(!res.findings.contains { $0.hasPrefix("automation-missing-path") })
    }

    @Test func artifactsAndSiblingsAndPathsAboveTheRoot() throws {
        let r = try TempRepo()
        try bootstrap("clusters/production", flux: "v2.8.0", in: r)
        // staging is bootstrapped too, but its sync is not in the repository: a cluster beside production's
        try r.write("clusters/staging/apps.yaml", fluxKustomization(path: "../apps/staging"))
        try r.write("clusters/production/apps.yaml", fluxKustomization(path: "./apps/production"))
        // a Kustomization of an OCI artifact: `./` is the artifact's root, not this repository's
        try r.write("clusters/production/policies.yaml", fluxKustomization(name: "kyverno", path: "./", spec: "  sourceRef: {kind: OCIRepository, name: policies}\n"))
        for env in ["staging", "production"] {
            try r.write("apps/\(env)/config.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata: {env: \(env)}\n")
        }
        #expect(try r.audit("--format", "json").findings == [])
        let env = try tagwarden(["env", "--applied"], in: r.path)
        #expect(env.stdout.contains("  apps/staging/config.yaml  cluster clusters/staging by flux-system/apps\n"), "\(env.stdout)")
        #expect(env.stdout.contains("  apps/production/config.yaml  cluster clusters/production by flux-system/apps\n"), "\(env.stdout)")
    }

    @Test func bootstrapsSourceIsThisRepositoryWhateverTheRemote() throws {
        // a clone from a mirror: no remote names the GitRepository, and there are two, but flux bootstrap's sync reads this one
        let r = try TempRepo()
        try r.git("remote", "add", "origin", "/srv/mirrors/fleet.git")
        try bootstrap("clusters/prod", flux: "v2.8.0", in: r)
        try r.write("clusters/prod/sources.yaml", "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: charts, namespace: flux-system}\nspec: {url: 'https://github.com/acme/charts'}\n")
        try r.write("clusters/prod/auto.yaml", imageUpdateAutomation(name: "auto", path: "./apps/missing"))
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["automation-missing-path clusters/prod/auto.yaml:7:18"])
        #expect(res.findingObjects.first?["message"] as? String == "update.path './apps/missing' holds no manifest in this tree: the automation updates nothing")
    }

    /// The guardrails of a promotion workflow that checks "each overlay's tag matches its own ImagePolicy, with the
    /// setter comment", failed under the strict profile: a watched field with no marker, a marker naming the other
    /// environment's policy in its namespace (which Flux skips), and a staging tag in production where the
    /// ImageRepository's image is written with a variable this repository does not give a value.
    @Test func thePromotionGuardrailsFailUnderTheStrictProfile() throws {
        let r = try TempRepo()
        for (env, namespace) in [("staging", "staging"), ("production", "flux-system")] {
            try bootstrap("clusters/\(env)", flux: "v2.7.0", in: r)
            try r.write([
                "clusters/\(env)/apps.yaml": fluxKustomization(path: "./apps/\(env)"),
                "clusters/\(env)/images.yaml": [
                    imageRepository(name: "frontend", namespace: namespace, image: "\"${image_registry}/frontend\""),
                    imagePolicy(name: "frontend-\(env)", namespace: namespace, repository: "frontend", pattern: "^\(env)-(?P<v>.*)$", extract: "$v"),
                    imageUpdateAutomation(name: "apps", namespace: namespace, path: "./apps/\(env)"),
                ].joined(separator: "---\n"),
            ])
        }
        func deployment(_ name: String, _ image: String) -> String {
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: \(name), namespace: web}\nspec:\n  template:\n    spec:\n"
                + "      containers:\n        - name: web\n          image: \(image)\n"
        }
        try r.write([
            "apps/staging/web.yaml": deployment("web", #"ghcr.io/acme/frontend:staging-1.0.0 # {"$imagepolicy": "staging:frontend-staging"}"#),
            "apps/production/web.yaml": deployment("web", #"ghcr.io/acme/frontend:production-1.0.0 # {"$imagepolicy": "flux-system:frontend-production"}"#),
            "apps/production/worker.yaml": deployment("worker", #"ghcr.io/acme/frontend:staging-1.0.0 # {"$imagepolicy": "staging:frontend-staging"}"#),
        ])
        try r.commitAll("the workflow")
        let res = try r.audit("--format", "json", "--profile", "strict")
        #expect(res.code == 1, "\(res.described)")
        let worker = res.findingObjects.filter { $0["file"] as? String == "apps/production/worker.yaml" && $0["severity"] as? String == "error" }
            .map { "\($0["rule"]!):\($0["line"]!)" }
        // the staging tag (the repository's image is known through the marker that names its policy) and the marker
        // naming staging's policy; a digest too, which production requires under the strict profile
        #expect(worker.sorted() == ["image-env-prefix:9", "image-not-pinned:9", "marker-env-mismatch:9"], "\(res.stdout)")
        let message = res.findingObjects.first { $0["rule"] as? String == "marker-env-mismatch" }?["message"] as? String
        #expect(message == "this production field names policy staging/frontend-staging, which belongs to staging, and Flux skips the marker "
                + "(policy namespace staging is not the namespace of the automations that update this file (flux-system); Flux only uses policies "
                + "in an automation's own namespace): no production policy updates this field; name the production policy", "\(res.stdout)")
        #expect(!res.findingObjects.contains { $0["file"] as? String == "apps/production/web.yaml" && $0["rule"] as? String == "image-env-prefix" })
    }
}
