import TagwardenFixtures
import Testing
@testable import TagwardenLint

private let sha = "sha256:" + String(repeating: "c", count: 64)

/// A multi-environment Flux repository with markers in Deployments, CronJobs, HelmRelease values,
/// kustomize images (:tag, :name, :digest) and a custom resource.
func fluxRepo() -> [String: String] {
    var files: [String: String] = [:]
    files[".tagwarden.yaml"] = """
    profile: strict
    rules:
      image-not-pinned: {enabled: false}
      promotion-untested-digest: {enabled: false}

    """
    // (in a directory of its own: clusters/production/kustomization.yaml builds the workloads only)
    files["clusters/production/flux/flux.yaml"] = """
    apiVersion: image.toolkit.fluxcd.io/v1
    kind: ImageRepository
    metadata:
      name: web
      namespace: flux-system
    spec:
      image: ghcr.io/acme/web
    ---
    apiVersion: image.toolkit.fluxcd.io/v1
    kind: ImagePolicy
    metadata:
      name: web-production
      namespace: flux-system
    spec:
      imageRepositoryRef:
        name: web
      filterTags:
        pattern: '^production-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)-[0-9a-f]{7,40}-[0-9]+$'
        extract: '$v'
      policy:
        semver:
          range: '>=1.0.0'
    ---
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata:
      name: fleet
      namespace: flux-system
    spec:
      ref:
        branch: main
    ---
    apiVersion: image.toolkit.fluxcd.io/v1
    kind: ImageUpdateAutomation
    metadata:
      name: production
      namespace: flux-system
    spec:
      sourceRef:
        kind: GitRepository
        name: fleet
      git:
        commit:
          author: {email: bot@example.com}
          messageTemplate: '{{range .Updated.Images}}{{println .}}{{end}}'
        push:
          branch: main
      update:
        path: ./clusters/production

    """
    files["clusters/staging/flux.yaml"] = """
    apiVersion: image.toolkit.fluxcd.io/v1
    kind: ImagePolicy
    metadata:
      name: web-staging
      namespace: flux-system
    spec:
      imageRepositoryRef:
        name: web
      filterTags:
        pattern: '-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)'
      policy:
        alphabetical: {}
    ---
    apiVersion: image.toolkit.fluxcd.io/v1beta2
    kind: ImageUpdateAutomation
    metadata:
      name: staging
      namespace: flux-system
    spec:
      sourceRef:
        kind: GitRepository
        name: fleet
      git:
        commit: {author: {email: bot@example.com}}
        push:
          branch: flux-staging
      update:
        path: ./clusters/staging

    """
    files["clusters/production/deploy.yaml"] = """
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: production
    spec:
      template:
        spec:
          initContainers:
            - name: migrate
              image: ghcr.io/acme/web:staging-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-staging"}
          containers:
            - name: web
              image: ghcr.io/acme/web:production-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-production"}

    """
    files["clusters/production/cron.yaml"] = """
    apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: report
      namespace: production
    spec:
      jobTemplate:
        spec:
          template:
            spec:
              containers:
                - name: report
                  image: ghcr.io/acme/web:production-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-prod"}

    """
    files["clusters/production/helmrelease.yaml"] = """
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata:
      name: web
      namespace: production
    spec:
      values:
        image:
          repository: ghcr.io/acme/web # {"$imagepolicy": "flux-system:web-production:name"}
          tag: production-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-production:tag"}
          digest: \(sha) # {"$imagepolicy": "flux-system:web-production:digest"}

    """
    files["clusters/production/kustomization.yaml"] = """
    apiVersion: kustomize.config.k8s.io/v1beta1
    kind: Kustomization
    namespace: production
    resources: [deploy.yaml, cron.yaml, helmrelease.yaml, task.yaml]
    images:
      - name: web
        newName: ghcr.io/acme/web # {"$imagepolicy": "flux-system:web-production:name"}
        newTag: production-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-production"}
        digest: \(sha) # {"$imagepolicy": "flux-system:web-production:digest"}

    """
    files["clusters/production/task.yaml"] = """
    apiVersion: tekton.dev/v1
    kind: Task
    metadata:
      name: smoke
      namespace: production
    spec:
      steps:
        - name: smoke
          image: ghcr.io/acme/api:production-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-production"}
        # - image: ghcr.io/acme/web:production-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-production"}

    """
    files["apps/values.yaml"] = "image: ghcr.io/acme/web:production-v1.0.0-abc1234-1 # {\"$imagepolicy\": \"flux-system:web-production\"}\n"
    return files
}

/// The Flux rules over the markers, policies, automations and Kustomizations of a repository, in-process; what only
/// the binary shows of them (the files its listing passes over, the remotes of the clone) is in FluxTests.
@Suite struct FluxRuleTests {
    @Test func everyFluxRuleOnAMultiEnvironmentRepository() throws {
        let res = try lint(fluxRepo())
        #expect(res.rendered == [
            "marker-ignored apps/values.yaml:1:53",
            "marker-unknown-policy clusters/production/cron.yaml:13:67",
            "image-env-prefix clusters/production/deploy.yaml:11:18",
            "marker-env-mismatch clusters/production/deploy.yaml:11:60",
            "automation-invalid-template clusters/production/flux/flux.yaml:45:24",
            "automation-direct-push clusters/production/flux/flux.yaml:47:15",
            // web-production reflects no digests: its :digest markers would blank the digests
            "marker-digest-unavailable clusters/production/helmrelease.yaml:11:87",
            // no image of the build is named `web` (its containers and objects are)
            "image-entry-unmatched clusters/production/kustomization.yaml:6:11",
            "marker-wrong-form clusters/production/kustomization.yaml:8:41",
            "marker-digest-unavailable clusters/production/kustomization.yaml:9:85",
            "marker-image-mismatch clusters/production/task.yaml:9:59",
            "policy-crosses-environment clusters/staging/flux.yaml:10:14",
            "policy-crosses-environment clusters/staging/flux.yaml:10:14",
            "policy-fragile-order clusters/staging/flux.yaml:10:14",
            "api-removed clusters/staging/flux.yaml:14:13",
        ].sorted(by: order))
        let messages = Dictionary(res.map { ("\($0.rule) \($0.line)", $0.message) }) { a, b in a + " | " + b }
        #expect(messages["marker-unknown-policy 13"] == "no ImagePolicy flux-system/web-prod in the repository, so Flux never updates this field: did you mean 'flux-system:web-production'?")
        #expect(messages["policy-crosses-environment 10"] == "pattern '-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)' of policy flux-system/web-staging selects development tag 'develop-v0.0.0' | pattern '-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)' of policy flux-system/web-staging selects production tag 'production-v0.0.0-0000000-0'")
        #expect(messages["marker-ignored 1"]?.contains("outside every ImageUpdateAutomation's update.path (./clusters/production, ./clusters/staging)") == true)
        // the commented-out line of task.yaml (10) is switched off on purpose: not reported
        #expect(messages["marker-env-mismatch 11"] == "this production field is updated by policy flux-system/web-staging, which belongs to staging: staging builds would land in production")
        #expect(messages["marker-digest-unavailable 9"] == "policy flux-system/web-production does not reflect digests (digestReflectionPolicy is unset, so Never), so Flux writes an empty digest into this field: set digestReflectionPolicy: IfNotPresent on the policy")
    }

    /// Prose that names `$imagepolicy` is no marker, wherever it stands (the summary counted PHACDataHub/cpho-phase2's
    /// "update the policy name in the `$imagepolicy` comment" as one; after a value, or in a head comment of several
    /// lines, it was reported as a marker Flux skips). A marker written wrong (a `{` before the token, or a `:` after
    /// it) is one, and so is a line of YAML commented out with its marker, switched off on purpose.
    @Test func proseThatNamesTheTokenIsNoMarker() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/web.yaml"] = """
            # Note that you'll also need to update the policy name in the `$imagepolicy` comment
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, namespace: web}
            spec:
              template:
                spec:
                  containers:
                    # the image below is set by Flux: see $imagepolicy
                    - name: web
                      image: ghcr.io/acme/web:1.2.3 # rewritten by the $imagepolicy setter
                    # - image: ghcr.io/acme/web:1.2.3 # {"$imagepolicy": "flux-system:web"}
                    - name: side
                      # The tag below is rewritten by Flux
                      # (via the $imagepolicy setter marker)
                      image: ghcr.io/acme/side:1.2.3
                    - name: tail
                      image: ghcr.io/acme/tail:1.2.3 # $imagepolicy: flux-system:tail

            """
        files["clusters/prod/automation.yaml"] = imageUpdateAutomation(name: "web", path: "./clusters/prod")
        let report = try lintReport(files)
        #expect(report.model?.markers.map { "\($0.span.start.line) \($0.context)" } == ["12 commentedOut", "18 value"])
        #expect(report.summary.markers == 2)
        #expect(report.findings.filter { $0.rule.hasPrefix("marker-") }.rendered == ["marker-malformed clusters/prod/web.yaml:18:42"])
    }

    /// yesid-lopez/homelab: a base's placeholder marker, in a file no automation's update.path covers, with an overlay
    /// that patches the image. Flux never opens the file: the marker is skipped, and nothing updates the field.
    @Test func aMalformedMarkerFluxNeverOpensIsSkipped() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps/dev")
        files["apps/base/kustomization.yaml"] = "resources: [deployment.yaml]\n"
        func deployment(_ image: String) -> String {
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: web}\nspec:\n  template:\n    spec:\n"
                + "      containers:\n        - name: web\n          image: \(image)\n"
        }
        files["apps/base/deployment.yaml"] = deployment(#"ghcr.io/acme/web:0.6.8 # {"$imagepolicy": "REPLACE_WITH_OVERLAY_POLICY"}"#)
        files["apps/dev/patch.yaml"] = deployment(#"ghcr.io/acme/web-dev:1.0.0 # {"$imagepolicy": "flux-system:web"}"#)
        files["apps/dev/kustomization.yaml"] = "resources: [../base, automation.yaml]\npatches:\n  - path: patch.yaml\n    target: {kind: Deployment, name: web}\n"
        files["apps/dev/automation.yaml"] = imageRepository(image: "ghcr.io/acme/web-dev") + "---\n" + imagePolicy(semver: ">=0.1.0")
            + "---\n" + imageUpdateAutomation(name: "web", path: "./apps/dev")
        let res = try lint(files)
        #expect(res.rendered == ["marker-ignored apps/base/deployment.yaml:9:41"], "\(res.map(\.message))")
        #expect(res.first?.message == "Flux silently skips this $imagepolicy marker: the file is outside every ImageUpdateAutomation's update.path (./apps/dev)")
        // under the update.path, Flux reads it and cannot: marker-malformed; it updates nothing, so nothing is overridden
        files["apps/dev/automation.yaml"] = files["apps/dev/automation.yaml"]!.replacingOccurrences(of: "path: './apps/dev'", with: "path: './apps'")
        #expect(try lint(files).rendered == ["marker-malformed apps/base/deployment.yaml:9:41"])
    }

    /// kingdon-ci/fleet-infra: the only ImagePolicy of a marker's name is in a file its directory's kustomization leaves
    /// out, so Flux has no such policy (not one that would "replace the value"). Markers under the update.path of an
    /// automation are facts only where a cluster here applies that automation.
    @Test func aPolicyThatIsNotDeployedIsNoPolicyOfFlux() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomizations([("apps", "./apps"), ("images", "./images")])
        files["images/kustomization.yaml"] = "resources: [repo.yaml, auto.yaml]\n"
        files["images/repo.yaml"] = imageRepository()
        files["images/auto.yaml"] = imageUpdateAutomation(name: "apps", path: "./apps")
        files["images/policy-unlisted.yaml"] = imagePolicy(pattern: "^v1\\.29\\.[0-9]+$")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "ghcr.io/acme/web:v1.28.0", marker: "flux-system:web")
        var res = try lint(files, asFound: true).filter { $0.rule.hasPrefix("marker") }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error marker-unknown-policy apps/web.yaml:9:43"], "\(res)")
        #expect(res.first?.message == "ImagePolicy flux-system/web is defined only in images/policy-unlisted.yaml, which is not deployed "
                + "(images/kustomization.yaml, which builds its directory, does not list it), so Flux has no such policy and never updates this field")
        // the marker's file applied by no cluster, but read by an automation a cluster applies: a fact
        files["clusters/prod/apps.yaml"] = fluxKustomizations([("images", "./images")])
        res = try lint(files, asFound: true).filter { $0.rule.hasPrefix("marker") }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error marker-unknown-policy apps/web.yaml:9:43"], "\(res)")
        // neither applied: that Flux runs the automation is an assumption
        files["clusters/prod/apps.yaml"] = fluxKustomizations([("other", "./other")])
        files["other/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: apps}\n"
        res = try lint(files, asFound: true).filter { $0.rule.hasPrefix("marker") }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["warning marker-unknown-policy apps/web.yaml:9:43"], "\(res)")
    }

    /// dhairya221b/cd-test: an automation in namespace test-cd names GitRepository flux-system, which is in flux-system:
    /// the hint is the namespace to set, not the name it already has.
    @Test func anAutomationOfAnotherNamespaceIsToldTheSourcesNamespace() throws {
        var files = bootstrapFiles("clusters/staging", flux: "v2.8.0")
        files["clusters/staging/auto.yaml"] = imageUpdateAutomation(name: "app", namespace: "test-cd", path: "./clusters/staging")
        let res = try lint(files, asFound: true).filter { $0.rule == "automation-unknown-source" }
        #expect(res.map(\.message) == ["no GitRepository test-cd/flux-system in the repository: GitRepository flux-system is in namespace "
                                       + "flux-system: set sourceRef.namespace: flux-system"], "\(res)")
    }

    /// MonBusinessApp/Infrastructure: each cluster defines `flux-system/app` with its own filter; a marker is judged by
    /// the policy of its own cluster, and each is used.
    @Test func aMarkerFollowsThePolicyOfItsOwnCluster() throws {
        var files: [String: String] = [:]
        for c in ["dev", "local"] {
            files.merge(bootstrapFiles("clusters/\(c)", flux: "v2.4.0")) { $1 }
            files["clusters/\(c)/app.yaml"] = imageRepository(name: "app", image: "ghcr.io/acme/app") + "---\n"
                + imagePolicy(name: "app", pattern: "^\(c)-[0-9]+$", order: .alphabetical(nil)) + "---\n"
                + imageUpdateAutomation(name: "apps", path: "./apps/\(c)") + "---\n" + fluxKustomization(path: "./apps/\(c)")
            files["apps/\(c)/web.yaml"] = deployment(namespace: c, image: "ghcr.io/acme/app:\(c)-1", marker: "flux-system:app")
        }
        let res = try lint(files, asFound: true).filter { $0.rule.hasPrefix("marker") || $0.rule == "policy-unused" }
        #expect(res.rendered == [], "\(res)")
    }

    /// DmitriySafronov/flux2-tenant-dummy-apps: two overlays patch one base ImagePolicy differently (semver, numerical);
    /// the marker of the overlay that a cluster applies is judged by that overlay's variant, and the base policy is used.
    @Test func aMarkerFollowsTheVariantOfThePolicyItsBuildMakes() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/app.yaml"] = fluxKustomization(name: "app", path: "./b-env")
        files["base/kustomization.yaml"] = "resources: [policy.yaml]\n"
        files["base/policy.yaml"] = imagePolicy(name: "app", namespace: "app") + "---\n" + imageRepository(name: "app", namespace: "app", image: "ghcr.io/x/app")
        files["a-env/kustomization.yaml"] = "resources: [../base]\npatches:\n  - path: p.yaml\n"
        files["a-env/p.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: app, namespace: app}\n"
            + "spec:\n  policy:\n    semver: {range: '>=0.0.0'}\n"
        files["b-env/kustomization.yaml"] = "resources: [../base, d.yaml]\npatches:\n  - path: p.yaml\n"
        files["b-env/p.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: app, namespace: app}\n"
            + "spec:\n  policy:\n    semver: null\n    numerical: {order: asc}\n  filterTags: {pattern: '^main-[a-f0-9]+-(?P<ts>[0-9]+)', extract: '$ts'}\n"
        files["b-env/d.yaml"] = deployment(name: "app", namespace: "app", image: "ghcr.io/x/app:main-abc123-1704290656347", marker: "app:app")
        let res = try lint(files, asFound: true).filter { $0.rule.hasPrefix("marker") || $0.rule == "policy-unused" }
        #expect(res.rendered == [], "\(res)")
    }

    /// martijnjanssen/cluster-ops: one cluster, production, whose automation updates `./apps`; staging is commented
    /// out of what it applies. A staging field that follows production's policy lands in no environment: what lands
    /// in staging is a fact only where a cluster applies staging.
    @Test func anEnvironmentMismatchIsAFactOnlyWhereTheFieldIsDeployed() throws {
        var files = bootstrapFiles("clusters/production", flux: "v2.4.0")
        files["clusters/production/apps.yaml"] = fluxKustomizations([("apps", "./apps/production")])
        files["clusters/production/automation/app.yaml"] = imageRepository(name: "app", image: "ghcr.io/example/app") + "---\n"
            + imagePolicy(name: "app", pattern: "^[0-9]+$", order: .numerical("asc")) + "---\n" + imageUpdateAutomation(name: "apps", path: "./apps")
        for env in ["production", "staging"] {
            files["apps/\(env)/kustomization.yaml"] = "resources: [deploy.yaml]\nimages:\n  - name: ghcr.io/example/app\n"
                + "    newTag: \"687\" # {\"$imagepolicy\": \"flux-system:app:tag\"}\n"
            files["apps/\(env)/deploy.yaml"] = deployment(name: "app", namespace: env, image: "ghcr.io/example/app:1")
        }
        func mismatch(_ files: [String: String]) throws -> [String] {
            try lint(files, asFound: true).filter { $0.rule == "marker-env-mismatch" }.map { "\($0.severity) \($0.rendered): \($0.message)" }
        }
        let unreached = "error marker-env-mismatch apps/staging/kustomization.yaml:4:19: this staging field is updated by policy "
            + "flux-system/app, which belongs to production: production builds would land in staging"
        #expect(try mismatch(files) == [unreached.replacingOccurrences(of: "error", with: "warning") + " (no cluster in this repository applies this file)"])
        // the cluster named production deploys the staging field too: it runs both environments, and the policy beside its
        // sync is production's only by its directory's name (the Flux guide's layout)
        files["clusters/production/apps.yaml"] = fluxKustomizations([("apps", "./apps/production"), ("staging-apps", "./apps/staging")])
        #expect(try mismatch(files) == [unreached.replacingOccurrences(of: "error", with: "warning") + " (assuming policy flux-system/app "
            + "belongs to production, as the directory of cluster clusters/production that holds it says, though that cluster deploys "
            + "this staging field too; say where production is under environments: in .tagwarden.yaml)"])
        // a staging cluster of its own deploys it: the policy is production's, whose cluster does not run staging
        files["clusters/production/apps.yaml"] = fluxKustomizations([("apps", "./apps/production")])
        files.merge(bootstrapFiles("clusters/staging", flux: "v2.4.0")) { a, _ in a }
        files["clusters/staging/apps.yaml"] = fluxKustomizations([("staging-apps", "./apps/staging")])
        #expect(try mismatch(files) == [unreached])
    }

    /// The Flux guide's HelmRelease form: `repository` and `tag` with their own markers, or the `tag` alone (the
    /// chart names the repository). Either way the field is the image of the policy's ImageRepository.
    @Test func aStagingTagInAProductionChartTagFieldIsReported() throws {
        var files: [String: String] = [:]
        files["flux/web.yaml"] = imageRepository() + "---\n" + imagePolicy()
        files["apps/production/web.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: production}
        spec:
          values:
            image:
              tag: staging-v1.2.3-abc1234-1700000000 # {"$imagepolicy": "flux-system:web:tag"}
            sidecar:
              image:
                repository: ghcr.io/acme/web # {"$imagepolicy": "flux-system:web:name"}
                tag: staging-v1.2.3-abc1234-1700000000 # {"$imagepolicy": "flux-system:web:tag"}
            unmarked:
              image: {tag: staging-v1.2.3-abc1234-1700000000}
            canary:
              image:
                tag: latest # {"$imagepolicy": "flux-system:web:tag"}

        """
        let res = try lint(files, profile: "strict")
        let prefix = res.filter { $0.rule == "image-env-prefix" }
        #expect(prefix.map { "\($0.line):\($0.column)" } == ["7:12", "11:14"])
        #expect(Set(prefix.map(\.message)) == [
            "tag 'staging-v1.2.3-abc1234-1700000000' of promoted image 'ghcr.io/acme/web' lacks the production prefix 'production-': it is a staging tag",
        ])
        let latest = res.filter { $0.rule == "image-latest-tag" }
        #expect(latest.map(\.message) == [
            "image 'ghcr.io/acme/web:latest' (this field sets its tag) uses the tag 'latest', which moves with every push: pin a version or a digest",
        ])
    }

    /// A policy outside every environment that markers of staging and production both use: what it selects goes to
    /// both, so staging's tags cross into production.
    @Test func aPolicyThatMarkersOfTwoEnvironmentsShareCrossesBetweenThem() throws {
        var files: [String: String] = [:]
        files["flux/web.yaml"] = imageRepository() + "---\n" + imagePolicy(pattern: "^staging-v[0-9]+$", order: .alphabetical())
        for env in ["staging", "production"] {
            files["apps/\(env)/web.yaml"] = pod("web", images: ["ghcr.io/acme/web:staging-v1 # {\"$imagepolicy\": \"flux-system:web\"}"])
        }
        let res = try lint(files, profile: "strict")
        let crossing = res.filter { $0.rule == "policy-crosses-environment" }
        #expect(crossing.map { "\($0.file):\($0.line):\($0.column) \($0.environment ?? "-")" } == ["flux/web.yaml:11:25 production"])
        #expect(crossing.first?.message
                == "pattern '^staging-v[0-9]+$' of policy flux-system/web selects staging tag 'staging-v0', which its markers in production would receive")
    }

    @Test func aMarkerWhoseTagEveryBuildReplacesIsReported() throws {
        var files: [String: String] = [:]
        files["flux/policy.yaml"] = imagePolicy()
        files["base/kustomization.yaml"] = "resources: [app.yaml]\n"
        files["base/app.yaml"] = pod("app", images: [
            "ghcr.io/acme/web:1.4.0 # {\"$imagepolicy\": \"flux-system:web\"}",
            "ghcr.io/acme/api:1.4.0 # {\"$imagepolicy\": \"flux-system:web\"}",
        ])
        files["overlays/staging/kustomization.yaml"] = """
        resources: [../../base]
        images:
          - {name: ghcr.io/acme/web, newTag: 1.3.9}

        """
        files["overlays/production/kustomization.yaml"] = """
        resources: [../../base]
        components: [../../components/pin]

        """
        files["components/pin/kustomization.yaml"] = """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        images:
          - {name: ghcr.io/acme/web, newTag: 1.3.8}
          - {name: ghcr.io/acme/api, newTag: 1.3.8}

        """
        let res = try lint(files)
        // api: the staging overlay deploys the base's marked tag, so Flux's updates do run there
        let overridden = res.filter { $0.rule == "marker-overridden" }
        #expect(overridden.map(\.position) == ["base/app.yaml:8:37"])
        #expect(overridden.first?.message
                == "Flux updates this field, but the tag it writes never runs: every build that deploys image 'ghcr.io/acme/web:1.4.0' "
                + "sets its own, with an images: entry, a patch or a later values source (overlays/production/kustomization.yaml, overlays/staging/kustomization.yaml); "
                + "put the marker on those instead")
    }

    @Test func didYouMeanOffersOnlyALikelyPolicy() throws {
        var files: [String: String] = [:]
        files["flux/policies.yaml"] = ["web-production", "api-prod", "lab-home", "wordle-duel"].map { imagePolicy(name: $0, order: .alphabetical()) }
            .joined(separator: "---\n")
        files["apps/a.yaml"] = pod("a", images: [
            "ghcr.io/acme/web:1 # {\"$imagepolicy\": \"flux-system:web-prod\"}",        // a word shortened: not api-prod, one edit nearer
            "ghcr.io/acme/checker:1 # {\"$imagepolicy\": \"flux-system:page-checker\"}", // nothing like it: no lab-home
            "ghcr.io/acme/duel:1 # {\"$imagepolicy\": \"flux-sytem:wordle-duel\"}",      // a typo in the namespace
            "ghcr.io/acme/duel:1 # {\"$imagepolicy\": \"flux-system:wordle-duell\"}",    // a typo in the name
            "ghcr.io/acme/lab:1 # {\"$imagepolicy\": \"flux-system:lab\"}",               // a word dropped
        ])
        let res = try lint(files)
        let unknown = res.filter { $0.rule == "marker-unknown-policy" }
        #expect(unknown.map { "\($0.line)" } == ["8", "10", "12", "14", "16"])
        let suffix = "in the repository, so Flux never updates this field"
        #expect(unknown.map(\.message) == [
            "no ImagePolicy flux-system/web-prod \(suffix): did you mean 'flux-system:web-production'?",
            "no ImagePolicy flux-system/page-checker \(suffix)",
            "no ImagePolicy flux-sytem/wordle-duel \(suffix): did you mean 'flux-system:wordle-duel'?",
            "no ImagePolicy flux-system/wordle-duell \(suffix): did you mean 'flux-system:wordle-duel'?",
            "no ImagePolicy flux-system/lab \(suffix): did you mean 'flux-system:lab-home'?",
        ])
    }

    @Test func didYouMeanNamesAPolicyOfEveryClusterOnce() throws {
        // a fleet repository defines flux-system/web-production once per cluster: one candidate, not one per cluster
        var files: [String: String] = [:]
        for cluster in ["eu", "us", "ap"] {
            files["clusters/\(cluster)/policy.yaml"] = imagePolicy(name: "web-production", repository: "web", order: .alphabetical())
        }
        files["apps/a.yaml"] = pod("a", images: [
            "ghcr.io/acme/web:1 # {\"$imagepolicy\": \"flux-system:web-prod\"}",
            "ghcr.io/acme/web:1 # {\"$imagepolicy\": \"apps:web-production\"}",
        ])
        let res = try lint(files)
        let unknown = res.filter { $0.rule == "marker-unknown-policy" }
        let suffix = "in the repository, so Flux never updates this field"
        #expect(unknown.map { "\($0.file):\($0.line): \($0.message)" } == [
            "apps/a.yaml:8: no ImagePolicy flux-system/web-prod \(suffix): did you mean 'flux-system:web-production'?",
            "apps/a.yaml:10: no ImagePolicy apps/web-production \(suffix): did you mean 'flux-system:web-production'?",
        ])
    }

    @Test func aMovedTagBesideAnUnmarkedDigestIsStale() throws {
        var files: [String: String] = [:]
        files["flux/policy.yaml"] = imageRepository() + "---\n" + imagePolicy()
        let digest = "sha256:" + String(repeating: "0", count: 64)
        files["apps/production/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: production}
        spec:
          values:
            image:
              repository: ghcr.io/acme/web
              tag: 1.2.3 # {"$imagepolicy": "flux-system:web:tag"}
              digest: \(digest)
            sidecar:
              image:
                tag: 1.2.3 # {"$imagepolicy": "flux-system:web:tag"}
                digest: \(digest) # {"$imagepolicy": "flux-system:web:digest"}

        """
        files["apps/production/kustomization.yaml"] = """
        resources: [release.yaml]
        images:
          - name: ghcr.io/acme/web
            newTag: 1.2.3 # {"$imagepolicy": "flux-system:web:tag"}
            digest: \(digest)

        """
        let res = try lint(files, profile: "strict")
        let stale = res.filter { $0.rule == "marker-digest-stale" }
        let fix = "the runtime pulls by digest, so after each update the old image keeps running; add {\"$imagepolicy\": \"flux-system:web:digest\"} to it "
            + "and set digestReflectionPolicy: IfNotPresent on policy flux-system/web"
        #expect(stale.map { "\($0.file):\($0.line):\($0.column): \($0.message)" } == [
            "apps/production/kustomization.yaml:5:13: Flux moves this image's tag (the marker on line 4) but no marker updates this digest: \(fix)",
            "apps/production/release.yaml:9:15: Flux moves this image's tag (the marker on line 8) but no marker updates this digest: \(fix)",
        ])
        // the sidecar's digest is marked: no finding there, and its :digest marker is no one's else
        #expect(!res.contains { $0.line == 13 && $0.file == "apps/production/release.yaml"
            && $0.rule != "marker-digest-unavailable" })
    }

    @Test func aTagAndADigestFromDifferentPoliciesAreMixed() throws {
        var files: [String: String] = [:]
        files["flux/policies.yaml"] = ([imageRepository()] + [("web-prod", ">=1.0.0"), ("web-canary", ">=1.0.0-0"), ("web-copy", ">=1.0.0")].map {
            imagePolicy(name: $0, repository: "web", semver: $1, digestReflection: "IfNotPresent")
        }).joined(separator: "---\n")
        let digest = "sha256:" + String(repeating: "0", count: 64)
        files["apps/production/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: production}
        spec:
          values:
            image:
              repository: ghcr.io/acme/web # {"$imagepolicy": "flux-system:web-prod:name"}
              tag: 1.2.3 # {"$imagepolicy": "flux-system:web-prod:tag"}
              digest: \(digest) # {"$imagepolicy": "flux-system:web-canary:digest"}
            worker:
              repository: ghcr.io/acme/web
              tag: 1.2.3 # {"$imagepolicy": "flux-system:web-prod:tag"}
              digest: \(digest) # {"$imagepolicy": "flux-system:web-copy:digest"}

        """
        let res = try lint(files)
        let mixed = res.filter { $0.rule == "marker-mixed-policies" }
        // the worker's policies differ in name only: they select alike
        #expect(mixed.map { "\($0.file):\($0.line):\($0.column): \($0.message)" } == [
            "apps/production/release.yaml:9:87: Flux writes this digest from policy flux-system/web-canary and the tag beside it (line 8) from "
                + "flux-system/web-prod: the runtime pulls by digest, so it runs what web-canary selects while the tag names what web-prod selects; "
                + "mark both with one policy",
        ])
    }

    @Test func aNameMarkerUnderAChartsRegistryValueDoublesTheRegistry() throws {
        var files: [String: String] = [:]
        for (name, image) in [("redis", "docker.io/bitnami/redis"), ("valkey", "bitnami/valkey")] {
            files["flux/\(name).yaml"] = imageRepository(name: name, image: image) + "---\n" + imagePolicy(name: name, semver: ">=7.0.0")
            files["apps/\(name).yaml"] = """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: \(name), namespace: production}
            spec:
              values:
                image:
                  registry: docker.io
                  repository: bitnami/\(name) # {"$imagepolicy": "flux-system:\(name):name"}
                  tag: 7.2.4 # {"$imagepolicy": "flux-system:\(name):tag"}

            """
        }
        let res = try lint(files)
        // valkey's ImageRepository names the image without its registry: Flux writes bitnami/valkey, as the chart wants
        #expect(res.map { "\($0.rule) \($0.file):\($0.line):\($0.column): \($0.message)" } == [
            "marker-image-mismatch apps/redis.yaml:8:33: policy flux-system/redis writes docker.io/bitnami/redis into this repository field, "
                + "and the chart puts the registry value 'docker.io' in front of it: after the first update the release pulls "
                + "docker.io/docker.io/bitnami/redis; drop the :name marker (the repository then stays as written)",
        ])
    }

    @Test func aTagMarkerOnADigestFieldIsTheWrongForm() throws {
        var files: [String: String] = [:]
        files["flux/policy.yaml"] = imagePolicy(digestReflection: "IfNotPresent")
        files["apps/kustomization.yaml"] = """
        images:
          - name: ghcr.io/acme/web
            digest: sha256:\(String(repeating: "0", count: 64)) # {"$imagepolicy": "flux-system:web:tag"}

        """
        let res = try lint(files)
        // a digest is no whole reference (`sha256:<hex>` only reads like a name and a tag), and no tag moves beside it
        let markerFindings = res.filter { $0.rule.hasPrefix("marker-") }
        #expect(markerFindings.map { "\($0.rule) \($0.line):\($0.column): \($0.message)" } == [
            "marker-wrong-form 3:85: digest does not hold a tag: the :tag marker would write the wrong part of the image here",
        ])
    }

    /// sras1599/word-dash: a `:tag` marker on a whole reference is the wrong form, but the whole-reference marker is the
    /// fix only where the policy follows the field's image: the frontend's field names the backend's policy.
    /// neuland-ingolstadt/flux-infra: a marker outside every automation's `update.path` is skipped, and nothing is said of
    /// what Flux would write there.
    @Test func theWholeReferenceMarkerIsAdvisedForTheFieldsOwnImageOnly() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/policy.yaml"] = imagePolicy() + "---\n" + imageRepository()
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/web.yaml"] = pod("web", images: [
            "ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:web:tag\"}",
            "ghcr.io/acme/api:1.0.0 # {\"$imagepolicy\": \"flux-system:web:tag\"}",
        ])
        let found = try lint(files).filter { $0.rule == "marker-wrong-form" }.map { "\($0.line): \($0.message)" }
        #expect(found == [
            "8: this field holds a whole image reference, but the :tag marker writes only the tag: use \"flux-system:web\"",
            "10: this field holds a whole image reference, but the :tag marker writes only the tag, and policy flux-system/web follows "
                + "ghcr.io/acme/web, not this field's image: mark it with the policy of its own image",
        ], "\(found)")
        files["clusters/prod/automation.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: a, namespace: flux-system}\n"
            + "spec:\n  sourceRef: {kind: GitRepository, name: flux-system}\n  update: {path: ./elsewhere}\n"
        let skipped = try lint(files).filter { $0.rule.hasPrefix("marker-") }.map(\.rule)
        #expect(skipped == ["marker-ignored", "marker-ignored"], "\(skipped)")
    }

    @Test func aBrokenExtractIsThePolicysFindingNotTheMarkers() throws {
        var files: [String: String] = [:]
        var flux = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: web, namespace: flux-system}\nspec: {image: ghcr.io/acme/web}\n"
        for (name, filter) in [("nopattern", "{extract: '$ts'}"), ("nogroup", "{pattern: '^main-(?P<ts>[0-9]+)$', extract: '$t'}")] {
            flux += "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: \(name), namespace: flux-system}\nspec:\n"
                + "  imageRepositoryRef: {name: web}\n  filterTags: \(filter)\n  policy:\n    numerical: {order: asc}\n"
        }
        files["flux/policies.yaml"] = flux
        files["apps/web.yaml"] = pod("web", images: [
            "ghcr.io/acme/web:main-1 # {\"$imagepolicy\": \"flux-system:nopattern\"}",
            "ghcr.io/acme/web:main-2 # {\"$imagepolicy\": \"flux-system:nogroup\"}",
        ])
        let res = try lint(files)
        // every tag's key is empty under such a policy: the marked values are not what is wrong
        #expect(res.rendered == ["policy-invalid-regex flux/policies.yaml:11:25", "policy-invalid-regex flux/policies.yaml:20:59"])
    }

    @Test func headCommentsAsGoYamlJoinsThem() throws {
        // which comment lines go-yaml v3 (kyaml, Flux) makes a value's head comment, and which it joins into one of
        // several lines (no JSON object, so no marker): held to go-yaml by scripts/markers-vs-go
        var files: [String: String] = [:]
        files["apps/values.yaml"] = """
        image:
          # {"$imagepolicy": "ns:p1"}
          ghcr.io/acme/web:1.0.0
        args:
          - # {"$imagepolicy": "ns:p2"}
            1.0.0
          # the version
          - # {"$imagepolicy": "ns:p3"}
            1.0.0
          # the version
          -
            # {"$imagepolicy": "ns:p4"}
            1.0.0
          -
            # {"$imagepolicy": "ns:p5"}
            - 1.0.0
        mapping:
          # {"$imagepolicy": "ns:p6"}
          key: value

        """
        let res = try lint(files)
        let markers = res.filter { $0.rule.hasPrefix("marker-") }
        #expect(markers.map { "\($0.rule) \($0.line)" } == [
            "marker-unknown-policy 2", "marker-unknown-policy 5", "marker-ignored 8", "marker-ignored 12", "marker-unknown-policy 15",
            "marker-ignored 18",
        ])
        #expect(markers[2].message == "Flux silently skips this $imagepolicy marker: with the comment line above it, "
                + "it is part of a head comment of several lines, which Flux cannot read as one JSON object")
    }

    @Test func unpinnedPartsSayWhereTheDigestGoes() throws {
        var files: [String: String] = [:]
        // the entry sets the tag of the build's web container (an entry that matched nothing would deploy nothing)
        files["apps/production/kustomization.yaml"] = """
        resources: [release.yaml, web.yaml]
        images:
          - name: ghcr.io/acme/web
            newTag: 1.2.3 # {"$imagepolicy": "flux-system:web:tag"}

        """
        files["apps/production/web.yaml"] = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: production}\nspec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web\n"
        files["apps/production/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: api, namespace: production}
        spec:
          values:
            image: {repository: ghcr.io/acme/api, tag: 2.0.1}
            worker:
              image:
                tag: 2.0.1 # {"$imagepolicy": "flux-system:worker:tag"}
                repository: ghcr.io/acme/worker # {"$imagepolicy": "flux-system:worker:name"}

        """
        let res = try lint(files, profile: "strict")
        let unpinned = res.filter { $0.rule == "image-not-pinned" }
        #expect(unpinned.map { "\($0.file):\($0.line):\($0.column): \($0.message)" } == [
            "apps/production/kustomization.yaml:3:11: production requires digests: add `digest: sha256:<digest>` to this images: entry "
                + "(the build then runs ghcr.io/acme/web:1.2.3@sha256:<digest>), with a {\"$imagepolicy\": \"flux-system:web:digest\"} marker on it: "
                + "otherwise Flux moves the tag and the pinned digest keeps the old image running",
            "apps/production/release.yaml:6:25: production requires digests: give the chart the digest of 'ghcr.io/acme/api:2.0.1': "
                + "a `digest: sha256:<digest>` value beside the tag where the chart reads one, else `tag: 2.0.1@sha256:<digest>`",
            "apps/production/release.yaml:10:21: production requires digests: give the chart the digest of 'ghcr.io/acme/worker:2.0.1' in a "
                + "`digest: sha256:<digest>` value beside the tag (charts that read one), with a {\"$imagepolicy\": \"flux-system:worker:digest\"} marker on it: "
                + "otherwise Flux moves the tag and the pinned digest keeps the old image running",
        ])
    }

    @Test func headCommentMarkersOnSequenceItems() throws {
        var files: [String: String] = [:]
        files["flux/policy.yaml"] = imageRepository() + "---\n" + imagePolicy()
        files["apps/job.yaml"] = """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: job
        spec:
          template:
            spec:
              containers:
                - name: job
                  image: busybox:1.36.1
                  args:
                    # {"$imagepolicy": "flux-system:wbe:tag"}
                    - 1.0.0
                    # {"$imagepolicy": "flux-system:web:tag"}
                    - 1.0.0 # a comment Flux reads instead
                    # the version
                    # {"$imagepolicy": "flux-system:web:tag"}
                    - 1.0.0
                    # {"$imagepolicy": "flux-system:web:tag"}
                    - latest

        """
        let report = try lintReport(files)
        // the head comment of an item is a marker: its policy is looked up and its value checked
        #expect(report.findings.rendered == ["marker-unknown-policy apps/job.yaml:12:13", "marker-ignored apps/job.yaml:14:13",
                                             "marker-ignored apps/job.yaml:17:13", "marker-value-rejected apps/job.yaml:19:13",
                                             "image-latest-tag apps/job.yaml:20:15"], "\(report.findings.rendered)")
        #expect(report.summary.markers == 4)
    }

    @Test func oneRepositoryForSeveralClustersWithTheSameNames() throws {
        // clusters/staging and clusters/production each define flux-system/web: a marker uses its environment's,
        // and each policy its own cluster's ImageRepository (`policy eval` of the two: PolicyEvalTests)
        var files = severalClustersWithTheSameNames()
        #expect(try lint(files, asFound: true).rendered == [])
        // a marker in a shared base, updated by the automations of both clusters: contested, and nothing is judged
        // against either policy alone (no value rejected, no policy unused)
        files["apps/base/worker.yaml"] = pod("worker", images: ["ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:web\"}"])
        func automation(_ path: String) -> String {
            "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: auto, namespace: flux-system}\n"
                + "spec:\n  git: {commit: {author: {email: bot@example.com}}, push: {branch: image-updates}}\n  update: {path: \(path)}\n"
        }
        for env in ["staging", "production"] { files["clusters/\(env)/auto.yaml"] = automation("./apps") }
        #expect(try lint(files, asFound: true).rendered == ["marker-contested apps/base/worker.yaml:8:37"])
        // the base updated by staging's automation only: staging's policy is the one, and the tag is judged by it
        files["clusters/production/auto.yaml"] = automation("./apps/production")
        #expect(try lint(files, asFound: true).rendered == ["marker-image-mismatch apps/base/worker.yaml:8:37", "marker-value-rejected apps/base/worker.yaml:8:37"])
    }

    @Test func eachClustersAutomationUsesItsOwnGitRepository() throws {
        // both clusters name their source flux-system/flux-system; staging's comes first in the tree
        var files: [String: String] = [:]
        files[".tagwarden.yaml"] = "profile: strict\n"
        for (dir, branch) in [("clusters/eu/staging", "staging"), ("clusters/us/production", "main")] {
            files["\(dir)/flux.yaml"] = """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: flux-system, namespace: flux-system}
            spec:
              url: https://example.com/fleet.git
              ref: {branch: \(branch)}
            ---
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageUpdateAutomation
            metadata: {name: auto, namespace: flux-system}
            spec:
              sourceRef: {kind: GitRepository, name: flux-system}
              git:
                commit: {author: {email: bot@example.com}}
                push: {branch: \(branch)}
              update: {path: ./\(dir)}

            """
        }
        // production checks out main (its own source) and pushes to it: a direct push where review is required
        #expect(try lint(files, asFound: true).rendered == ["automation-direct-push clusters/us/production/flux.yaml:15:20"])
    }

    @Test func manyMarkersInOneFileKeepTheirPositions() throws {
        // past a handful of markers a file's lines are indexed once: the positions must not change
        var files: [String: String] = [:]
        var text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: é😀\ndata:\n"
        var expected: [String] = []
        for i in 0..<12 {
            // a line switched off with its marker: not reported
            text += "  # k\(i): v # {\"$imagepolicy\": \"flux-system:web\"}\r\n"
            text += "  k\(i): [a] # {\"$imagepolicy\": \"flux-system:web\"}\n"
            expected.append("marker-ignored apps/cm.yaml:\(7 + 2 * i):\(i < 10 ? 11 : 12)")
        }
        files["apps/cm.yaml"] = text
        let res = try lint(files)
        #expect(res.rendered == expected, "\(res.rendered)")
        #expect(res.last?.span.end.column == 12 + #"# {"$imagepolicy": "flux-system:web"}"#.count)
    }

    @Test func templateErrorsSayWhereInTheFile() throws {
        var files: [String: String] = [:]
        func automation(_ name: String, _ template: String) -> String {
            """
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageUpdateAutomation
            metadata:
              name: \(name)
              namespace: flux-system
            spec:
              sourceRef: {kind: GitRepository, name: repo}
              git:
                commit:
                  author: {name: bot, email: bot@example.com}
                  messageTemplate: \(template)
              update: {path: ./, strategy: Setters}

            """
        }
        files["flux/git.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: repo, namespace: flux-system}\n"
        files["flux/block.yaml"] = automation("block", "|\n        Files:\n        {{ range $f, $_ := .Changed.FileChanges -}}\n        - {{ $f }}\n        {{ end -}")
        files["flux/escaped.yaml"] = automation("escaped", #""Files:\n{{ end }}""#)
        files["flux/typo.yaml"] = automation("typo", "|\n        By {{ .AutomationObject.Nme }}\n        {{ range .Changed.Changes }}{{ .Typo }}{{ end }}")
        files["flux/updated.yaml"] = automation("updated", "|\n        Update {{ range .Updated.Images }}{{ . }}{{ end }}")
        let res = try lint(files)
        #expect(res.rendered == ["automation-invalid-template flux/block.yaml:11:24", "automation-invalid-template flux/escaped.yaml:11:24",
                                 "automation-invalid-template flux/typo.yaml:11:24", "automation-invalid-template flux/updated.yaml:11:24"])
        let messages = res.map(\.message)
        #expect(messages[0] == #"messageTemplate does not parse as a Go template: bad number syntax: "-" (line 15, column 16); Flux cannot commit"#)
        // escapes make the value differ from the source: the offset is given in the value
        #expect(messages[1] == #"messageTemplate does not parse as a Go template: unexpected {{end}} (at byte 7 of the template); Flux cannot commit"#)
        // a field the commit data lacks, read from the root; inside range the dot is a change, not checked
        #expect(messages[2] == "messageTemplate reads .AutomationObject.Nme (line 12, column 15), which Flux's commit data does not have, so Flux fails to commit: did you mean .AutomationObject.Name?")
        #expect(messages[3] == "messageTemplate uses .Updated (line 12, column 25), which Flux 2.7 removed (the automation stalls with RemovedTemplateField): use .Changed"
                + " (no Flux version of cluster applied is written here, so current Flux (2.9) is assumed: this holds if it runs Flux 2.7 or later; "
                + "set fluxVersion of cluster applied under clusters: in .tagwarden.yaml)")
    }

    @Test func aTagMarkerSetsTheTagOfTheNameBesideIt() throws {
        var files: [String: String] = [:]
        files["flux/web.yaml"] = [imageRepository(), imageRepository(name: "api", image: "ghcr.io/acme/api"), imagePolicy(), imagePolicy(name: "api")]
            .joined(separator: "---\n")
        files["apps/kustomization.yaml"] = """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources: [pod.yaml, release.yaml]
        images:
          - name: nginx
            newTag: 1.0.0 # {"$imagepolicy": "flux-system:web:tag"}
          - name: web
            newName: ghcr.io/acme/web # {"$imagepolicy": "flux-system:web:name"}
            newTag: 1.0.0 # {"$imagepolicy": "flux-system:web:tag"}
          - name: api
            newName: ghcr.io/acme/web # {"$imagepolicy": "flux-system:api:name"}
            newTag: 1.0.0 # {"$imagepolicy": "flux-system:web:tag"}

        """
        files["apps/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: api, namespace: apps}
        spec:
          values:
            image:
              registry: ghcr.io
              repository: acme/api
              tag: 1.0.0 # {"$imagepolicy": "flux-system:web:tag"}
            sidecar:
              image:
                repository: ghcr.io/acme/web
                tag: 1.0.0 # {"$imagepolicy": "flux-system:web:tag"}

        """
        files["apps/pod.yaml"] = pod("p", images: ["nginx", "web", "api"])   // what the entries rename and retag
        let res = try lint(files)
        // nginx's tag, api's (whose name its own marker makes api's), the chart's registry + repository: all not web
        #expect(res.rendered == ["marker-image-mismatch apps/kustomization.yaml:6:19", "marker-image-mismatch apps/kustomization.yaml:11:31",
                                 "marker-image-mismatch apps/kustomization.yaml:12:19", "marker-image-mismatch apps/release.yaml:9:18"])
        let messages = res.map(\.message)
        #expect(messages[0] == "policy flux-system/web writes the tag of ghcr.io/acme/web here, but this field sets the tag of nginx: Flux would give nginx another image's tag")
        #expect(messages[2] == "policy flux-system/web writes the tag of ghcr.io/acme/web here, but this field sets the tag of ghcr.io/acme/api: Flux would give ghcr.io/acme/api another image's tag")
        #expect(messages[3].contains("sets the tag of ghcr.io/acme/api"))
    }

    /// kommander-applications: a Flux Kustomization that is itself a template (`namespace: ${releaseNamespace}`,
    /// `substitute: {repo: ${repo:=docker.io/mesosphere/kubectl}}`) is applied by something that substitutes it first;
    /// where nothing here applies its file, what its `${…}` values become is not known, so not judged literally.
    @Test func aSubstituteValueWithVariablesThatNothingHereAppliesIsNotKnown() throws {
        var files: [String: String] = [:]
        files["apps/velero/ks.yaml"] = fluxKustomization(name: "velero", namespace: "\"${releaseNamespace}\"", path: "./apps/velero/job",
                                                         spec: "  postBuild:\n    substitute:\n      repo: ${repo:=docker.io/mesosphere/kubectl}\n")
        files["apps/velero/job/pod.yaml"] = pod("job", images: ["${repo}:v1.35.2"])
        #expect(try lint(files).rendered == [])
        // applied here by a Kustomization without postBuild, the value is the text as written, which is no reference
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/velero")
        files["apps/velero/kustomization.yaml"] = "resources: [ks.yaml]\n"
        let literal = try lint(files).rendered
        #expect(literal == ["image-invalid-reference apps/velero/job/pod.yaml:8:14"], "\(literal)")
    }

    /// alecsg77/elysium: `$${image}` in a Flux Kustomization's own `spec.patches` is `${image}` once what applies it has
    /// substituted; kustomize-controller then patches that Kustomization's build with it and substitutes its own
    /// variables. The image is the inner one's value, and without one, what Flux puts in its place.
    @Test func anEscapedVariableInAKustomizationsPatchIsItsOwnToSubstitute() throws {
        func files(inner: String) -> [String: String] {
            ["clusters/prod/apps.yaml": fluxKustomization(path: "./apps", spec: "  postBuild:\n    substitute: {domain: example.org}\n"),
             "apps/web.yaml": fluxKustomization(name: "web", path: "./deploy", spec: """
                  sourceRef: {kind: GitRepository, name: upstream}
                  postBuild:
                    substitute: {\(inner)}
                  patches:
                    - target: {kind: Deployment, name: web}
                      patch: |
                        - op: replace
                          path: /spec/template/spec/containers/0/image
                          value: $${image}

                """)]
        }
        #expect(try lint(files(inner: "image: nginx:1.27.0")).rendered == [])
        let latest = try lint(files(inner: "image: nginx:latest"))
        #expect(latest.rendered == ["image-latest-tag apps/web.yaml:14:18"], "\(latest.rendered)")
        #expect(latest.first?.message.contains("(written '$${image}', substituted by Flux Kustomization flux-system/apps in clusters/prod/apps.yaml, "
                                                 + "then by Flux Kustomization flux-system/web in apps/web.yaml, which writes it into its own build)") == true,
                "\(latest.map(\.message))")
        let undefined = try lint(files(inner: "other: x")).rendered
        #expect(undefined == ["image-invalid-reference apps/web.yaml:14:18"], "\(undefined)")
    }

    @Test func postBuildSubstitutionIsJudgedAsEachClusterMakesIt() throws {
        var files: [String: String] = [:]
        files["apps/base/kustomization.yaml"] = "resources:\n  - web.yaml\n"
        files["apps/base/web.yaml"] = pod("web", images: ["ghcr.io/acme/web:${WEB_TAG}", "${REGISTRY:=ghcr.io}/acme/side:${SIDE_TAG:-1.2.3}",
                                                             "ghcr.io/acme/other:${OTHER_TAG,,}"])
        files["apps/other/web.yaml"] = pod("loose", images: ["ghcr.io/acme/web:${WEB_TAG}"])
        for env in ["staging", "production"] {
            files["apps/\(env)/kustomization.yaml"] = "namespace: \(env)\nresources:\n  - ../base\n"
        }
        files["clusters/staging/apps.yaml"] = fluxKustomization(path: "./apps/staging", spec: "  postBuild:\n    substitute: {WEB_TAG: latest, SIDE_TAG: \"\"}\n")
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps/production", spec: "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: vars}\n")
        files["clusters/production/vars.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata:\n  WEB_TAG: 1.4.0\n  REGISTRY: registry.example.com\n"
        // staging makes web:latest; production web:1.4.0 and its own registry; ${OTHER_TAG,,} is not evaluated, and
        // apps/other is applied by no Kustomization
        let res = try lint(files)
        #expect(res.rendered == ["image-latest-tag apps/base/web.yaml:8:14"], "\(res.rendered)")
        let message = res.first?.message ?? ""
        #expect(message.contains("(written 'ghcr.io/acme/web:${WEB_TAG}', substituted by Flux Kustomization flux-system/apps in clusters/staging/apps.yaml)"),
                "\(message)")
        #expect(res.first?.environment == "staging")

        // production's variable missing from its ConfigMap: Flux puts an empty string in its place
        files["clusters/production/vars.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata:\n  REGISTRY: registry.example.com\n"
        let missing = try lint(files)
        #expect(missing.rendered == ["image-invalid-reference apps/base/web.yaml:8:14", "image-latest-tag apps/base/web.yaml:8:14"], "\(missing.rendered)")
        let missingMessage = missing.first?.message ?? ""
        #expect(missingMessage.contains("WEB_TAG is not defined there, so Flux puts an empty string in its place"), "\(missingMessage)")
        // unless the kustomization that applies the ConfigMap patches it (pauwels-labs/flux-infra): what it defines is not known
        var patched = files
        patched["clusters/production/kustomization.yaml"] = "resources: [apps.yaml, vars.yaml]\npatches:\n  - path: vars-patch.yaml\n"
        patched["clusters/production/vars-patch.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata:\n  WEB_TAG: 1.4.0\n"
        #expect(try lint(patched).rendered == ["image-latest-tag apps/base/web.yaml:8:14"])
        patched["clusters/production/kustomization.yaml"] = "resources: [apps.yaml, vars.yaml]\n"
        #expect(try lint(patched).rendered == missing.rendered)

        // a source Tagwarden cannot read (a Secret) may define it: production's text is not guessed
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps/production", spec: "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: vars}\n      - {kind: Secret, name: secret-vars}\n")
        #expect(try lint(files).rendered == ["image-latest-tag apps/base/web.yaml:8:14"])

        // a cluster that applies the base without postBuild deploys the reference as written
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps/production")
        let literal = try lint(files)
        #expect(literal.rendered == ["image-invalid-reference apps/base/web.yaml:8:14", "image-latest-tag apps/base/web.yaml:8:14",
                                     "image-invalid-reference apps/base/web.yaml:10:14", "image-invalid-reference apps/base/web.yaml:12:14"],
                "\(literal.rendered)")
        let literalMessage = literal.first?.message ?? ""
        #expect(literalMessage.contains("(Flux Kustomization flux-system/apps in clusters/production/apps.yaml applies it as written: it has no postBuild)"),
                "\(literalMessage)")

        // but not when it reads that path from another source than the substituting one (another repository)
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps/production", spec: "  sourceRef: {kind: GitRepository, name: other-repo}\n")
        #expect(try lint(files).rendered == ["image-latest-tag apps/base/web.yaml:8:14"])
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps/production")

        // unless a parent Kustomization patches postBuild into the ones it applies: then it is not known here
        files["clusters/production/flux-system.yaml"] = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: flux-system, namespace: flux-system}
        spec:
          path: ./clusters/production
          patches:
            - target: {kind: Kustomization}
              patch: |
                - op: add
                  path: /spec/postBuild
                  value: {substituteFrom: [{kind: Secret, name: cluster-secrets}]}

        """
        #expect(try lint(files).rendered == ["image-latest-tag apps/base/web.yaml:8:14"])
        files["clusters/production/flux-system.yaml"] = nil

        // marked substitute: disabled, the object keeps its ${…} in every cluster
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps/production", spec: "  postBuild:\n    substitute: {WEB_TAG: 1.4.0}\n")
        files["apps/base/web.yaml"] = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}\n"
                    + "spec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web:${WEB_TAG}\n"
        let disabled = try lint(files)
        #expect(disabled.rendered == ["image-invalid-reference apps/base/web.yaml:9:14"], "\(disabled.rendered)")
        let disabledMessage = disabled.first?.message ?? ""
        #expect(disabledMessage.contains("Flux Kustomizations flux-system/apps in clusters/production/apps.yaml, flux-system/apps in clusters/staging/apps.yaml "
                                         + "apply it as written: the object is marked kustomize.toolkit.fluxcd.io/substitute: disabled"), "\(disabledMessage)")
    }

    @Test func valuesFilesOfAChartInThisRepositoryAreTheReleasesValues() throws {
        var files: [String: String] = [:]
        files["charts/web/Chart.yaml"] = "apiVersion: v2\nname: web\nversion: 0.1.0\nappVersion: \"1.0.0\"\n"
        files["charts/web/values.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: \"\"\nhelper:\n  image: busybox\n"
        files["charts/web/values-production.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: latest\nproxy:\n  image: ghcr.io/acme/proxy:${PROXY_TAG}\n"
        files["charts/web/values-staging.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: latest\n"
        func release(_ env: String, _ source: String, _ files: String) -> String {
            """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: web, namespace: \(env)}
            spec:
              chart:
                spec:
                  chart: ./charts/web
                  sourceRef: {kind: \(source), name: flux-system, namespace: flux-system}
                  \(files)

            """
        }
        // production lists the defaults and its own file; the values.yaml `tag: ""` is the chart's appVersion
        files["clusters/production/web.yaml"] = release("production", "GitRepository",
                                                            "valuesFiles: [./charts/web/values.yaml, charts/web/values-production.yaml]")
        // a Flux Kustomization substitutes what it builds, never the chart's files: PROXY_TAG stays as written
        files["clusters/production/sync.yaml"] = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: all, namespace: flux-system}
        spec:
          path: ./
          sourceRef: {kind: GitRepository, name: flux-system}
          postBuild: {substitute: {PROXY_TAG: latest}}

        """
        // the older single field
        files["clusters/development/web.yaml"] = release("development", "GitRepository", "valuesFile: charts/web/values-staging.yaml")
        // a chart from a Helm repository: the paths are that chart's, not this tree's
        files["clusters/staging/web.yaml"] = release("staging", "HelmRepository", "valuesFiles: [charts/web/values-staging.yaml]")
        // a chart path with no Chart.yaml here: another repository's
        files["clusters/qa/web.yaml"] = release("qa", "GitRepository", "valuesFiles: [charts/web/values-staging.yaml]")
                        .replacingOccurrences(of: "./charts/web", with: "./charts/api")
        // (the kustomization Flux generates at `./` takes the chart's Chart.yaml, which is no Kubernetes object)
        let all = try lint(files)
        #expect(all.filter { $0.rule == "kustomization-build-fails" }.map(\.rendered) == ["kustomization-build-fails charts/web/Chart.yaml:1:1"])
        let res = all.filter { $0.rule != "kustomization-build-fails" }
        // (development lists values-staging.yaml alone: source-controller packages the chart with it as its values.yaml,
        // so the chart's own values.yaml, and the helper's untagged busybox, are not development's)
        #expect(res.rendered == ["image-missing-tag charts/web/values.yaml:5:10",
                                 "image-latest-tag charts/web/values-production.yaml:3:8",
                                 "image-latest-tag charts/web/values-staging.yaml:3:8"].sorted(by: order), "\(res.rendered)")
        let messages = res.map(\.message)
        #expect(messages.contains("image 'ghcr.io/acme/web:latest' uses the tag 'latest', which moves with every push: pin a version or a digest "
                                  + "(values of HelmRelease development/web, from the chart values file its chart.spec.valuesFiles names)"))
        #expect(res.map(\.environment) == ["production", "development", "production"])
        #expect(!messages.contains { $0.contains("the default in the chart's own values.yaml") }, "\(messages)")
        // a file several releases name is judged once per environment of theirs, the message naming them
        files["clusters/production/api.yaml"] = release("production", "GitRepository", "valuesFiles: [charts/web/values-production.yaml]")
                        .replacingOccurrences(of: "name: web,", with: "name: api,")
        files["clusters/staging/web.yaml"] = release("staging", "GitRepository", "valuesFiles: [charts/web/values-production.yaml]")
        let shared = try lint(files)
        let latest = shared.filter { $0.file == "charts/web/values-production.yaml" }
        let byEnvironment = Dictionary(uniqueKeysWithValues: latest.map { ($0.environment ?? "", $0.message) })
        #expect(byEnvironment.count == 2 && latest.count == 2, "\(shared.rendered)")
        #expect(byEnvironment["production"]?.hasSuffix("(values of HelmReleases production/api, production/web, from the chart values file their chart.spec.valuesFiles name)") == true,
                "\(byEnvironment)")
        #expect(byEnvironment["staging"]?.hasSuffix("(values of HelmRelease staging/web, from the chart values file its chart.spec.valuesFiles names)") == true)
    }

    /// Helm merges a release's `valuesFrom` entries and `spec.values` over its chart's values, the listed files among
    /// them, and a later listed file over an earlier one (NOJV-TW/NOJV: a Secret sets the tag its listed file leaves
    /// `latest`).
    @Test func aListedValuesFileFieldRunsWhereNothingLaterSetsIt() throws {
        var files: [String: String] = [:]
        files["charts/app/Chart.yaml"] = "apiVersion: v2\nname: app\nversion: 0.1.0\n"
        files["charts/app/values.yaml"] = "image:\n  repository: ghcr.io/acme/app\n  tag: latest\n"
        files["charts/app/values-prod.yaml"] = "image:\n  tag: latest\nsidecar:\n  image: busybox:latest\nproxy:\n  image: envoyproxy/envoy:latest\n"
        files["clusters/production/app.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: app, namespace: production}
        spec:
          chart:
            spec:
              chart: ./charts/app
              sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
              valuesFiles: [charts/app/values.yaml, charts/app/values-prod.yaml]
          valuesFrom:
            - {kind: Secret, name: app-values, valuesKey: values.yaml}
          values:
            sidecar: {image: "busybox:1.36.1"}

        """
        let res = try lint(files)
        // values.yaml's tag is set again by values-prod.yaml; the sidecar's by spec.values; the Secret may set any field
        #expect(res.rendered == ["image-latest-tag charts/app/values-prod.yaml:2:8", "image-latest-tag charts/app/values-prod.yaml:6:10"], "\(res.rendered)")
        let premise = "(assuming the valuesFrom entries not read here (Secret app-values of HelmRelease production/app) do not set "
        #expect(res.map(\.message) == [
            "the image whose tag this field sets uses the tag 'latest', which moves with every push: pin a version or a digest "
                + "(values of HelmRelease production/app, from the chart values file its chart.spec.valuesFiles names) "
                + "(assuming the chart runs an image with this tag: the image's name is the chart's own, not read here) " + premise + "image.tag)",
            "image 'envoyproxy/envoy:latest' uses the tag 'latest', which moves with every push: pin a version or a digest "
                + "(values of HelmRelease production/app, from the chart values file its chart.spec.valuesFiles names) " + premise + "proxy.image)",
        ], "\(res.map(\.message))")
        #expect(res.allSatisfy { $0.severity == .warning })
    }

    @Test func aMarkedFieldOfAValuesFileIsTheReleasesImage() throws {
        var files: [String: String] = [:]
        files["staging/policies.yaml"] = imageRepository() + "---\n" + imagePolicy(name: "web-staging", repository: "web")
        files["charts/web/Chart.yaml"] = "apiVersion: v2\nname: web\nversion: 0.1.0\n"
        // production's values: a staging policy's markers, one on the tag beside another image's repository
        files["charts/web/values-prod.yaml"] = """
        image:
          repository: ghcr.io/acme/web
          tag: latest # {"$imagepolicy": "flux-system:web-staging:tag"}
        api:
          image:
            repository: ghcr.io/acme/api
            tag: 1.0.0 # {"$imagepolicy": "flux-system:web-staging:tag"}

        """
        files["production/web.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: production}
        spec:
          chart:
            spec:
              chart: ./charts/web
              sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
              valuesFiles: [charts/web/values-prod.yaml]

        """
        let res = try lint(files)
        // latest once (the release's reading, not also the marker's), in production, where the staging markers do not belong
        #expect(res.rendered == ["image-latest-tag charts/web/values-prod.yaml:3:8", "marker-env-mismatch charts/web/values-prod.yaml:3:15",
                                 "marker-value-rejected charts/web/values-prod.yaml:3:15", "marker-env-mismatch charts/web/values-prod.yaml:7:16",
                                 "marker-image-mismatch charts/web/values-prod.yaml:7:16"], "\(res.rendered)")
        #expect(res.allSatisfy { $0.environment == "production" })
    }

    /// werpo78/videorank-mlops-config: a values file's `digest:` that its own marker updates is not stale.
    @Test func aValuesFilesDigestMarkerIsTheReleasesImages() throws {
        var files: [String: String] = [:]
        files["flux/web.yaml"] = imageRepository() + "---\n" + imagePolicy(digestReflection: "IfNotPresent") + "---\n"
            + imageUpdateAutomation(name: "apps", path: "./apps")
        files["apps/dev/kustomization.yaml"] = "namespace: dev\nresources: [release.yaml]\nconfigMapGenerator:\n  - name: web-values\n    files: [values.yaml]\n"
        files["apps/dev/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: dev}
        spec:
          chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: charts}}}
          valuesFrom:
            - {kind: ConfigMap, name: web-values}

        """
        let digest = "sha256:" + String(repeating: "1", count: 64)
        files["apps/dev/values.yaml"] = """
        image:
          repository: ghcr.io/acme/web # {"$imagepolicy": "flux-system:web:name"}
          tag: 1.0.0 # {"$imagepolicy": "flux-system:web:tag"}
          digest: \(digest) # {"$imagepolicy": "flux-system:web:digest"}

        """
        #expect(try lint(files).filter { $0.rule.hasPrefix("marker-") }.rendered == [])
        files["apps/dev/values.yaml"] = files["apps/dev/values.yaml"]!.replacingOccurrences(of: #" # {"$imagepolicy": "flux-system:web:digest"}"#, with: "")
        let stale = try lint(files).filter { $0.rule.hasPrefix("marker-") }.rendered
        #expect(stale == ["marker-digest-stale apps/dev/values.yaml:4:11"], "\(stale)")
    }

    @Test func valuesFilesOfConfigMapGeneratorsAreTheReleasesValues() throws {
        var files: [String: String] = [:]
        files["apps/base/podinfo/kustomization.yaml"] = "namespace: podinfo\nresources:\n  - release.yaml\n"
        files["apps/base/podinfo/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: podinfo}
        spec:
          chart: {spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfo}}}
          valuesFrom:
            - {kind: ConfigMap, name: podinfo-values}
            - {kind: ConfigMap, name: podinfo-values, valuesKey: extra.yaml}
            - {kind: ConfigMap, name: podinfo-replicas, targetPath: replicaCount}

        """
        for (env, tag) in [("staging", "latest"), ("production", "6.7.1")] {
            files["apps/\(env)/kustomization.yaml"] = """
            resources:
              - ../base/podinfo
            configMapGenerator:
              - name: podinfo-values
                namespace: podinfo
                files:
                  - values.yaml=podinfo-values.yaml
                  - extra.yaml
              - name: podinfo-replicas
                namespace: podinfo
                files:
                  - replicaCount=replicas.yaml

            """
            files["apps/\(env)/podinfo-values.yaml"] = "image:\n  repository: ghcr.io/stefanprodan/podinfo\n  tag: \(tag)\n"
            files["apps/\(env)/extra.yaml"] = "sidecar:\n  image: busybox\n"
            files["apps/\(env)/replicas.yaml"] = "image: nginx:latest\n"   // a single value (targetPath), not values
        }
        // an unrelated app with a generator of the same name: its file is not this release's
        files["apps/other/kustomization.yaml"] = "configMapGenerator:\n  - name: podinfo-values\n    namespace: podinfo\n    files:\n      - values.yaml=vals.yaml\n"
        files["apps/other/vals.yaml"] = "image:\n  repository: ghcr.io/acme/other\n  tag: latest\n"
        let res = try lint(files)
        #expect(res.rendered == ["image-missing-tag apps/production/extra.yaml:2:10", "image-missing-tag apps/staging/extra.yaml:2:10",
                                 "image-latest-tag apps/staging/podinfo-values.yaml:3:8"], "\(res.rendered)")
        let latest = res.last
        #expect(latest?.environment == "staging")
        let latestMessage = latest?.message ?? ""
        #expect(latestMessage.hasSuffix("(values of HelmRelease podinfo/podinfo, from ConfigMap podinfo-values that apps/staging/kustomization.yaml generates)"),
                "\(latestMessage)")
        // Flux substitutes the generated ConfigMap too: a variable in a values file takes the applying Kustomization's value
        files["apps/staging/extra.yaml"] = "sidecar:\n  image: busybox:${SIDE}\n"
        let unsubstituted = try lint(files)
        #expect(unsubstituted.rendered == ["image-missing-tag apps/production/extra.yaml:2:10", "image-latest-tag apps/staging/podinfo-values.yaml:3:8"],
                "\(unsubstituted.rendered)")
        files["clusters/staging/apps.yaml"] = fluxKustomization(path: "./apps/staging", spec: "  postBuild:\n    substitute: {SIDE: nightly}\n")
        // once Flux Kustomizations are here, what they apply is what is deployed: production's has one too
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps/production")
        let substituted = try lint(files)
        #expect(substituted.rendered == ["image-missing-tag apps/production/extra.yaml:2:10", "image-floating-tag apps/staging/extra.yaml:2:10",
                                         "image-latest-tag apps/staging/podinfo-values.yaml:3:8"], "\(substituted.rendered)")
        #expect(latest?.object?.name == "podinfo")
    }

    @Test func aValuesFileFieldThatALaterSourceSetsDoesNotRun() throws {
        // Helm merges a release's valuesFrom entries in order and its spec.values last: a field a later source sets
        // never runs as the earlier file writes it
        var files: [String: String] = [:]
        files["apps/base/web/kustomization.yaml"] = """
        resources: [release.yaml]
        configMapGenerator:
          - name: web-values
            namespace: web
            files:
              - values-base.yaml

        """
        files["apps/base/web/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: web}
        spec:
          chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: acme}}}
          valuesFrom:
            - {kind: ConfigMap, name: web-values, valuesKey: values-base.yaml}
          values:
            kubectl:
              image: {tag: "1.31.2"}

        """
        files["apps/base/web/values-base.yaml"] = """
        image:
          repository: ghcr.io/acme/web
          tag: "4.13"
        kubectl:
          image:
            repository: bitnami/kubectl
            tag: latest
        sidecar:
          image: busybox:latest

        """
        // staging: a strategic merge gives the release a second entry, whose key the overlay merges into the ConfigMap
        files["apps/staging/kustomization.yaml"] = """
        resources: [../base/web]
        patches:
          - path: release.yaml
        configMapGenerator:
          - name: web-values
            namespace: web
            behavior: merge
            files:
              - values.yaml

        """
        files["apps/staging/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: web}
        spec:
          valuesFrom:
            - {kind: ConfigMap, name: web-values, valuesKey: values-base.yaml}
            - {kind: ConfigMap, name: web-values, valuesKey: values.yaml}

        """
        files["apps/staging/values.yaml"] = "image:\n  tag: \"4.22.1\"\n"
        // production: a JSON patch appends an entry of another ConfigMap, which the overlay generates
        files["apps/production/kustomization.yaml"] = """
        resources: [../base/web]
        patches:
          - target: {kind: HelmRelease, name: web}
            patch: |-
              - op: add
                path: /spec/valuesFrom/-
                value: {kind: ConfigMap, name: web-prod, valuesKey: values.yaml}
        configMapGenerator:
          - name: web-prod
            namespace: web
            files:
              - values.yaml=prod.yaml

        """
        files["apps/production/prod.yaml"] = "image:\n  tag: \"4.22.1\"\n"
        let res = try lint(files)
        // the base's 4.13 runs nowhere, its kubectl is the release's own; its sidecar runs everywhere
        #expect(res.rendered == ["image-latest-tag apps/base/web/values-base.yaml:9:10"], "\(res.rendered)")

        // an overlay that forgets: the base's tag is deployed by it, and named
        files["apps/development/kustomization.yaml"] = "resources: [../base/web]\n"
        let forgets = try lint(files)
        #expect(forgets.rendered == ["image-floating-tag apps/base/web/values-base.yaml:3:8", "image-latest-tag apps/base/web/values-base.yaml:9:10"],
                "\(forgets.rendered)")
        let message = forgets.first?.message ?? ""
        #expect(message.contains("(deployed with this tag by apps/development/; the other builds replace or drop it)"), "\(message)")

        // a later entry of a ConfigMap that development does not generate sets nothing there
        files["apps/development/kustomization.yaml"] = """
        resources: [../base/web]
        patches:
          - path: release.yaml

        """
        files["apps/development/release.yaml"] = files["apps/staging/release.yaml"]!
        #expect(try lint(files).rendered == forgets.rendered)

        // a patch that drops the base's entry: its file is not read there
        files["apps/development/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: web}
        spec:
          valuesFrom: []

        """
        #expect(try lint(files).rendered == ["image-latest-tag apps/base/web/values-base.yaml:9:10"])
    }

    @Test func eachBuildDecidesWhetherAValuesFilesFieldRuns() throws {
        func release(_ entries: [String], values: String = "") -> String {
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: web}\nspec:\n  valuesFrom:\n"
                + entries.map { "    - " + $0 + "\n" }.joined() + values
        }
        let base = "{kind: ConfigMap, name: web-values, valuesKey: values-base.yaml}"
        let own = "{kind: ConfigMap, name: web-values, valuesKey: values.yaml, optional: true}"
        func generator(_ files: String, merge: Bool = false) -> String {
            "configMapGenerator:\n  - name: web-values\n    namespace: web\n" + (merge ? "    behavior: merge\n" : "") + "    files: [\(files)]\n"
        }
        // the common layout: the base lists both files and generates the first; each overlay merges its own
        var files: [String: String] = [:]
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml]\n" + generator("values-base.yaml")
        files["apps/base/release.yaml"] = release([base, own])
        files["apps/base/values-base.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: latest\n"
        for env in ["staging", "production"] {
            files["apps/\(env)/kustomization.yaml"] = "resources: [../base]\n" + generator("values.yaml", merge: true)
            files["apps/\(env)/values.yaml"] = "image:\n  tag: \"1.4.2\"\n"
        }
        #expect(try lint(files).rendered == [])
        // an overlay that generates the base's key from a file of its own: the base's file is not read there
        files["apps/production/kustomization.yaml"] = "resources: [../base]\n" + generator("values-base.yaml=prod-base.yaml", merge: true)
        files["apps/production/prod-base.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: \"2.0.1\"\n"
        #expect(try lint(files).rendered == [])
        files["apps/production/kustomization.yaml"] = "resources: [../base]\n" + generator("values.yaml", merge: true)
        files["apps/production/prod-base.yaml"] = nil
        // an overlay whose values leave the tag alone deploys the base's, and is named
        files["apps/staging/values.yaml"] = "replicaCount: 2\n"
        let forgets = try lint(files)
        #expect(forgets.rendered == ["image-latest-tag apps/base/values-base.yaml:3:8"], "\(forgets.rendered)")
        #expect(forgets.first?.message.contains("(deployed with this tag by apps/staging/; the other builds replace or drop it)") == true,
                "\(forgets.first?.message ?? "")")
        // a JSON patch that removes the later entry by its place (past an entry with a targetPath) takes the override away
        files["apps/staging/values.yaml"] = "image:\n  tag: \"1.4.2\"\n"
        files["apps/base/release.yaml"] = release([base, "{kind: ConfigMap, name: web-replicas, valuesKey: n, targetPath: replicaCount}", own])
        #expect(try lint(files).rendered == [])
        files["apps/production/kustomization.yaml"]! += "patches:\n  - target: {kind: HelmRelease}\n    patch: |-\n      - op: remove\n        path: /spec/valuesFrom/2\n"
        let removed = try lint(files)
        #expect(removed.rendered == ["image-latest-tag apps/base/values-base.yaml:3:8"], "\(removed.rendered)")
        #expect(removed.first?.message.contains("by apps/production/;") == true, "\(removed.first?.message ?? "")")
        // removing the entry with the targetPath instead leaves the override
        files["apps/production/kustomization.yaml"] = files["apps/production/kustomization.yaml"]!
            .replacingOccurrences(of: "/spec/valuesFrom/2", with: "/spec/valuesFrom/1")
        #expect(try lint(files).rendered == [])
    }

    @Test func aReleasesValuesAndTheBuildsThatReadAFile() throws {
        // the release's spec.values sets the field; an overlay's patch takes it away again
        var files: [String: String] = [:]
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml]\nconfigMapGenerator:\n  - name: web-values\n    namespace: web\n    files: [values.yaml]\n"
        files["apps/base/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: web}
        spec:
          valuesFrom:
            - {kind: ConfigMap, name: web-values}
          values:
            image: {tag: "1.4.2"}

        """
        files["apps/base/values.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: latest\n"
        files["apps/staging/kustomization.yaml"] = "resources: [../base]\n"
        #expect(try lint(files).rendered == [])
        files["apps/staging/kustomization.yaml"] = """
        resources: [../base]
        patches:
          - target: {kind: HelmRelease}
            patch: |-
              apiVersion: helm.toolkit.fluxcd.io/v2
              kind: HelmRelease
              metadata: {name: web}
              spec:
                values:
                  image: null

        """
        let nulled = try lint(files)
        #expect(nulled.rendered == ["image-latest-tag apps/base/values.yaml:3:8"], "\(nulled.rendered)")

        // two overlays each generate the ConfigMap from their own file; one patches the release's values: only the
        // other's file runs, and the finding does not name the first
        files = [:]
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml]\n"
        files["apps/base/release.yaml"] = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: web}\nspec:\n  valuesFrom:\n    - {kind: ConfigMap, name: web-values}\n"
        for env in ["a", "b"] {
            files["apps/\(env)/kustomization.yaml"] = "resources: [../base]\nconfigMapGenerator:\n  - name: web-values\n    namespace: web\n    files: [values.yaml]\n"
            files["apps/\(env)/values.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: latest\n"
        }
        files["apps/a/kustomization.yaml"]! += "patches:\n  - target: {kind: HelmRelease}\n    patch: |-\n      - op: add\n        path: /spec/values\n        value: {image: {tag: \"1.4.2\"}}\n"
        let two = try lint(files)
        #expect(two.rendered == ["image-latest-tag apps/b/values.yaml:3:8"], "\(two.rendered)")
        #expect(two.first?.message.contains("deployed with this tag") == false, "\(two.first?.message ?? "")")
    }

    @Test func valuesFilesFollowTheWholeBuild() throws {
        let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: web}\nspec:\n"
        let values = "image:\n  repository: ghcr.io/acme/web\n  tag: latest\n"
        func patch(_ ops: String) -> String { "patches:\n  - target: {kind: HelmRelease}\n    patch: |-\n" + ops }
        // the release's own values set the tag, and the base below the generator removes them: the file's tag runs
        var files: [String: String] = [:]
        files["apps/base/release.yaml"] = release + "  valuesFrom:\n    - {kind: ConfigMap, name: web-values}\n  values:\n    image: {tag: \"1.0.0\"}\n"
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml]\n"
        files["apps/prod/kustomization.yaml"] = "resources: [../base]\nconfigMapGenerator:\n  - name: web-values\n    namespace: web\n    files: [values.yaml]\n"
        files["apps/prod/values.yaml"] = values
        #expect(try lint(files).rendered == [])
        files["apps/base/kustomization.yaml"]! += patch("      - op: remove\n        path: /spec/values/image/tag\n")
        #expect(try lint(files).rendered == ["image-latest-tag apps/prod/values.yaml:3:8"])
        // a JSON patch that puts a null there: Helm drops the field, so the file's tag does not run
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml]\n" + patch("      - op: replace\n        path: /spec/values/image/tag\n        value: null\n")
        #expect(try lint(files).rendered == [])

        // an entry one overlay drops and the next puts back: the top build reads the file
        files = [:]
        files["apps/base/release.yaml"] = release + "  valuesFrom:\n    - {kind: ConfigMap, name: web-values}\n"
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml]\nconfigMapGenerator:\n  - name: web-values\n    namespace: web\n    files: [values.yaml]\n"
        files["apps/base/values.yaml"] = values
        files["apps/mid/kustomization.yaml"] = "resources: [../base]\n" + patch("      - op: replace\n        path: /spec/valuesFrom\n        value: []\n")
        #expect(try lint(files).rendered == [])
        files["apps/top/kustomization.yaml"] = "resources: [../mid]\n" + patch("      - op: add\n        path: /spec/valuesFrom/-\n        value: {kind: ConfigMap, name: web-values}\n")
        #expect(try lint(files).rendered == ["image-latest-tag apps/base/values.yaml:3:8"])

        // a later entry with a targetPath on the tag, its key a literal: the file's tag does not run
        files = [:]
        files["apps/base/release.yaml"] = release
            + "  valuesFrom:\n    - {kind: ConfigMap, name: web-values}\n    - {kind: ConfigMap, name: web-tag, valuesKey: tag, targetPath: image.tag}\n"
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml]\nconfigMapGenerator:\n  - name: web-values\n    namespace: web\n    files: [values.yaml]\n"
            + "  - name: web-tag\n    namespace: web\n    literals: [tag=1.4.2]\n"
        files["apps/base/values.yaml"] = values
        #expect(try lint(files).rendered == [])
        files["apps/base/release.yaml"] = files["apps/base/release.yaml"]!.replacingOccurrences(of: "targetPath: image.tag", with: "targetPath: replicaCount")
        #expect(try lint(files).rendered == ["image-latest-tag apps/base/values.yaml:3:8"])
    }

    @Test func aReleasesOwnValuesDoNotCarryAnotherFilesMarker() throws {
        // the release's spec.values replaces both overlays' marked tags: each marker is on a field that never runs
        var files: [String: String] = [:]
        files["apps/base/kustomization.yaml"] = "resources: [release.yaml, policy.yaml]\n"
        files["apps/base/release.yaml"] = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: web}\nspec:\n"
            + "  valuesFrom:\n    - {kind: ConfigMap, name: web-values}\n  values:\n    image: {tag: \"1.0.0\"}\n"
        files["apps/base/policy.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: web, namespace: flux-system}\n"
            + "spec: {image: ghcr.io/acme/web, interval: 1h}\n---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\n"
            + "metadata: {name: web, namespace: flux-system}\nspec:\n  imageRepositoryRef: {name: web}\n  policy: {semver: {range: '>=1.0.0'}}\n"
        for env in ["prod", "staging"] {
            files["apps/\(env)/kustomization.yaml"] = "resources: [../base]\nconfigMapGenerator:\n  - name: web-values\n    namespace: web\n    files: [values.yaml]\n"
            files["apps/\(env)/values.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: \"1.4.0\" # {\"$imagepolicy\": \"flux-system:web:tag\"}\n"
        }
        let found = try lint(files).filter { $0.rule == "marker-overridden" }
        #expect(found.rendered == ["marker-overridden apps/prod/values.yaml:3:16", "marker-overridden apps/staging/values.yaml:3:16"], "\(found.rendered)")
    }

    @Test func markersOnAValuesFileThatALaterSourceOverrides() throws {
        var files: [String: String] = [:]
        files["apps/backup/kustomization.yaml"] = "resources: [release.yaml]\nconfigMapGenerator:\n  - name: backup-values\n    namespace: flux-system\n    files: [values-base.yaml, values.yaml]\n"
        files["apps/backup/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: backup, namespace: flux-system}
        spec:
          valuesFrom:
            - {kind: ConfigMap, name: backup-values, valuesKey: values-base.yaml}
            - {kind: ConfigMap, name: backup-values, valuesKey: values.yaml}

        """
        files["apps/backup/policy.yaml"] = """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata: {name: seaweedfs, namespace: flux-system}
        spec: {image: chrislusf/seaweedfs, interval: 1h}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: seaweedfs, namespace: flux-system}
        spec:
          imageRepositoryRef: {name: seaweedfs}
          policy: {semver: {range: '>=4.0.0'}}

        """
        files["apps/backup/kustomization.yaml"] = files["apps/backup/kustomization.yaml"]!.replacingOccurrences(of: "[release.yaml]", with: "[release.yaml, policy.yaml]")
        files["apps/backup/values-base.yaml"] = "image:\n  repository: chrislusf/seaweedfs\n  tag: \"4.13.0\" # {\"$imagepolicy\": \"flux-system:seaweedfs:tag\"}\n"
        files["apps/backup/values.yaml"] = "image:\n  repository: chrislusf/seaweedfs\n  tag: \"4.22.1\" # {\"$imagepolicy\": \"flux-system:seaweedfs:tag\"}\n"
        // both marked: Flux's updates reach the release through the later file
        #expect(try lint(files).filter { $0.rule == "marker-overridden" }.rendered == [])
        files["apps/backup/values.yaml"] = "image:\n  repository: chrislusf/seaweedfs\n  tag: \"4.22.1\"\n"
        let overridden = try lint(files).filter { $0.rule == "marker-overridden" }
        #expect(overridden.rendered == ["marker-overridden apps/backup/values-base.yaml:3:17"], "\(overridden.rendered)")
        #expect(overridden.first?.message.contains("a later values source (apps/backup/kustomization.yaml)") == true, "\(overridden.first?.message ?? "")")
    }

    @Test func laterEntriesOfOneGeneratorOverrideWithoutPatches() throws {
        // a release that reads its base values and then its own, both generated by the kustomization that includes it
        var files: [String: String] = [:]
        files["apps/backup/kustomization.yaml"] = """
        resources: [release.yaml]
        configMapGenerator:
          - name: backup-values
            namespace: flux-system
            files:
              - values-base.yaml=../base/values-base.yaml
              - values.yaml

        """
        files["apps/backup/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: backup, namespace: flux-system}
        spec:
          valuesFrom:
            - {kind: ConfigMap, name: backup-values, valuesKey: values-base.yaml}
            - {kind: ConfigMap, name: backup-values, valuesKey: values.yaml}

        """
        files["apps/base/values-base.yaml"] = "image:\n  repository: chrislusf/seaweedfs\n  tag: \"4.13\"\n"
        files["apps/backup/values.yaml"] = "image:\n  repository: chrislusf/seaweedfs\n  tag: \"4.22.1\"\n"
        #expect(try lint(files).rendered == [])
        // the other order: the base's values win
        files["apps/backup/release.yaml"] = files["apps/backup/release.yaml"]!
            .replacingOccurrences(of: "valuesKey: values-base.yaml}", with: "valuesKey: values-base.tmp}")
            .replacingOccurrences(of: "valuesKey: values.yaml}", with: "valuesKey: values-base.yaml}")
            .replacingOccurrences(of: "valuesKey: values-base.tmp}", with: "valuesKey: values.yaml}")
        #expect(try lint(files).rendered == ["image-floating-tag apps/base/values-base.yaml:3:8"])
    }

    @Test func aManifestsOwnEnvironmentWinsOverItsKustomizations() throws {
        // the environment model decides a manifest's environment from its own path first; the applying Kustomization's
        // environment serves only a manifest without one
        var files: [String: String] = [:]
        files[".tagwarden.yaml"] = "profile: strict\npromotedImages: [\"ghcr.io/acme/*\"]\n"
        files["apps/production/web.yaml"] = pod("web", images: ["ghcr.io/acme/web:${WEB_TAG}"])
        files["apps/shared/web.yaml"] = pod("shared", images: ["ghcr.io/acme/web:${WEB_TAG}"])
        files["clusters/staging/apps.yaml"] = fluxKustomization(path: "./apps", spec: "  postBuild:\n    substitute: {WEB_TAG: staging-v1.0.0-abc1234-1}\n")
        let res = try lint(files)
        // production's manifest is judged as production's (a staging tag there); the shared one as staging's (no finding)
        let found = res.map { "\($0.rule) \($0.file):\($0.line) \($0.environment ?? "-")" }
        #expect(found == ["image-env-prefix apps/production/web.yaml:8 production", "image-not-pinned apps/production/web.yaml:8 production"],
                "\(found)")
    }

    @Test func valuesInAConfigMapsLiteralBlockAreTheReleasesValues() throws {
        var files: [String: String] = [:]
        files["apps/base/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: podinfo, namespace: podinfo}
        spec:
          valuesFrom:
            - {kind: ConfigMap, name: podinfo-values}
            - {kind: ConfigMap, name: quoted-values}

        """
        for (env, tag) in [("staging", "latest"), ("production", "6.7.1")] {
            files["clusters/\(env)/values.yaml"] = """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: podinfo-values, namespace: podinfo}
            data:
              other.yaml: |
                image: nginx:latest
              values.yaml: |
                replicaCount: 2

                image:
                  repository: ghcr.io/stefanprodan/podinfo
                  tag: \(tag)

            """
        }
        // values in a quoted string are not read (their positions do not map back), nor another key's
        files["clusters/staging/quoted.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: quoted-values, namespace: podinfo}\n"
                    + "data:\n  values.yaml: \"image:\\n  repository: redis\\n  tag: latest\\n\"\n"
        // (each cluster's directory applied by a cluster elsewhere: no cluster is described here)
        let res = try lint(files, asFound: true)
        #expect(res.rendered == ["image-latest-tag clusters/staging/values.yaml:12:12"], "\(res.rendered)")
        #expect(res.first?.environment == "staging")
        #expect(res.first?.object?.kind == "HelmRelease")
        let message = res.first?.message ?? ""
        #expect(message.hasSuffix("(values of HelmRelease podinfo/podinfo, from ConfigMap podinfo-values) (no cluster in this repository applies this file)"), "\(message)")
    }

    /// kommander-applications: each app's release reads `${releaseName}-defaults`, the ConfigMap beside it; by the
    /// name as written, every app's ConfigMap matches every release, and the first release took them all.
    @Test func aConfigMapOfANameManyShareIsTheOneBesideTheRelease() throws {
        var files: [String: String] = [:]
        for (app, image) in [("aaa-other", "redis:7.2.4"), ("web", "nginx:latest")] {
            files["apps/\(app)/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '${releaseName}-defaults', namespace: apps}\n"
                + "data:\n  values.yaml: |\n    image: \(image)\n"
            files["apps/\(app)/release.yaml"] = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: \(app), namespace: apps}\n"
                + "spec:\n  valuesFrom:\n    - {kind: ConfigMap, name: '${releaseName}-defaults'}\n"
        }
        let res = try lint(files, asFound: true)
        #expect(res.rendered == ["image-latest-tag apps/web/cm.yaml:6:12"], "\(res.rendered)")
        let message = res.first?.message ?? ""
        #expect(message.contains("(values of HelmRelease apps/web, from ConfigMap ${releaseName}-defaults)"), "\(message)")
    }

    @Test func partsAndInlinePatchesAreSubstitutedWhereTheyStand() throws {
        var files: [String: String] = [:]
        files["apps/kustomization.yaml"] = """
        resources: [release.yaml, deploy.yaml]
        images:
          - name: ghcr.io/acme/web
            newTag: ${WEB_TAG}
          - name: ghcr.io/acme/api
            newName: ${REGISTRY}/acme/api
            newTag: "1.0.0"
        patches:
          - patch: |-
              - op: replace
                path: /spec/template/spec/containers/1/image
                value: ghcr.io/acme/side:${WEB_TAG}

        """
        files["apps/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: x}
        spec:
          values:
            image:
              repository: ghcr.io/acme/x
              tag: ${X_TAG:=1.2.3}

        """
        files["apps/deploy.yaml"] = pod("web", images: ["ghcr.io/acme/web", "ghcr.io/acme/api"])   // what the entries retag
        files["clusters/staging/apps.yaml"] = 
                    fluxKustomization(path: "./apps", spec: "  postBuild:\n    substitute: {WEB_TAG: main, REGISTRY: \"registry.example.com/ACME\", X_TAG: latest}\n")
        // the tag's finding stays at the tag's field; a substituted registry that is no valid name is reported at the entry
        let res = try lint(files)
        #expect(res.rendered == ["image-floating-tag apps/kustomization.yaml:4:13", "image-invalid-reference apps/kustomization.yaml:6:14",
                                 "image-floating-tag apps/kustomization.yaml:12:16", "image-latest-tag apps/release.yaml:8:12"],
                "\(res.rendered)")
        let messages = res.map(\.message)
        #expect(messages[0].contains("(written 'ghcr.io/acme/web:${WEB_TAG}', substituted by Flux Kustomization flux-system/apps in clusters/staging/apps.yaml)"),
                "\(messages[0])")
    }

    /// A cluster whose Flux Kustomization builds `apps/prod`, where `kustomization` is the kustomization of a ConfigMap `web`.
    func prodApp(kustomization: String) -> [String: String] {
        ["clusters/prod/flux-system/gotk-sync.yaml": fluxKustomization(name: "flux-system", path: "./clusters/prod"),
         "clusters/prod/apps.yaml": fluxKustomization(path: "./apps/prod"),
         "apps/prod/kustomization.yaml": kustomization,
         "apps/prod/web.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\n"]
    }

    /// kustomize-controller hands kustomize the kustomization at a Flux Kustomization's path as fluxcd/pkg's generator
    /// decodes and writes it back, without the fields kustomize does not know: there such a field does nothing (a
    /// warning), and a misspelt `resource:` leaves nothing to build (an error); an overlay that includes the directory
    /// reads the file itself and fails (prakash-hulamani/maersk_local).
    @Test func anUnknownFieldAtAFluxPathIsDroppedUnlessABuildIncludesTheDirectory() throws {
        var files = prodApp(kustomization: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ndescription: prod\nresources: [web.yaml]\n")
        let dropped = try lint(files).filter { $0.rule == "kustomization-build-fails" }
        #expect(dropped.map(\.rendered) == ["kustomization-build-fails apps/prod/kustomization.yaml:3:1"])
        #expect(dropped.map(\.severity) == [.warning])
        var misspelt = files
        misspelt["apps/prod/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresource: [web.yaml]\n"
        let empty = try lint(misspelt).filter { $0.rule == "kustomization-build-fails" }
        #expect(empty.map { "\($0.severity) \($0.rendered)" } == ["error kustomization-build-fails apps/prod/kustomization.yaml:3:1"])
        #expect(empty.first?.message.contains("nothing else gives that build resources, so it applies nothing") == true, "\(empty.map(\.message))")
        // an overlay no Flux Kustomization builds that includes the directory: its build fails
        var overlay = files
        overlay["apps/canary/kustomization.yaml"] = "resources: [../prod]\n"
        #expect(try lint(overlay).filter { $0.rule == "kustomization-build-fails" }.map(\.message)
                == ["kustomize refuses this kustomization (invalid Kustomization: json: unknown field \"description\"), so nothing that builds "
                    + "apps/canary deploys anything"])
        // an overlay that takes the directory as a resource: kustomize reads the file strictly there
        files["apps/canary/kustomization.yaml"] = "resources: [../prod]\n"
        files["clusters/prod/canary.yaml"] = fluxKustomization(name: "canary", path: "./apps/canary")
        let refused = try lint(files).filter { $0.rule == "kustomization-build-fails" }
        #expect(refused.map(\.severity) == [.error], "\(refused.map(\.message))")
        #expect(refused.map(\.message) == ["kustomize refuses this kustomization (invalid Kustomization: json: unknown field \"description\"), "
                                            + "so Flux Kustomization flux-system/canary (clusters/prod/canary.yaml) deploys nothing"])
    }

    /// Go's JSON reader matches a kustomization's field names whatever their case (`Resources:` is `resources:`): only a
    /// name that is none of them in any case is unknown, and a field that gives resources counts in any case too.
    @Test func kustomizationFieldsAreKnownWhateverTheirCase() throws {
        var files = prodApp(kustomization: "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nNameSuffix: -x\nResources: [web.yaml]\n")
        #expect(try lint(files).filter { $0.rule == "kustomization-build-fails" }.isEmpty)
        // an unknown name, beside `RESOURCES:`, which still gives the build its resources: dropped, a warning
        files["apps/prod/kustomization.yaml"] = "kind: Kustomization\nResourcez: [web.yaml]\nRESOURCES: [web.yaml]\n"
        let dropped = try lint(files).filter { $0.rule == "kustomization-build-fails" }
        #expect(dropped.map { "\($0.severity) \($0.rendered)" } == ["warning kustomization-build-fails apps/prod/kustomization.yaml:2:1"])
        // a name outside ASCII is no field either
        files["apps/prod/kustomization.yaml"] = "kind: Kustomization\nrésources: [web.yaml]\n"
        let refused = try lint(files).filter { $0.rule == "kustomization-build-fails" }
        #expect(refused.map { "\($0.severity) \($0.rendered)" } == ["error kustomization-build-fails apps/prod/kustomization.yaml:2:1"])
    }

    /// AbuDev22/multi-clusters: a Flux Kustomization written into the `kustomization.yaml` of bootstrap's path is the
    /// kustomization kustomize reads there, and refuses: Flux generates nothing for that directory, so neither the
    /// Kustomization nor the `flux-system` directory beside it is applied through that build, and what its path names is
    /// applied by no cluster here (a warning that says so), not an error of a Kustomization that never runs.
    @Test func aFluxKustomizationWrittenAsTheKustomizationFileIsAppliedByNothing() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/flux-system/kustomization.yaml"] = "resources: [gotk-components.yaml, gotk-sync.yaml, missing.yaml]\n"
        files["clusters/prod/kustomization.yaml"] = fluxKustomization(name: "prod", path: "./apps")
        files["apps/app1/deployment.yml"] = "apiVersion: v1\nkind: ConfigMap\nnamespace:default\nmetadata:\n  name: app1\n"
        let res = try lint(files).filter { $0.rule == "kustomization-build-fails" }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["warning kustomization-build-fails apps/app1/deployment.yml:4:1",
                                                               "error kustomization-build-fails clusters/prod/flux-system/kustomization.yaml:1:51",
                                                               "error kustomization-build-fails clusters/prod/kustomization.yaml:4:1"],
                "\(res.map(\.message))")
        #expect(res.first?.message.hasSuffix("(no cluster in this repository applies this file)") == true, "\(res.map(\.message))")
        // (bootstrap applies its directory itself: not the refused build's)
        #expect(res.dropFirst().first?.message.hasSuffix("so nothing that builds clusters/prod/flux-system deploys anything") == true,
                "\(res.map(\.message))")
        // one that nothing here builds may be applied by hand (`kubectl apply -f deploy/`): a root applied from outside
        let byHand = try lint(["deploy/kustomization.yaml": fluxKustomization(name: "app", path: "./k8s"),
                               "k8s/web.yaml": pod("web", images: ["nginx:latest"])]).filter { $0.rule == "image-latest-tag" }
        #expect(byHand.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag k8s/web.yaml:8:14"])
        #expect(byHand.first?.message.hasSuffix("(cluster deploy is taken to be applied from outside this repository (nothing here applies "
                                                + "deploy/kustomization.yaml); declare it under clusters: in .tagwarden.yaml)") == true, "\(byHand.map(\.message))")
    }

    /// rayanebel/fluxv2-test: a GitRepository's `include` has source-controller copy another repository's artifact to
    /// its `toPath` (the included GitRepository's name by default): what is there is not in this repository, and
    /// neither a Flux path nor a resource under it is missing.
    @Test func whatAGitRepositoryIncludesIsNotJudgedMissing() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/stacks.yaml"] = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: fleet, namespace: flux-system}
        spec:
          url: https://github.com/acme/fleet
          include:
            - repository: {name: stacks}
              toPath: vendor/stacks
            - repository: {name: charts}

        """
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "infra", path: "./vendor/stacks/infra", spec: "  sourceRef: {kind: GitRepository, name: fleet}\n")
            + "---\n" + fluxKustomization(name: "platform", path: "./platform")
        files["platform/kustomization.yaml"] = "resources: [../vendor/stacks/base, ../charts/web, ../missing]\n"
        let missing = try lint(files, asFound: true).filter { $0.rule == "kustomization-build-fails" }
        #expect(missing.map(\.rendered) == ["kustomization-build-fails platform/kustomization.yaml:1:51"], "\(missing.map(\.message))")
    }

    /// A path a kustomization names both as a resource and as a patch file, not there: one finding at each entry, each
    /// with its own reason.
    @Test func aMissingPathNamedAsResourceAndPatchIsReportedOnceAtEach() throws {
        let files = ["app/kustomization.yaml": "resources: [deploy.yaml, extra.yaml]\npatches:\n  - path: extra.yaml\n",
                     "app/deploy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\n"]
        let found = try lint(files).filter { $0.rule == "kustomization-build-fails" }.map { "\($0.position) \($0.message.prefix(95))" }
        #expect(found == ["app/kustomization.yaml:1:26 kustomize cannot build this kustomization: it names 'extra.yaml', which is neither a file nor a",
                          "app/kustomization.yaml:3:11 kustomize cannot build this kustomization: it names 'extra.yaml', a patch file that is not in t"],
                "\(found)")
    }

    func order(_ a: String, _ b: String) -> Bool {
        let fa = a.split(separator: " ")[1].split(separator: ":"), fb = b.split(separator: " ")[1].split(separator: ":")
        if fa[0] != fb[0] { return fa[0] < fb[0] }
        if Int(fa[1])! != Int(fb[1])! { return Int(fa[1])! < Int(fb[1])! }
        if Int(fa[2])! != Int(fb[2])! { return Int(fa[2])! < Int(fb[2])! }
        return a < b
    }
}

/// What Flux writes at a marker it writes only where an automation updates the file: aws-samples/eks-saas-gitops's
/// automations update `gitops/` pushed as a repository of its own, their paths hold no file of this clone, and the
/// tier templates' '0.1' that marker-value-rejected said Flux "will replace" no automation here is known to read.
@Suite struct MarkerWrittenPremiseTests {
    static let files: [String: String] = [
        "app/deploy.yaml": deployment(name: "producer", namespace: "default", image: "ghcr.io/acme/producer:0.1", marker: "flux-system:producer"),
        "flux/policy.yaml": imageRepository(name: "producer", image: "ghcr.io/acme/producer") + "---\n"
            + imagePolicy(name: "producer", pattern: "^prd-(?P<ts>.*)$", extract: "$ts", order: .alphabetical("asc")),
    ]
    static func automation(_ path: String) -> String { imageUpdateAutomation(name: "auto", path: path) }
    static let rejected = "policy flux-system/producer could never select '0.1': it does not match filterTags.pattern '^prd-(?P<ts>.*)$'; "
        + "Flux will replace it with the next tag it selects"

    func rejection(_ files: [String: String]) throws -> Finding? {
        try lint(files).first { $0.rule == "marker-value-rejected" }
    }

    /// (a repository that writes no automation: one made elsewhere reads its markers, as the rule's premises have it)
    @Test func noAutomationInTheRepository() throws {
        let f = try #require(try rejection(Self.files))
        #expect(f.message == Self.rejected, "\(f.message)")
        #expect(f.assumption == nil)
    }

    @Test func automationsWhosePathsHoldNoFileHere() throws {
        var files = Self.files
        files["flux/auto.yaml"] = Self.automation("./application-plane/tenants")
        let f = try #require(try rejection(files))
        #expect(f.message == Self.rejected + " (assuming an ImageUpdateAutomation updates this file: those written here read no GitRepository "
                + "of this repository, and their update.path (./application-plane/tenants) holds no file of it)", "\(f.message)")
        #expect(f.assumption != nil)
    }

    @Test func anAutomationThatUpdatesTheFile() throws {
        var files = Self.files
        files["flux/auto.yaml"] = Self.automation("./app")
        let f = try #require(try rejection(files))
        #expect(f.message == Self.rejected, "\(f.message)")
        #expect(f.assumption == nil)
    }
}

/// What marker-value-rejected says of a key Flux's version parser refuses: which Flux refuses it, and for what.
@Suite struct VersionRefusalTests {
    /// raviusit/gitOps-workflow-flux's '1.25' under Flux 2.6: no Flux reads it, 2.7 and later either.
    @Test func aKeyOfOneDotIsRefusedByEveryFlux() {
        #expect(Rule.versionRefusal("1.25", flux: .legacy) == " (Flux before 2.7 needs exactly X.Y.Z, and later Flux at least two dots)")
        #expect(Rule.versionRefusal("1.25", flux: .current) == " (Flux 2.7+ needs at least two dots)")
    }

    /// Three dots: only the Flux before 2.7 refuses it.
    @Test func aKeyOfThreeDotsIsRefusedBeforeFlux27() {
        #expect(Rule.versionRefusal("1.2.3.4", flux: .legacy) == " (Flux before 2.7 needs exactly X.Y.Z)")
    }
}
