import Testing
import TagwardenBasics
import TagwardenModel
import TagwardenFixtures
@testable import TagwardenUpdate

/// Each cluster's Flux runs the automations it applies with its own policies: the same namespace and name in two
/// clusters are two policies, and no run writes a value its own cluster's policy did not choose.
@Suite struct UpdateRunsTests {
    let tags = #"{"ghcr.io/acme/frontend": ["dev-1", "dev-2", "main-1", "main-3", "feat-5", "master-6"]}"#

    func plan(_ files: [String: String], config: Config = Config()) throws -> (UpdatePlan, Model) {
        let sources = files.sorted { $0.key < $1.key }.map { SourceFile(path: $0.key, bytes: Array($0.value.utf8)) }
        let model = try Model.build(sources, config: config, profile: nil)
        return (try Updater.plan(model, files: sources, tags: TagFile.parse(Array(tags.utf8), path: "tags.json")), model)
    }

    func policy(_ name: String, prefix: String) -> String {
        imagePolicy(name: name, repository: "frontend", pattern: "^\(prefix)-(?P<n>[0-9]+)$", extract: "$n", order: .numerical("asc"))
    }

    /// What each file's marked line holds after the plan.
    func images(_ plan: UpdatePlan) -> [String: String] {
        Dictionary(uniqueKeysWithValues: plan.files.map { f in
            (f.path, String(decoding: f.after, as: UTF8.self).split(separator: "\n").first { $0.contains("image:") }!
                .split(separator: " ").dropFirst().first.map(String.init)!)
        })
    }

    /// Two clusters, each with automation flux-system/flux-system over its own directory and policies
    /// flux-system/frontend and flux-system/feature of its own.
    func twoClusters() -> [String: String] {
        var files: [String: String] = [:]
        for (env, main, feature) in [("development", "dev", "feat"), ("production", "main", "master")] {
            files.merge(bootstrapFiles("clusters/\(env)", flux: "v2.7.0")) { a, _ in a }
            files["clusters/\(env)/images.yaml"] = [imageRepository(name: "frontend", image: "ghcr.io/acme/frontend"),
                                                    policy("frontend", prefix: main), policy("feature", prefix: feature),
                                                    imageUpdateAutomation(name: "flux-system", path: "./clusters/\(env)")].joined(separator: "---\n")
            files["clusters/\(env)/apps/frontend.yaml"] = deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:\(main)-1",
                                                                     marker: "flux-system:frontend") + "---\n"
                + deployment(name: "feature", namespace: "web", image: "ghcr.io/acme/frontend:old", marker: "flux-system:feature")
        }
        return files
    }

    @Test func sameNamedAutomationsAndPoliciesOfTwoClustersEachWriteTheirOwnClustersChoice() throws {
        let (plan, _) = try plan(twoClusters())
        #expect(plan.errors == [])
        #expect(plan.automations.map(\.label) == ["flux-system/flux-system (cluster clusters/development)",
                                                  "flux-system/flux-system (cluster clusters/production)"])
        let written = plan.files.map { f in f.changes.map { "\(f.path):\($0.line) \($0.newValue)" } }.flatMap { $0 }
        #expect(written == ["clusters/development/apps/frontend.yaml:9 ghcr.io/acme/frontend:dev-2",
                            "clusters/development/apps/frontend.yaml:19 ghcr.io/acme/frontend:feat-5",
                            "clusters/production/apps/frontend.yaml:9 ghcr.io/acme/frontend:main-3",
                            "clusters/production/apps/frontend.yaml:19 ghcr.io/acme/frontend:master-6"])
    }

    /// squaremo/xamaral: the automation's cluster applies only its `flux` directory, and a Makefile applies the generated
    /// `gen/all.yaml`, which holds the marked Deployment with its ImagePolicy and ImageRepository. A file no cluster here
    /// reaches may be applied to this cluster from outside (the audit takes it so): its policy is this run's, and the
    /// bot's commit is replayed (0.0.41 to 0.0.42). One that another cluster applies is not this run's.
    @Test func aPolicyInAFileNoClusterReachesIsTheRunsToo() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
        files["clusters/prod/automation.yaml"] = imageUpdateAutomation(name: "flux-system", path: "./gen")
        files["gen/all.yaml"] = deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:dev-1", marker: "flux-system:frontend")
            + "---\n" + imageRepository(name: "frontend", image: "ghcr.io/acme/frontend") + "---\n" + policy("frontend", prefix: "dev")
        let (plan, _) = try plan(files)
        #expect(plan.errors == [])
        #expect(plan.files.flatMap { f in f.changes.map { "\(f.path):\($0.line) \($0.newValue)" } } == ["gen/all.yaml:9 ghcr.io/acme/frontend:dev-2"])
    }

    @Test func oneAutomationWhosePathEachClusterSubstitutesWritesEachClustersChoiceUnderItsPath() throws {
        var files: [String: String] = [:]
        for (env, main) in [("development", "dev"), ("production", "main")] {
            files.merge(bootstrapFiles("clusters/\(env)", flux: "v2.7.0")) { a, _ in a }
            files["clusters/\(env)/infrastructure.yaml"] = fluxKustomization(name: "automation", path: "./infrastructure/automation",
                                                                            spec: "  postBuild: {substitute: {CLUSTER: \(env)}}\n")
            files["clusters/\(env)/images.yaml"] = [imageRepository(name: "frontend", image: "ghcr.io/acme/frontend"),
                                                    policy("frontend", prefix: main)].joined(separator: "---\n")
            files["apps/\(env)/frontend.yaml"] = deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:\(main)-1",
                                                            marker: "flux-system:frontend")
        }
        files["infrastructure/automation/automation.yaml"] = imageUpdateAutomation(name: "apps", path: "./apps/${CLUSTER}")
            .replacingOccurrences(of: "author: {email: bot@example.com}}", with: "author: {email: bot@example.com}, "
                                  + "messageTemplate: '{{range $f, $_ := .Changed.FileChanges}}{{$f}} in ${CLUSTER}{{end}}'}")
        let (plan, _) = try plan(files)
        #expect(plan.errors == [])
        #expect(plan.automations.map { "\($0.label) \($0.paths)" } == ["flux-system/apps (cluster clusters/development) [\"apps/development\"]",
                                                                         "flux-system/apps (cluster clusters/production) [\"apps/production\"]"])
        #expect(images(plan) == ["apps/development/frontend.yaml": "ghcr.io/acme/frontend:dev-2",
                                 "apps/production/frontend.yaml": "ghcr.io/acme/frontend:main-3"])
        // each run's message names its files relative to its own path, and its template is substituted as its cluster's build does
        #expect(plan.automations.map { try? $0.message?.get() } == ["frontend.yaml in development", "frontend.yaml in production"])
    }

    @Test func twoClustersThatWriteOneFieldDifferentlyAreAnError() throws {
        var files = twoClusters()
        for env in ["development", "production"] {
            files["clusters/\(env)/images.yaml"] = files["clusters/\(env)/images.yaml"]!.replacingOccurrences(of: "'./clusters/\(env)'", with: "'./'")
            files["clusters/\(env)/shared.yaml"] = fluxKustomization(name: "shared", path: "./shared")
        }
        files["shared/frontend.yaml"] = deployment(name: "shared", namespace: "web", image: "ghcr.io/acme/frontend:x", marker: "flux-system:frontend")
        let (plan, _) = try plan(files)
        #expect(plan.errors.contains("shared/frontend.yaml:9:18: flux-system:frontend: ImageUpdateAutomation flux-system/flux-system (cluster "
                                     + "clusters/development) writes ghcr.io/acme/frontend:dev-2 and ImageUpdateAutomation flux-system/flux-system "
                                     + "(cluster clusters/production) writes ghcr.io/acme/frontend:main-3: each undoes the other on every run"))
        // a cluster's automation over the whole repository writes the other cluster's files, as Flux does, and says so
        #expect(plan.warnings.contains("clusters/production/apps/frontend.yaml: ImageUpdateAutomation flux-system/flux-system (cluster "
                                       + "clusters/development) writes this file, which cluster clusters/production applies, with its own cluster's policies"))
    }

    @Test func policiesOfOneNameThatNothingTellsApartAreNotGuessed() throws {
        // no cluster here: two policies of one name in one namespace, in no environment
        let files = ["a/images.yaml": [imageRepository(name: "frontend", image: "ghcr.io/acme/frontend"), policy("frontend", prefix: "dev"),
                                       imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n"),
                     "b/images.yaml": policy("frontend", prefix: "main"),
                     "apps/frontend.yaml": deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:x", marker: "flux-system:frontend")]
        let (plan, _) = try plan(files)
        #expect(plan.files.isEmpty)
        #expect(plan.automations.first?.markers.map(\.status) == [.skipped(
            "2 ImagePolicies flux-system/frontend that this run may use choose differently (a/images.yaml (dev-2), b/images.yaml (main-3)), and no cluster "
                + "here tells which one the automation's Flux has; declare the clusters under clusters: in .tagwarden.yaml")])
    }

    @Test func variablesAPatchGivesTheBootstrapKustomizationReachPathsImagesAndPolicies() throws {
        // flux-system's postBuild is in a patch beside it, as many clusters give their variables
        var files = bootstrapFiles("clusters/dev", flux: "v2.7.0")
        files["clusters/dev/kustomization.yaml"] = "resources: [flux-system, images.yaml]\npatches:\n  - path: post-build.yaml\n"
        files["clusters/dev/post-build.yaml"] = fluxKustomization(name: "flux-system", path: "./clusters/dev",
                                                                  spec: "  postBuild:\n    substitute: {FLUX_CONFIG_PATH: apps/dev, registry: ghcr.io/acme, env: dev}\n")
        files["clusters/dev/images.yaml"] = [imageRepository(name: "frontend", image: "'${registry}/frontend'"), policy("frontend", prefix: "${env}"),
                                             imageUpdateAutomation(name: "apps", path: "./${FLUX_CONFIG_PATH}")].joined(separator: "---\n")
        files["apps/dev/frontend.yaml"] = deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:dev-1", marker: "flux-system:frontend")
        let (plan, _) = try plan(files)
        #expect(plan.errors == [])
        #expect(plan.automations.map { "\($0.label) \($0.paths) \($0.skipped ?? "")" } == ["flux-system/apps (cluster clusters/dev) [\"apps/dev\"] "])
        #expect(images(plan) == ["apps/dev/frontend.yaml": "ghcr.io/acme/frontend:dev-2"])
    }

    @Test func aPolicysImageRepositoryIsTheOneItsClusterDeploys() throws {
        // two ImageRepositories flux-system/frontend: the first in path order is in a file the kustomization does not list
        var files = bootstrapFiles("clusters/dev", flux: "v2.7.0")
        files["clusters/dev/kustomization.yaml"] = "resources: [flux-system, images.yaml]\n"
        files["clusters/dev/a-old-registry.yaml"] = imageRepository(name: "frontend", image: "ghcr.io/acme/old/frontend")
        files["clusters/dev/images.yaml"] = [imageRepository(name: "frontend", image: "ghcr.io/acme/frontend"), policy("frontend", prefix: "dev"),
                                             imageUpdateAutomation(name: "apps", path: "./apps")].joined(separator: "---\n")
        files["apps/dev/frontend.yaml"] = deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:dev-1", marker: "flux-system:frontend")
        let (plan, _) = try plan(files)
        #expect(images(plan) == ["apps/dev/frontend.yaml": "ghcr.io/acme/frontend:dev-2"])
    }

    @Test func aSharedPolicyReadsTheImageRepositoryItsOwnClusterSubstitutes() throws {
        // one policy text in both clusters, and one ImageRepository each cluster's build makes with its own registry
        var files: [String: String] = [:]
        files["components/frontend/kustomization.yaml"] = "resources: [images.yaml]\n"
        files["components/frontend/images.yaml"] = [imageRepository(name: "frontend", image: "'${registry}/frontend'"),
                                                    policy("frontend", prefix: "main")].joined(separator: "---\n")
        for (env, registry) in [("eu", "ghcr.io/acme"), ("us", "ghcr.io/acme2")] {
            files.merge(bootstrapFiles("clusters/\(env)", flux: "v2.7.0")) { a, _ in a }
            files["clusters/\(env)/kustomization.yaml"] = "resources: [flux-system, frontend.yaml, automation.yaml]\n"
            files["clusters/\(env)/frontend.yaml"] = fluxKustomization(name: "frontend", path: "./components/frontend",
                                                                        spec: "  postBuild:\n    substitute: {registry: \(registry)}\n")
            files["clusters/\(env)/automation.yaml"] = imageUpdateAutomation(name: "apps", path: "./clusters/\(env)/apps")
            files["clusters/\(env)/apps/frontend.yaml"] = deployment(name: "frontend", namespace: "web", image: "\(registry)/frontend:main-1",
                                                                     marker: "flux-system:frontend")
        }
        let sources = files.sorted { $0.key < $1.key }.map { SourceFile(path: $0.key, bytes: Array($0.value.utf8)) }
        let model = try Model.build(sources, config: Config(), profile: nil)
        let list = #"{"ghcr.io/acme/frontend": ["main-1", "main-3"], "ghcr.io/acme2/frontend": ["main-1", "main-2"]}"#
        let plan = try Updater.plan(model, files: sources, tags: TagFile.parse(Array(list.utf8), path: "tags.json"))
        #expect(plan.errors == [])
        #expect(images(plan) == ["clusters/eu/apps/frontend.yaml": "ghcr.io/acme/frontend:main-3",
                                 "clusters/us/apps/frontend.yaml": "ghcr.io/acme2/frontend:main-2"])
    }

    @Test func anAutomationOfTheFirstAPIHasItsCommitAndCheckoutWhereItWroteThem() throws {
        let automation = """
        apiVersion: image.toolkit.fluxcd.io/v1alpha1
        kind: ImageUpdateAutomation
        metadata: {name: tracker, namespace: flux-system}
        spec:
          checkout: {branch: master, gitRepositoryRef: {name: tracker}}
          commit: {authorEmail: bot@example.com, authorName: bot, messageTemplate: '[ci skip] update image'}

        """
        let files = ["flux/images.yaml": [imageRepository(name: "frontend", image: "ghcr.io/acme/frontend"), policy("frontend", prefix: "dev"),
                                          automation].joined(separator: "---\n"),
                     "apps/frontend.yaml": deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:dev-1", marker: "flux-system:frontend")]
        let (plan, model) = try plan(files)
        #expect(plan.automations.map { try? $0.message?.get() } == ["[ci skip] update image"])
        #expect(model.flux.automations.first?.spec.checkoutBranch == "master")
        #expect(model.flux.automations.first?.spec.sourceName?.value == "tracker")
    }

    @Test func aMessageTemplateWithVariablesNothingHereGivesIsShownAsWrittenWithAWarning() throws {
        let files = ["flux/images.yaml": [imageRepository(name: "frontend", image: "ghcr.io/acme/frontend"), policy("frontend", prefix: "dev"),
                                          imageUpdateAutomation(name: "apps", path: "./apps").replacingOccurrences(
                                            of: "author: {email: bot@example.com}}", with: "author: {email: bot@example.com}, messageTemplate: 'Cluster: ${clusterName}'}")]
                        .joined(separator: "---\n"),
                     "apps/frontend.yaml": deployment(name: "frontend", namespace: "web", image: "ghcr.io/acme/frontend:dev-1", marker: "flux-system:frontend")]
        let (plan, _) = try plan(files)
        #expect(plan.automations.map { try? $0.message?.get() } == ["Cluster: ${clusterName}"])
        #expect(plan.warnings == ["ImageUpdateAutomation flux-system/apps: its messageTemplate uses ${clusterName}, which Flux substitutes and nothing here "
                                  + "gives: the message shows them as written; give them under clusters[].substitute in .tagwarden.yaml"])
    }

    @Test func patchesOfOneBuildAddUpAndABaseEachOverlayPatchesIsLeftAsWritten() throws {
        // clusters/dev patches its flux-system twice (equinor's postBuild.yaml and an app's); apps/flux-system/base is
        // patched by two overlays, one per cluster (hmcts): one object here, whose variables are each build's
        let base = fluxKustomization(name: "flux-system", path: "./clusters/${ENV}")
        var files = bootstrapFiles("clusters/dev", flux: "v2.7.0")
        files["clusters/dev/kustomization.yaml"] = "resources: [flux-system]\npatches:\n  - path: a.yaml\n  - path: b.yaml\n"
        files["clusters/dev/a.yaml"] = fluxKustomization(name: "flux-system", path: "./clusters/dev", spec: "  postBuild: {substitute: {A: one, B: two}}\n")
        files["clusters/dev/b.yaml"] = fluxKustomization(name: "flux-system", path: "./clusters/dev", spec: "  postBuild: {substitute: {B: three}}\n")
        files["apps/flux-system/base/kustomization.yaml"] = "resources: [flux.yaml]\n"
        files["apps/flux-system/base/flux.yaml"] = base
        for env in ["test", "prod"] {
            files["apps/flux-system/\(env)/kustomization.yaml"] = "resources: [../base]\npatches:\n  - path: patch.yaml\n"
            files["apps/flux-system/\(env)/patch.yaml"] = fluxKustomization(name: "flux-system", path: "./clusters/${ENV}",
                                                                            spec: "  postBuild: {substitute: {ENV: \(env)}}\n")
        }
        let (_, model) = try plan(files)
        func substitute(_ path: String) -> [String: String]? {
            model.objects.first { model.files[$0.file].path == path && $0.isFluxKustomization }?.fluxKustomization?.postBuild?.substitute
        }
        #expect(substitute("clusters/dev/flux-system/gotk-sync.yaml") == ["A": "one", "B": "three"])
        #expect(substitute("apps/flux-system/base/flux.yaml") == nil)
    }
}
