import Foundation
import Testing

let sha = "sha256:" + String(repeating: "c", count: 64)

/// A multi-environment Flux repository with markers in Deployments, CronJobs, HelmRelease values,
/// kustomize images (:tag, :name, :digest) and a custom resource.
func fluxRepo() throws -> TempRepo {
    let r = try TempRepo()
    try r.write(".tagwarden.yaml", """
    profile: strict
    rules:
      image-not-pinned: {enabled: false}
      promotion-untested-digest: {enabled: false}

    """)
    try r.write("clusters/production/flux.yaml", """
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
          messageTemplate: '{{range .Updated.Images}}{{println .}}{{end}}'
        push:
          branch: main
      update:
        path: ./clusters/production

    """)
    try r.write("clusters/staging/flux.yaml", """
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
        push:
          branch: flux-staging
      update:
        path: ./clusters/staging

    """)
    try r.write("clusters/production/deploy.yaml", """
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

    """)
    try r.write("clusters/production/cron.yaml", """
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

    """)
    try r.write("clusters/production/helmrelease.yaml", """
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

    """)
    try r.write("clusters/production/kustomization.yaml", """
    apiVersion: kustomize.config.k8s.io/v1beta1
    kind: Kustomization
    namespace: production
    resources: [deploy.yaml, cron.yaml, helmrelease.yaml, task.yaml]
    images:
      - name: web
        newName: ghcr.io/acme/web # {"$imagepolicy": "flux-system:web-production:name"}
        newTag: production-v1.0.0-abc1234-1 # {"$imagepolicy": "flux-system:web-production"}
        digest: \(sha) # {"$imagepolicy": "flux-system:web-production:digest"}

    """)
    try r.write("clusters/production/task.yaml", """
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

    """)
    try r.write("apps/values.yaml", "image: ghcr.io/acme/web:production-v1.0.0-abc1234-1 # {\"$imagepolicy\": \"flux-system:web-production\"}\n")
    return r
}

@Suite struct FluxTests {
    @Test func everyFluxRuleOnAMultiEnvironmentRepository() throws {
        let r = try fluxRepo()
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "marker-ignored apps/values.yaml:1:53",
            "marker-unknown-policy clusters/production/cron.yaml:13:67",
            "image-env-prefix clusters/production/deploy.yaml:11:18",
            "marker-env-mismatch clusters/production/deploy.yaml:11:60",
            "automation-invalid-template clusters/production/flux.yaml:44:24",
            "automation-direct-push clusters/production/flux.yaml:46:15",
            // web-production reflects no digests: its :digest markers would blank the digests
            "marker-digest-unavailable clusters/production/helmrelease.yaml:11:87",
            "marker-wrong-form clusters/production/kustomization.yaml:8:41",
            "marker-digest-unavailable clusters/production/kustomization.yaml:9:85",
            "marker-image-mismatch clusters/production/task.yaml:9:59",
            "policy-crosses-environment clusters/staging/flux.yaml:10:14",
            "policy-crosses-environment clusters/staging/flux.yaml:10:14",
            "policy-fragile-order clusters/staging/flux.yaml:10:14",
            "api-removed clusters/staging/flux.yaml:14:13",
        ].sorted(by: order))
        let messages = Dictionary(res.findingObjects.map { ("\($0["rule"]!) \($0["line"]!)", $0["message"] as? String ?? "") }) { a, b in a + " | " + b }
        #expect(messages["marker-unknown-policy 13"] == "no ImagePolicy flux-system/web-prod in the repository, so Flux never updates this field: did you mean 'flux-system:web-production'?")
        #expect(messages["policy-crosses-environment 10"] == "pattern '-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)' of policy flux-system/web-staging selects development tag 'develop-v0.0.0' | pattern '-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)' of policy flux-system/web-staging selects production tag 'production-v0.0.0-0000000-0'")
        #expect(messages["marker-ignored 1"]?.contains("outside every ImageUpdateAutomation's update.path (./clusters/production, ./clusters/staging)") == true)
        // the commented-out line of task.yaml (10) is switched off on purpose: not reported
        #expect(messages["marker-env-mismatch 11"] == "this production field is updated by policy flux-system/web-staging, which belongs to staging: staging builds would land in production")
        #expect(messages["marker-digest-unavailable 9"] == "policy flux-system/web-production does not reflect digests (digestReflectionPolicy is unset, so Never), so Flux writes an empty digest into this field: set digestReflectionPolicy: IfNotPresent on the policy")
    }

    @Test func markersInFilesFluxNeverReads() throws {
        let r = try TempRepo()
        try r.write("apps/web.YAML", "image: ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:web\"}\n")
        try r.write("apps/kustomization", "images:\n  - name: web\n    newTag: 1.0.0 # {\"$imagepolicy\": \"flux-system:web:tag\"}\n")
        try r.write("apps/other.YML", "image: nginx:latest\n")   // no marker: not reported, not linted
        // a file that does not parse is skipped whole, whatever the parser got to before the error
        try r.write("apps/broken.yaml", "--- foo\nkind: Pod\nspec:\n  image: ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:web\"}\n")
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["yaml-syntax apps/broken.yaml:2:5", "marker-ignored apps/broken.yaml:4:33",
                                 "marker-ignored apps/kustomization:3:19", "marker-ignored apps/web.YAML:1:31"])
        #expect(res.findingObjects[1]["message"] as? String == "Flux silently skips this $imagepolicy marker: Flux skips files that do not parse")
        #expect((res.findingObjects.last?["message"] as? String)?.hasSuffix("never web.YAML") == true)
        try r.commitAll("unread files")
        #expect(try r.audit("--rev", "HEAD", "--format", "json").findings == res.findings)
    }

    /// The Flux guide's HelmRelease form: `repository` and `tag` with their own markers, or the `tag` alone (the
    /// chart names the repository). Either way the field is the image of the policy's ImageRepository.
    @Test func aStagingTagInAProductionChartTagFieldIsReported() throws {
        let r = try TempRepo()
        try r.write("flux/web.yaml", webRepositoryAndPolicy("  policy: {semver: {range: '>=1.0.0'}}\n"))
        try r.write("apps/production/web.yaml", """
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

        """)
        let res = try r.audit("--profile", "strict", "--format", "json")
        let prefix = res.findingObjects.filter { $0["rule"] as? String == "image-env-prefix" }
        #expect(prefix.map { "\($0["line"]!):\($0["column"]!)" } == ["7:12", "11:14"])
        #expect(Set(prefix.map { $0["message"] as? String ?? "" }) == [
            "tag 'staging-v1.2.3-abc1234-1700000000' of promoted image 'ghcr.io/acme/web' lacks the production prefix 'production-': it is a staging tag",
        ])
        let latest = res.findingObjects.filter { $0["rule"] as? String == "image-latest-tag" }
        #expect(latest.map { $0["message"] as? String ?? "" } == [
            "image 'ghcr.io/acme/web:latest' (this field sets its tag) uses the tag 'latest', which moves with every push: pin a version or a digest",
        ])
    }

    /// A policy outside every environment that markers of staging and production both use: what it selects goes to
    /// both, so staging's tags cross into production.
    @Test func aPolicyThatMarkersOfTwoEnvironmentsShareCrossesBetweenThem() throws {
        let r = try TempRepo()
        try r.write("flux/web.yaml", webRepositoryAndPolicy("  filterTags: {pattern: '^staging-v[0-9]+$'}\n  policy: {alphabetical: {}}\n"))
        for env in ["staging", "production"] {
            try r.write("apps/\(env)/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1 # {\"$imagepolicy\": \"flux-system:web\"}"]))
        }
        let res = try r.audit("--profile", "strict", "--format", "json")
        let crossing = res.findingObjects.filter { $0["rule"] as? String == "policy-crosses-environment" }
        #expect(crossing.map { "\($0["file"]!):\($0["line"]!):\($0["column"]!) \($0["environment"]!)" } == ["flux/web.yaml:11:25 production"])
        #expect(crossing.first?["message"] as? String
                == "pattern '^staging-v[0-9]+$' of policy flux-system/web selects staging tag 'staging-v0', which its markers in production would receive")
    }

    /// A fleet repository that holds the automations and Kustomizations of application repositories: their paths are
    /// paths of those repositories. Which GitRepository is this one is told by the remotes' URLs.
    @Test func sourcesInAnotherRepositoryNamePathsOfThatRepository() throws {
        let r = try TempRepo()
        try r.write("clusters/sources.yaml", """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: flux-system, namespace: flux-system}
        spec: {url: 'ssh://git@github.com/acme/fleet'}
        ---
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: web-app, namespace: flux-system}
        spec: {url: 'https://github.com/acme/web-app.git'}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageUpdateAutomation
        metadata: {name: web-app, namespace: flux-system}
        spec:
          sourceRef: {kind: GitRepository, name: web-app}
          git: {checkout: {ref: {branch: main}}, push: {branch: main}}
          update: {path: ./deploy}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageUpdateAutomation
        metadata: {name: fleet, namespace: flux-system}
        spec:
          sourceRef: {kind: GitRepository, name: flux-system}
          git: {checkout: {ref: {branch: main}}, push: {branch: main}}
          update: {path: ./missing}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: web-app, namespace: flux-system}
        spec:
          sourceRef: {kind: GitRepository, name: web-app}
          path: ./
          targetNamespace: tenant

        """)
        try r.write("apps/cache.yaml", pod("cache", images: ["redis:latest"]))
        func audit() throws -> (findings: [String], namespace: String?) {
            let res = try r.audit("--format", "json")
            let latest = res.findingObjects.first { $0["rule"] as? String == "image-latest-tag" }
            return (res.findings, (latest?["object"] as? [String: Any])?["namespace"] as? String)
        }
        // without remotes nothing tells the repositories apart: every path is read as this repository's, but an
        // automation's update.path is judged only where its GitRepository is known to be this one
        var res = try audit()
        #expect(res.findings == ["image-latest-tag apps/cache.yaml:8:14"], "\(res.findings)")
        #expect(res.namespace == "tenant")
        // a remote that no GitRepository names (an SSH host alias, a mirror) tells nothing either
        try r.git("remote", "add", "origin", "git@fleet-alias:acme/fleet.git")
        #expect(try audit().findings.count == 1)
        // the remote's URL, spelt another way, is flux-system's: web-app is another repository
        try r.git("remote", "set-url", "origin", "git@github.com:acme/fleet.git")
        res = try audit()
        #expect(res.findings == ["image-latest-tag apps/cache.yaml:8:14", "automation-missing-path clusters/sources.yaml:25:18"], "\(res.findings)")
        #expect(res.namespace == nil)
    }

    @Test func aMarkerWhoseTagEveryBuildReplacesIsReported() throws {
        let r = try TempRepo()
        try r.write("flux/policy.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: web, namespace: flux-system}
        spec:
          imageRepositoryRef: {name: web}
          policy: {semver: {range: '>=1.0.0'}}

        """)
        try r.write("base/kustomization.yaml", "resources: [app.yaml]\n")
        try r.write("base/app.yaml", pod("app", images: [
            "ghcr.io/acme/web:1.4.0 # {\"$imagepolicy\": \"flux-system:web\"}",
            "ghcr.io/acme/api:1.4.0 # {\"$imagepolicy\": \"flux-system:web\"}",
        ]))
        try r.write("overlays/staging/kustomization.yaml", """
        resources: [../../base]
        images:
          - {name: ghcr.io/acme/web, newTag: 1.3.9}

        """)
        try r.write("overlays/production/kustomization.yaml", """
        resources: [../../base]
        components: [../../components/pin]

        """)
        try r.write("components/pin/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        images:
          - {name: ghcr.io/acme/web, newTag: 1.3.8}
          - {name: ghcr.io/acme/api, newTag: 1.3.8}

        """)
        let res = try r.audit("--format", "json")
        // api: the staging overlay deploys the base's marked tag, so Flux's updates do run there
        let overridden = res.findingObjects.filter { $0["rule"] as? String == "marker-overridden" }
        #expect(overridden.map { "\($0["file"]!):\($0["line"]!):\($0["column"]!)" } == ["base/app.yaml:8:37"])
        #expect(overridden.first?["message"] as? String
                == "Flux updates this field, but the tag it writes never runs: every build that deploys image 'ghcr.io/acme/web:1.4.0' "
                + "sets its tag with an images: entry (overlays/production/kustomization.yaml, overlays/staging/kustomization.yaml); "
                + "put the marker on those entries' newTag instead")
    }

    @Test func didYouMeanOffersOnlyALikelyPolicy() throws {
        let r = try TempRepo()
        var policies = ""
        for name in ["web-production", "api-prod", "lab-home", "wordle-duel"] {
            policies += "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata:\n  name: \(name)\n  namespace: flux-system\nspec:\n  imageRepositoryRef:\n    name: \(name)\n  policy:\n    alphabetical: {}\n"
        }
        try r.write("flux/policies.yaml", policies)
        try r.write("apps/a.yaml", pod("a", images: [
            "ghcr.io/acme/web:1 # {\"$imagepolicy\": \"flux-system:web-prod\"}",        // a word shortened: not api-prod, one edit nearer
            "ghcr.io/acme/checker:1 # {\"$imagepolicy\": \"flux-system:page-checker\"}", // nothing like it: no lab-home
            "ghcr.io/acme/duel:1 # {\"$imagepolicy\": \"flux-sytem:wordle-duel\"}",      // a typo in the namespace
            "ghcr.io/acme/duel:1 # {\"$imagepolicy\": \"flux-system:wordle-duell\"}",    // a typo in the name
            "ghcr.io/acme/lab:1 # {\"$imagepolicy\": \"flux-system:lab\"}",               // a word dropped
        ]))
        let res = try r.audit("--format", "json")
        let unknown = res.findingObjects.filter { $0["rule"] as? String == "marker-unknown-policy" }
        #expect(unknown.map { "\($0["line"]!)" } == ["8", "10", "12", "14", "16"])
        let suffix = "in the repository, so Flux never updates this field"
        #expect(unknown.map { $0["message"] as? String ?? "" } == [
            "no ImagePolicy flux-system/web-prod \(suffix): did you mean 'flux-system:web-production'?",
            "no ImagePolicy flux-system/page-checker \(suffix)",
            "no ImagePolicy flux-sytem/wordle-duel \(suffix): did you mean 'flux-system:wordle-duel'?",
            "no ImagePolicy flux-system/wordle-duell \(suffix): did you mean 'flux-system:wordle-duel'?",
            "no ImagePolicy flux-system/lab \(suffix): did you mean 'flux-system:lab-home'?",
        ])
    }

    @Test func didYouMeanNamesAPolicyOfEveryClusterOnce() throws {
        // a fleet repository defines flux-system/web-production once per cluster: one candidate, not one per cluster
        let r = try TempRepo()
        for cluster in ["eu", "us", "ap"] {
            try r.write("clusters/\(cluster)/policy.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata:\n  name: web-production\n"
                        + "  namespace: flux-system\nspec:\n  imageRepositoryRef:\n    name: web\n  policy:\n    alphabetical: {}\n")
        }
        try r.write("apps/a.yaml", pod("a", images: [
            "ghcr.io/acme/web:1 # {\"$imagepolicy\": \"flux-system:web-prod\"}",
            "ghcr.io/acme/web:1 # {\"$imagepolicy\": \"apps:web-production\"}",
        ]))
        let res = try r.audit("--format", "json")
        let unknown = res.findingObjects.filter { $0["rule"] as? String == "marker-unknown-policy" }
        let suffix = "in the repository, so Flux never updates this field"
        #expect(unknown.map { "\($0["file"]!):\($0["line"]!): \($0["message"] as? String ?? "")" } == [
            "apps/a.yaml:8: no ImagePolicy flux-system/web-prod \(suffix): did you mean 'flux-system:web-production'?",
            "apps/a.yaml:10: no ImagePolicy apps/web-production \(suffix): did you mean 'flux-system:web-production'?",
        ])
    }

    @Test func aMovedTagBesideAnUnmarkedDigestIsStale() throws {
        let r = try TempRepo()
        try r.write("flux/policy.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata: {name: web, namespace: flux-system}
        spec: {image: ghcr.io/acme/web}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: web, namespace: flux-system}
        spec:
          imageRepositoryRef: {name: web}
          policy:
            semver: {range: ">=1.0.0"}

        """)
        let digest = "sha256:" + String(repeating: "0", count: 64)
        try r.write("apps/production/release.yaml", """
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

        """)
        try r.write("apps/production/kustomization.yaml", """
        resources: [release.yaml]
        images:
          - name: ghcr.io/acme/web
            newTag: 1.2.3 # {"$imagepolicy": "flux-system:web:tag"}
            digest: \(digest)

        """)
        let res = try r.audit("--format", "json", "--profile", "strict")
        let stale = res.findingObjects.filter { $0["rule"] as? String == "marker-digest-stale" }
        let fix = "the runtime pulls by digest, so after each update the old image keeps running; add {\"$imagepolicy\": \"flux-system:web:digest\"} to it "
            + "and set digestReflectionPolicy: IfNotPresent on policy flux-system/web"
        #expect(stale.map { "\($0["file"]!):\($0["line"]!):\($0["column"]!): \($0["message"] as? String ?? "")" } == [
            "apps/production/kustomization.yaml:5:13: Flux moves this image's tag (the marker on line 4) but no marker updates this digest: \(fix)",
            "apps/production/release.yaml:9:15: Flux moves this image's tag (the marker on line 8) but no marker updates this digest: \(fix)",
        ])
        // the sidecar's digest is marked: no finding there, and its :digest marker is no one's else
        #expect(!res.findingObjects.contains { ($0["line"] as? Int) == 13 && ($0["file"] as? String) == "apps/production/release.yaml"
            && ($0["rule"] as? String) != "marker-digest-unavailable" })
    }

    @Test func aTagAndADigestFromDifferentPoliciesAreMixed() throws {
        let r = try TempRepo()
        var flux = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: web, namespace: flux-system}\nspec: {image: ghcr.io/acme/web}\n"
        for (name, range) in [("web-prod", ">=1.0.0"), ("web-canary", ">=1.0.0-0"), ("web-copy", ">=1.0.0")] {
            flux += "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: \(name), namespace: flux-system}\nspec:\n"
                + "  imageRepositoryRef: {name: web}\n  digestReflectionPolicy: IfNotPresent\n  policy:\n    semver: {range: '\(range)'}\n"
        }
        try r.write("flux/policies.yaml", flux)
        let digest = "sha256:" + String(repeating: "0", count: 64)
        try r.write("apps/production/release.yaml", """
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

        """)
        let res = try r.audit("--format", "json")
        let mixed = res.findingObjects.filter { $0["rule"] as? String == "marker-mixed-policies" }
        // the worker's policies differ in name only: they select alike
        #expect(mixed.map { "\($0["file"]!):\($0["line"]!):\($0["column"]!): \($0["message"] as? String ?? "")" } == [
            "apps/production/release.yaml:9:87: Flux writes this digest from policy flux-system/web-canary and the tag beside it (line 8) from "
                + "flux-system/web-prod: the runtime pulls by digest, so it runs what web-canary selects while the tag names what web-prod selects; "
                + "mark both with one policy",
        ])
    }

    @Test func aNameMarkerUnderAChartsRegistryValueDoublesTheRegistry() throws {
        let r = try TempRepo()
        for (name, image) in [("redis", "docker.io/bitnami/redis"), ("valkey", "bitnami/valkey")] {
            try r.write("flux/\(name).yaml", """
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageRepository
            metadata: {name: \(name), namespace: flux-system}
            spec: {image: \(image)}
            ---
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImagePolicy
            metadata: {name: \(name), namespace: flux-system}
            spec:
              imageRepositoryRef: {name: \(name)}
              policy:
                semver: {range: ">=7.0.0"}

            """)
            try r.write("apps/\(name).yaml", """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: \(name), namespace: production}
            spec:
              values:
                image:
                  registry: docker.io
                  repository: bitnami/\(name) # {"$imagepolicy": "flux-system:\(name):name"}
                  tag: 7.2.4 # {"$imagepolicy": "flux-system:\(name):tag"}

            """)
        }
        let res = try r.audit("--format", "json")
        // valkey's ImageRepository names the image without its registry: Flux writes bitnami/valkey, as the chart wants
        #expect(res.findingObjects.map { "\($0["rule"]!) \($0["file"]!):\($0["line"]!):\($0["column"]!): \($0["message"] as? String ?? "")" } == [
            "marker-image-mismatch apps/redis.yaml:8:33: policy flux-system/redis writes docker.io/bitnami/redis into this repository field, "
                + "and the chart puts the registry value 'docker.io' in front of it: after the first update the release pulls "
                + "docker.io/docker.io/bitnami/redis; drop the :name marker (the repository then stays as written)",
        ])
    }

    @Test func aTagMarkerOnADigestFieldIsTheWrongForm() throws {
        let r = try TempRepo()
        try r.write("flux/policy.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: web, namespace: flux-system}
        spec:
          imageRepositoryRef: {name: web}
          digestReflectionPolicy: IfNotPresent
          policy:
            semver: {range: ">=1.0.0"}

        """)
        try r.write("apps/kustomization.yaml", """
        images:
          - name: ghcr.io/acme/web
            digest: sha256:\(String(repeating: "0", count: 64)) # {"$imagepolicy": "flux-system:web:tag"}

        """)
        let res = try r.audit("--format", "json")
        // a digest is no whole reference (`sha256:<hex>` only reads like a name and a tag), and no tag moves beside it
        let markerFindings = res.findingObjects.filter { ($0["rule"] as? String ?? "").hasPrefix("marker-") }
        #expect(markerFindings.map { "\($0["rule"]!) \($0["line"]!):\($0["column"]!): \($0["message"] as? String ?? "")" } == [
            "marker-wrong-form 3:85: digest does not hold a tag: the :tag marker would write the wrong part of the image here",
        ])
    }

    @Test func aBrokenExtractIsThePolicysFindingNotTheMarkers() throws {
        let r = try TempRepo()
        var flux = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: web, namespace: flux-system}\nspec: {image: ghcr.io/acme/web}\n"
        for (name, filter) in [("nopattern", "{extract: '$ts'}"), ("nogroup", "{pattern: '^main-(?P<ts>[0-9]+)$', extract: '$t'}")] {
            flux += "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: \(name), namespace: flux-system}\nspec:\n"
                + "  imageRepositoryRef: {name: web}\n  filterTags: \(filter)\n  policy:\n    numerical: {order: asc}\n"
        }
        try r.write("flux/policies.yaml", flux)
        try r.write("apps/web.yaml", pod("web", images: [
            "ghcr.io/acme/web:main-1 # {\"$imagepolicy\": \"flux-system:nopattern\"}",
            "ghcr.io/acme/web:main-2 # {\"$imagepolicy\": \"flux-system:nogroup\"}",
        ]))
        let res = try r.audit("--format", "json")
        // every tag's key is empty under such a policy: the marked values are not what is wrong
        #expect(res.findings == ["policy-invalid-regex flux/policies.yaml:11:25", "policy-invalid-regex flux/policies.yaml:20:59"])
    }

    @Test func headCommentsAsGoYamlJoinsThem() throws {
        // which comment lines go-yaml v3 (kyaml, Flux) makes a value's head comment, and which it joins into one of
        // several lines (no JSON object, so no marker): held to go-yaml by scripts/markers-vs-go
        let r = try TempRepo()
        try r.write("apps/values.yaml", """
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

        """)
        let res = try r.audit("--format", "json")
        let markers = res.findingObjects.filter { ($0["rule"] as? String ?? "").hasPrefix("marker-") }
        #expect(markers.map { "\($0["rule"]!) \($0["line"]!)" } == [
            "marker-unknown-policy 2", "marker-unknown-policy 5", "marker-ignored 8", "marker-ignored 12", "marker-unknown-policy 15",
            "marker-ignored 18",
        ])
        #expect(markers[2]["message"] as? String == "Flux silently skips this $imagepolicy marker: with the comment line above it, "
                + "it is part of a head comment of several lines, which Flux cannot read as one JSON object")
    }

    @Test func unpinnedPartsSayWhereTheDigestGoes() throws {
        let r = try TempRepo()
        try r.write("apps/production/kustomization.yaml", """
        resources: [release.yaml]
        images:
          - name: ghcr.io/acme/web
            newTag: 1.2.3 # {"$imagepolicy": "flux-system:web:tag"}

        """)
        try r.write("apps/production/release.yaml", """
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

        """)
        let res = try r.audit("--format", "json", "--profile", "strict")
        let unpinned = res.findingObjects.filter { $0["rule"] as? String == "image-not-pinned" }
        #expect(unpinned.map { "\($0["file"]!):\($0["line"]!):\($0["column"]!): \($0["message"] as? String ?? "")" } == [
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
        let r = try TempRepo()
        try r.write("flux/policy.yaml", """
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
          name: web
          namespace: flux-system
        spec:
          imageRepositoryRef:
            name: web
          policy:
            semver:
              range: '>=1.0.0'

        """)
        try r.write("apps/job.yaml", """
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

        """)
        let res = try r.audit("--format", "json")
        // the head comment of an item is a marker: its policy is looked up and its value checked
        #expect(res.findings == ["marker-unknown-policy apps/job.yaml:12:13", "marker-ignored apps/job.yaml:14:13",
                                 "marker-ignored apps/job.yaml:17:13", "marker-value-rejected apps/job.yaml:19:13",
                                 "image-latest-tag apps/job.yaml:20:15"], "\(res.findings)")
        #expect(res.json["summary"].flatMap { ($0 as? [String: Any])?["markers"] as? Int } == 4)
    }

    @Test func oneRepositoryForSeveralClustersWithTheSameNames() throws {
        // clusters/staging and clusters/production each define flux-system/web: a marker uses its environment's,
        // and each policy its own cluster's ImageRepository
        let r = try TempRepo()
        for (env, registry) in [("staging", "registry.staging.example"), ("production", "ghcr.io")] {
            try r.write("clusters/\(env)/web.yaml", """
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImagePolicy
            metadata: {name: web, namespace: flux-system}
            spec:
              imageRepositoryRef: {name: web}
              filterTags: {pattern: '^\(env)-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)-', extract: '$v'}
              policy: {semver: {range: '>=1.0.0'}}
            ---
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageRepository
            metadata: {name: web, namespace: flux-system}
            spec: {image: \(registry)/acme/web, interval: 5m}

            """)
            try r.write("apps/\(env)/web.yaml", """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, namespace: \(env)}
            spec:
              template:
                spec:
                  containers:
                    - name: web
                      image: \(registry)/acme/web:\(env)-v1.2.3-abc1234-1700000000 # {"$imagepolicy": "flux-system:web"}

            """)
        }
        let res = try r.audit("--format", "json")
        #expect(res.code == 0 && res.findings.isEmpty, "\(res.findings)")
        // a marker in a shared base, updated by the automations of both clusters: contested, and nothing is judged
        // against either policy alone (no value rejected, no policy unused)
        try r.write("apps/base/worker.yaml", pod("worker", images: ["ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"flux-system:web\"}"]))
        for env in ["staging", "production"] {
            try r.write("clusters/\(env)/auto.yaml", """
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageUpdateAutomation
            metadata: {name: auto, namespace: flux-system}
            spec:
              git: {commit: {author: {email: bot@example.com}}, push: {branch: image-updates}}
              update: {path: ./apps}

            """)
        }
        let shared = try r.audit("--format", "json")
        #expect(shared.findings == ["marker-contested apps/base/worker.yaml:8:37"], "\(shared.findings)")
        // the base updated by staging's automation only: staging's policy is the one, and the tag is judged by it
        try r.write("clusters/production/auto.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: auto, namespace: flux-system}\n"
                    + "spec:\n  git: {commit: {author: {email: bot@example.com}}, push: {branch: image-updates}}\n  update: {path: ./apps/production}\n")
        #expect(try r.audit("--format", "json").findings == ["marker-image-mismatch apps/base/worker.yaml:8:37", "marker-value-rejected apps/base/worker.yaml:8:37"])
        try r.remove("apps/base/worker.yaml")
        // policy eval: the PATH says which cluster's policy
        let tags = "staging-v1.0.0-a-1\nproduction-v2.0.0-b-2\n"
        let staging = try tagwarden(["policy", "eval", "clusters/staging", "--policy", "flux-system/web", "--tags", "-"], in: r.path, stdin: tags)
        #expect(staging.code == 0 && staging.stdout.contains("selected: staging-v1.0.0-a-1"), "\(staging.stdout) \(staging.stderr)")
        let ambiguous = try tagwarden(["policy", "eval", "--policy", "flux-system/web", "--tags", "-"], in: r.path, stdin: tags)
        #expect(ambiguous.code == 2 && ambiguous.stderr.contains("flux-system/web is defined in clusters/production/web.yaml and clusters/staging/web.yaml"),
                "\(ambiguous.stderr)")
    }

    @Test func eachClustersAutomationUsesItsOwnGitRepository() throws {
        // both clusters name their source flux-system/flux-system; staging's comes first in the tree
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\n")
        for (dir, branch) in [("clusters/eu/staging", "staging"), ("clusters/us/production", "main")] {
            try r.write("\(dir)/flux.yaml", """
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

            """)
        }
        // production checks out main (its own source) and pushes to it: a direct push where review is required
        #expect(try r.audit("--format", "json").findings == ["automation-direct-push clusters/us/production/flux.yaml:15:20"])
    }

    @Test func manyMarkersInOneFileKeepTheirPositions() throws {
        // past a handful of markers a file's lines are indexed once: the positions must not change
        let r = try TempRepo()
        var text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: é😀\ndata:\n"
        var expected: [String] = []
        for i in 0..<12 {
            // a line switched off with its marker: not reported
            text += "  # k\(i): v # {\"$imagepolicy\": \"flux-system:web\"}\r\n"
            text += "  k\(i): [a] # {\"$imagepolicy\": \"flux-system:web\"}\n"
            expected.append("marker-ignored apps/cm.yaml:\(7 + 2 * i):\(i < 10 ? 11 : 12)")
        }
        try r.write("apps/cm.yaml", text)
        let res = try r.audit("--format", "json")
        #expect(res.findings == expected, "\(res.findings)")
        #expect(res.findingObjects.last?["endColumn"] as? Int == 12 + #"# {"$imagepolicy": "flux-system:web"}"#.count)
    }

    @Test func templateErrorsSayWhereInTheFile() throws {
        let r = try TempRepo()
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
        try r.write("flux/git.yaml", "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: repo, namespace: flux-system}\n")
        try r.write("flux/block.yaml", automation("block", "|\n        Files:\n        {{ range $f, $_ := .Changed.FileChanges -}}\n        - {{ $f }}\n        {{ end -}"))
        try r.write("flux/escaped.yaml", automation("escaped", #""Files:\n{{ end }}""#))
        try r.write("flux/typo.yaml", automation("typo", "|\n        By {{ .AutomationObject.Nme }}\n        {{ range .Changed.Changes }}{{ .Typo }}{{ end }}"))
        try r.write("flux/updated.yaml", automation("updated", "|\n        Update {{ range .Updated.Images }}{{ . }}{{ end }}"))
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["automation-invalid-template flux/block.yaml:11:24", "automation-invalid-template flux/escaped.yaml:11:24",
                                 "automation-invalid-template flux/typo.yaml:11:24", "automation-invalid-template flux/updated.yaml:11:24"])
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[0] == #"messageTemplate does not parse as a Go template: bad number syntax: "-" (line 15, column 16); Flux cannot commit"#)
        // escapes make the value differ from the source: the offset is given in the value
        #expect(messages[1] == #"messageTemplate does not parse as a Go template: unexpected {{end}} (at byte 7 of the template); Flux cannot commit"#)
        // a field the commit data lacks, read from the root; inside range the dot is a change, not checked
        #expect(messages[2] == "messageTemplate reads .AutomationObject.Nme (line 12, column 15), which Flux's commit data does not have, so Flux fails to commit: did you mean .AutomationObject.Name?")
        #expect(messages[3] == "messageTemplate uses .Updated (line 12, column 25), which Flux 2.7 removed (the automation stalls with RemovedTemplateField): use .Changed")
    }

    @Test func aTagMarkerSetsTheTagOfTheNameBesideIt() throws {
        let r = try TempRepo()
        try r.write("flux/web.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata: {name: web, namespace: flux-system}
        spec: {image: ghcr.io/acme/web}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata: {name: api, namespace: flux-system}
        spec: {image: ghcr.io/acme/api}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: web, namespace: flux-system}
        spec: {imageRepositoryRef: {name: web}, policy: {semver: {range: '>=1.0.0'}}}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: api, namespace: flux-system}
        spec: {imageRepositoryRef: {name: api}, policy: {semver: {range: '>=1.0.0'}}}

        """)
        try r.write("apps/kustomization.yaml", """
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

        """)
        try r.write("apps/release.yaml", """
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

        """)
        try r.write("apps/pod.yaml", pod("p", images: ["nginx", "web", "api"]))   // what the entries rename and retag
        let res = try r.audit("--format", "json")
        // nginx's tag, api's (whose name its own marker makes api's), the chart's registry + repository: all not web
        #expect(res.findings == ["marker-image-mismatch apps/kustomization.yaml:6:19", "marker-image-mismatch apps/kustomization.yaml:11:31",
                                 "marker-image-mismatch apps/kustomization.yaml:12:19", "marker-image-mismatch apps/release.yaml:9:18"])
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[0] == "policy flux-system/web writes the tag of ghcr.io/acme/web here, but this field sets the tag of nginx: Flux would give nginx another image's tag")
        #expect(messages[2] == "policy flux-system/web writes the tag of ghcr.io/acme/web here, but this field sets the tag of ghcr.io/acme/api: Flux would give ghcr.io/acme/api another image's tag")
        #expect(messages[3].contains("sets the tag of ghcr.io/acme/api"))
    }

    func order(_ a: String, _ b: String) -> Bool {
        let fa = a.split(separator: " ")[1].split(separator: ":"), fb = b.split(separator: " ")[1].split(separator: ":")
        if fa[0] != fb[0] { return fa[0] < fb[0] }
        if Int(fa[1])! != Int(fb[1])! { return Int(fa[1])! < Int(fb[1])! }
        if Int(fa[2])! != Int(fb[2])! { return Int(fa[2])! < Int(fb[2])! }
        return a < b
    }

    @Test func postBuildSubstitutionIsJudgedAsEachClusterMakesIt() throws {
        let r = try TempRepo()
        try r.write("apps/base/kustomization.yaml", "resources:\n  - web.yaml\n")
        try r.write("apps/base/web.yaml", pod("web", images: ["ghcr.io/acme/web:${WEB_TAG}", "${REGISTRY:=ghcr.io}/acme/side:${SIDE_TAG:-1.2.3}",
                                                             "ghcr.io/acme/other:${OTHER_TAG,,}"]))
        try r.write("apps/other/web.yaml", pod("loose", images: ["ghcr.io/acme/web:${WEB_TAG}"]))
        for env in ["staging", "production"] {
            try r.write("apps/\(env)/kustomization.yaml", "namespace: \(env)\nresources:\n  - ../base\n")
        }
        try r.write("clusters/staging/apps.yaml", fluxApps("./apps/staging", "  postBuild:\n    substitute: {WEB_TAG: latest, SIDE_TAG: \"\"}\n"))
        try r.write("clusters/production/apps.yaml", fluxApps("./apps/production", "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: vars}\n"))
        try r.write("clusters/production/vars.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata:\n  WEB_TAG: 1.4.0\n  REGISTRY: registry.example.com\n")
        // staging makes web:latest; production web:1.4.0 and its own registry; ${OTHER_TAG,,} is not evaluated, and
        // apps/other is applied by no Kustomization
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag apps/base/web.yaml:8:14"], "\(res.findings)")
        let message = res.findingObjects.first?["message"] as? String ?? ""
        #expect(message.hasSuffix("(written 'ghcr.io/acme/web:${WEB_TAG}', substituted by Flux Kustomization flux-system/apps in clusters/staging/apps.yaml)"),
                "\(message)")
        #expect(res.findingObjects.first?["environment"] as? String == "staging")

        // production's variable missing from its ConfigMap: Flux puts an empty string in its place
        try r.write("clusters/production/vars.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata:\n  REGISTRY: registry.example.com\n")
        let missing = try r.audit("--format", "json")
        #expect(missing.findings == ["image-invalid-reference apps/base/web.yaml:8:14", "image-latest-tag apps/base/web.yaml:8:14"], "\(missing.findings)")
        let missingMessage = missing.findingObjects.first?["message"] as? String ?? ""
        #expect(missingMessage.contains("WEB_TAG is not defined there, so Flux puts an empty string in its place"), "\(missingMessage)")

        // a source Tagwarden cannot read (a Secret) may define it: production's text is not guessed
        try r.write("clusters/production/apps.yaml", fluxApps("./apps/production", "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: vars}\n      - {kind: Secret, name: secret-vars}\n"))
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/base/web.yaml:8:14"])

        // a cluster that applies the base without postBuild deploys the reference as written
        try r.write("clusters/production/apps.yaml", fluxApps("./apps/production", ""))
        let literal = try r.audit("--format", "json")
        #expect(literal.findings == ["image-invalid-reference apps/base/web.yaml:8:14", "image-latest-tag apps/base/web.yaml:8:14",
                                     "image-invalid-reference apps/base/web.yaml:10:14", "image-invalid-reference apps/base/web.yaml:12:14"],
                "\(literal.findings)")
        let literalMessage = literal.findingObjects.first?["message"] as? String ?? ""
        #expect(literalMessage.hasSuffix("(Flux Kustomization flux-system/apps in clusters/production/apps.yaml applies it as written: it has no postBuild)"),
                "\(literalMessage)")

        // but not when it reads that path from another source than the substituting one (another repository)
        try r.write("clusters/production/apps.yaml", fluxApps("./apps/production", "  sourceRef: {kind: GitRepository, name: other-repo}\n"))
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/base/web.yaml:8:14"])
        try r.write("clusters/production/apps.yaml", fluxApps("./apps/production", ""))

        // unless a parent Kustomization patches postBuild into the ones it applies: then it is not known here
        try r.write("clusters/production/flux-system.yaml", """
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

        """)
        #expect(try r.audit("--format", "json").findings == ["image-latest-tag apps/base/web.yaml:8:14"])
        try r.remove("clusters/production/flux-system.yaml")

        // marked substitute: disabled, the object keeps its ${…} in every cluster
        try r.write("clusters/production/apps.yaml", fluxApps("./apps/production", "  postBuild:\n    substitute: {WEB_TAG: 1.4.0}\n"))
        try r.write("apps/base/web.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}\n"
                    + "spec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web:${WEB_TAG}\n")
        let disabled = try r.audit("--format", "json")
        #expect(disabled.findings == ["image-invalid-reference apps/base/web.yaml:9:14"], "\(disabled.findings)")
        let disabledMessage = disabled.findingObjects.first?["message"] as? String ?? ""
        #expect(disabledMessage.contains("Flux Kustomizations flux-system/apps in clusters/production/apps.yaml, flux-system/apps in clusters/staging/apps.yaml "
                                         + "apply it as written: the object is marked kustomize.toolkit.fluxcd.io/substitute: disabled"), "\(disabledMessage)")
    }

    @Test func valuesFilesOfAChartInThisRepositoryAreTheReleasesValues() throws {
        let r = try TempRepo()
        try r.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\nappVersion: \"1.0.0\"\n")
        try r.write("charts/web/values.yaml", "image:\n  repository: ghcr.io/acme/web\n  tag: \"\"\nhelper:\n  image: busybox\n")
        try r.write("charts/web/values-production.yaml", "image:\n  repository: ghcr.io/acme/web\n  tag: latest\nproxy:\n  image: ghcr.io/acme/proxy:${PROXY_TAG}\n")
        try r.write("charts/web/values-staging.yaml", "image:\n  repository: ghcr.io/acme/web\n  tag: latest\n")
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
        try r.write("clusters/production/web.yaml", release("production", "GitRepository",
                                                            "valuesFiles: [./charts/web/values.yaml, charts/web/values-production.yaml]"))
        // a Flux Kustomization substitutes what it builds, never the chart's files: PROXY_TAG stays as written
        try r.write("clusters/production/sync.yaml", """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: all, namespace: flux-system}
        spec:
          path: ./
          sourceRef: {kind: GitRepository, name: flux-system}
          postBuild: {substitute: {PROXY_TAG: latest}}

        """)
        // the older single field
        try r.write("clusters/development/web.yaml", release("development", "GitRepository", "valuesFile: charts/web/values-staging.yaml"))
        // a chart from a Helm repository: the paths are that chart's, not this tree's
        try r.write("clusters/staging/web.yaml", release("staging", "HelmRepository", "valuesFiles: [charts/web/values-staging.yaml]"))
        // a chart path with no Chart.yaml here: another repository's
        try r.write("clusters/qa/web.yaml", release("qa", "GitRepository", "valuesFiles: [charts/web/values-staging.yaml]")
                        .replacingOccurrences(of: "./charts/web", with: "./charts/api"))
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-missing-tag charts/web/values.yaml:5:10", "image-latest-tag charts/web/values-production.yaml:3:8",
                                 "image-latest-tag charts/web/values-staging.yaml:3:8"].sorted(by: order), "\(res.findings)")
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages.contains("image 'ghcr.io/acme/web:latest' uses the tag 'latest', which moves with every push: pin a version or a digest "
                                  + "(values of HelmRelease development/web, from the chart values file its chart.spec.valuesFiles names)"))
        #expect(res.findingObjects.map { $0["environment"] as? String } == ["production", "development", "production"])
        // a file several releases name is judged once per environment of theirs, the message naming them
        try r.write("clusters/production/api.yaml", release("production", "GitRepository", "valuesFiles: [charts/web/values-production.yaml]")
                        .replacingOccurrences(of: "name: web,", with: "name: api,"))
        try r.write("clusters/staging/web.yaml", release("staging", "GitRepository", "valuesFiles: [charts/web/values-production.yaml]"))
        let shared = try r.audit("--format", "json")
        let latest = shared.findingObjects.filter { $0["file"] as? String == "charts/web/values-production.yaml" }
        let byEnvironment = Dictionary(uniqueKeysWithValues: latest.map { ($0["environment"] as? String ?? "", $0["message"] as? String ?? "") })
        #expect(byEnvironment.count == 2 && latest.count == 2, "\(shared.findings)")
        #expect(byEnvironment["production"]?.hasSuffix("(values of HelmReleases production/api, production/web, from the chart values file their chart.spec.valuesFiles name)") == true,
                "\(byEnvironment)")
        #expect(byEnvironment["staging"]?.hasSuffix("(values of HelmRelease staging/web, from the chart values file its chart.spec.valuesFiles names)") == true)
    }

    @Test func aMarkedFieldOfAValuesFileIsTheReleasesImage() throws {
        let r = try TempRepo()
        try r.write("staging/policies.yaml", """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata: {name: web, namespace: flux-system}
        spec: {image: ghcr.io/acme/web}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: web-staging, namespace: flux-system}
        spec: {imageRepositoryRef: {name: web}, policy: {semver: {range: '>=1.0.0'}}}

        """)
        try r.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n")
        // production's values: a staging policy's markers, one on the tag beside another image's repository
        try r.write("charts/web/values-prod.yaml", """
        image:
          repository: ghcr.io/acme/web
          tag: latest # {"$imagepolicy": "flux-system:web-staging:tag"}
        api:
          image:
            repository: ghcr.io/acme/api
            tag: 1.0.0 # {"$imagepolicy": "flux-system:web-staging:tag"}

        """)
        try r.write("production/web.yaml", """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: production}
        spec:
          chart:
            spec:
              chart: ./charts/web
              sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
              valuesFiles: [charts/web/values-prod.yaml]

        """)
        let res = try r.audit("--format", "json")
        // latest once (the release's reading, not also the marker's), in production, where the staging markers do not belong
        #expect(res.findings == ["image-latest-tag charts/web/values-prod.yaml:3:8", "marker-env-mismatch charts/web/values-prod.yaml:3:15",
                                 "marker-value-rejected charts/web/values-prod.yaml:3:15", "marker-env-mismatch charts/web/values-prod.yaml:7:16",
                                 "marker-image-mismatch charts/web/values-prod.yaml:7:16"], "\(res.findings)")
        #expect(res.findingObjects.allSatisfy { $0["environment"] as? String == "production" })
    }

    @Test func valuesFilesOfConfigMapGeneratorsAreTheReleasesValues() throws {
        let r = try TempRepo()
        try r.write("apps/base/podinfo/kustomization.yaml", "namespace: podinfo\nresources:\n  - release.yaml\n")
        try r.write("apps/base/podinfo/release.yaml", """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: podinfo}
        spec:
          chart: {spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfo}}}
          valuesFrom:
            - {kind: ConfigMap, name: podinfo-values}
            - {kind: ConfigMap, name: podinfo-values, valuesKey: extra.yaml}
            - {kind: ConfigMap, name: podinfo-replicas, targetPath: replicaCount}

        """)
        for (env, tag) in [("staging", "latest"), ("production", "6.7.1")] {
            try r.write("apps/\(env)/kustomization.yaml", """
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

            """)
            try r.write("apps/\(env)/podinfo-values.yaml", "image:\n  repository: ghcr.io/stefanprodan/podinfo\n  tag: \(tag)\n")
            try r.write("apps/\(env)/extra.yaml", "sidecar:\n  image: busybox\n")
            try r.write("apps/\(env)/replicas.yaml", "image: nginx:latest\n")   // a single value (targetPath), not values
        }
        // an unrelated app with a generator of the same name: its file is not this release's
        try r.write("apps/other/kustomization.yaml", "configMapGenerator:\n  - name: podinfo-values\n    namespace: podinfo\n    files:\n      - values.yaml=vals.yaml\n")
        try r.write("apps/other/vals.yaml", "image:\n  repository: ghcr.io/acme/other\n  tag: latest\n")
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-missing-tag apps/production/extra.yaml:2:10", "image-missing-tag apps/staging/extra.yaml:2:10",
                                 "image-latest-tag apps/staging/podinfo-values.yaml:3:8"], "\(res.findings)")
        let latest = res.findingObjects.last
        #expect(latest?["environment"] as? String == "staging")
        let latestMessage = latest?["message"] as? String ?? ""
        #expect(latestMessage.hasSuffix("(values of HelmRelease podinfo/podinfo, from ConfigMap podinfo-values that apps/staging/kustomization.yaml generates)"),
                "\(latestMessage)")
        // Flux substitutes the generated ConfigMap too: a variable in a values file takes the applying Kustomization's value
        try r.write("apps/staging/extra.yaml", "sidecar:\n  image: busybox:${SIDE}\n")
        let unsubstituted = try r.audit("--format", "json")
        #expect(unsubstituted.findings == ["image-missing-tag apps/production/extra.yaml:2:10", "image-latest-tag apps/staging/podinfo-values.yaml:3:8"],
                "\(unsubstituted.findings)")
        try r.write("clusters/staging/apps.yaml", fluxApps("./apps/staging", "  postBuild:\n    substitute: {SIDE: nightly}\n"))
        // once Flux Kustomizations are here, what they apply is what is deployed: production's has one too
        try r.write("clusters/production/apps.yaml", fluxApps("./apps/production", ""))
        let substituted = try r.audit("--format", "json")
        #expect(substituted.findings == ["image-missing-tag apps/production/extra.yaml:2:10", "image-floating-tag apps/staging/extra.yaml:2:10",
                                         "image-latest-tag apps/staging/podinfo-values.yaml:3:8"], "\(substituted.findings)")
        #expect((latest?["object"] as? [String: Any])?["name"] as? String == "podinfo")
    }

    @Test func aManifestsOwnEnvironmentWinsOverItsKustomizations() throws {
        // the environment model decides a manifest's environment from its own path first; the applying Kustomization's
        // environment serves only a manifest without one
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "profile: strict\npromotedImages: [\"ghcr.io/acme/*\"]\n")
        try r.write("apps/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:${WEB_TAG}"]))
        try r.write("apps/shared/web.yaml", pod("shared", images: ["ghcr.io/acme/web:${WEB_TAG}"]))
        try r.write("clusters/staging/apps.yaml", fluxApps("./apps", "  postBuild:\n    substitute: {WEB_TAG: staging-v1.0.0-abc1234-1}\n"))
        let res = try r.audit("--format", "json")
        // production's manifest is judged as production's (a staging tag there); the shared one as staging's (no finding)
        let found = res.findingObjects.map { "\($0["rule"]!) \($0["file"]!):\($0["line"]!) \($0["environment"] ?? "-")" }
        #expect(found == ["image-env-prefix apps/production/web.yaml:8 production", "image-not-pinned apps/production/web.yaml:8 production"],
                "\(found)")
    }

    @Test func valuesInAConfigMapsLiteralBlockAreTheReleasesValues() throws {
        let r = try TempRepo()
        try r.write("apps/base/release.yaml", """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: podinfo, namespace: podinfo}
        spec:
          valuesFrom:
            - {kind: ConfigMap, name: podinfo-values}
            - {kind: ConfigMap, name: quoted-values}

        """)
        for (env, tag) in [("staging", "latest"), ("production", "6.7.1")] {
            try r.write("clusters/\(env)/values.yaml", """
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

            """)
        }
        // values in a quoted string are not read (their positions do not map back), nor another key's
        try r.write("clusters/staging/quoted.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: quoted-values, namespace: podinfo}\n"
                    + "data:\n  values.yaml: \"image:\\n  repository: redis\\n  tag: latest\\n\"\n")
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag clusters/staging/values.yaml:12:12"], "\(res.findings)")
        #expect(res.findingObjects.first?["environment"] as? String == "staging")
        #expect((res.findingObjects.first?["object"] as? [String: Any])?["kind"] as? String == "HelmRelease")
        let message = res.findingObjects.first?["message"] as? String ?? ""
        #expect(message.hasSuffix("(values of HelmRelease podinfo/podinfo, from ConfigMap podinfo-values)"), "\(message)")
    }

    @Test func partsAndInlinePatchesAreSubstitutedWhereTheyStand() throws {
        let r = try TempRepo()
        try r.write("apps/kustomization.yaml", """
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

        """)
        try r.write("apps/release.yaml", """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: x}
        spec:
          values:
            image:
              repository: ghcr.io/acme/x
              tag: ${X_TAG:=1.2.3}

        """)
        try r.write("apps/deploy.yaml", pod("web", images: ["ghcr.io/acme/web", "ghcr.io/acme/api"]))   // what the entries retag
        try r.write("clusters/staging/apps.yaml",
                    fluxApps("./apps", "  postBuild:\n    substitute: {WEB_TAG: main, REGISTRY: \"registry.example.com/ACME\", X_TAG: latest}\n"))
        // the tag's finding stays at the tag's field; a substituted registry that is no valid name is reported at the entry
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-floating-tag apps/kustomization.yaml:4:13", "image-invalid-reference apps/kustomization.yaml:6:14",
                                 "image-floating-tag apps/kustomization.yaml:12:16", "image-latest-tag apps/release.yaml:8:12"],
                "\(res.findings)")
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages[0].hasSuffix("(written 'ghcr.io/acme/web:${WEB_TAG}', substituted by Flux Kustomization flux-system/apps in clusters/staging/apps.yaml)"),
                "\(messages[0])")
    }
}

/// ImageRepository flux-system/web (ghcr.io/acme/web) and ImagePolicy flux-system/web on it, with `spec` lines after
/// `imageRepositoryRef`.
func webRepositoryAndPolicy(_ spec: String) -> String {
    "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: web, namespace: flux-system}\nspec: {image: ghcr.io/acme/web}\n"
        + "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: web, namespace: flux-system}\nspec:\n"
        + "  imageRepositoryRef: {name: web}\n" + spec
}

/// The Flux Kustomization flux-system/apps applying `path`, with `spec` lines (indented under `spec:`) after it.
/// Flux Kustomizations `name: path`, one document each: what a cluster applies.
func fluxKustomizations(_ paths: [(name: String, path: String)]) -> String {
    paths.map { "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: \($0.name), namespace: flux-system}\nspec:\n  path: \($0.path)\n" }
        .joined(separator: "---\n")
}

func fluxApps(_ path: String, _ spec: String) -> String {
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  path: \(path)\n" + spec
}
