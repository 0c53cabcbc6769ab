import Foundation
import Testing
import TagwardenFixtures

/// The image-automation objects as each build deploys them: kustomize patches (strategic merge and JSON 6902, inline
/// and in files, with targets by regular expression, label and annotation), Components, Flux `spec.patches`, name
/// prefixes; findings at the line that supplied the value.
@Suite struct EffectiveObjectsTests {
    static func automation(_ env: String) -> String {
        """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: apps
          namespace: flux-system
        spec:
          interval: 10m
          path: ./apps/\(env)
          prune: true
          sourceRef:
            kind: GitRepository
            name: flux-system
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageUpdateAutomation
        metadata:
          name: \(env)
          namespace: flux-system
        spec:
          interval: 10m
          sourceRef:
            kind: GitRepository
            name: flux-system
          git:
            checkout:
              ref:
                branch: main
            commit:
              author: {name: flux, email: flux@example.com}
            push:
              branch: main
          update:
            path: ./apps/\(env)
            strategy: Setters

        """
    }

    /// A base whose ImagePolicy has neither filter nor policy: a Component gives every `tier=frontend` policy its
    /// order, and each overlay its own filter (staging inline by a name pattern, production from a file). Production's
    /// filter admits staging's tags.
    func overlays() throws -> TempRepo {
        let r = try TempRepo()
        try r.write([
            ".tagwarden.yaml": "environments:\n  - name: production\n    tagPrefix: prod-\n  - name: staging\n    tagPrefix: staging-\n",
            "clusters/staging/apps.yaml": Self.automation("staging"),
            "clusters/production/apps.yaml": Self.automation("production"),
            "apps/base/web/images.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageRepository
                metadata:
                  name: web
                  namespace: flux-system
                spec:
                  image: ghcr.io/acme/web
                  interval: 5m
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata:
                  name: web
                  namespace: flux-system
                  labels:
                    tier: frontend
                spec:
                  imageRepositoryRef:
                    name: web

                """,
            "apps/base/web/deployment.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  template:
                    spec:
                      containers:
                        - name: web
                          image: ghcr.io/acme/web

                """,
            "apps/base/web/kustomization.yaml": "resources:\n  - images.yaml\n  - deployment.yaml\n",
            "components/policies/kustomization.yaml": """
                apiVersion: kustomize.config.k8s.io/v1alpha1
                kind: Component
                patches:
                  - target:
                      kind: ImagePolicy
                      labelSelector: tier=frontend
                    patch: |-
                      - op: add
                        path: /spec/policy
                        value:
                          numerical:
                            order: asc

                """,
            "apps/staging/kustomization.yaml": """
                resources:
                  - ../base/web
                components:
                  - ../../components/policies
                images:
                  - name: ghcr.io/acme/web
                    newTag: staging-1a2b3c4-1700000000 # {"$imagepolicy": "flux-system:web:tag"}
                patches:
                  - target:
                      kind: ImagePolicy
                      name: w.*
                    patch: |-
                      apiVersion: image.toolkit.fluxcd.io/v1
                      kind: ImagePolicy
                      metadata:
                        name: web
                      spec:
                        filterTags:
                          pattern: '^staging-[a-f0-9]+-(?P<ts>[0-9]+)$'
                          extract: '$ts'

                """,
            "apps/production/policy-patch.yaml": """
                - op: add
                  path: /spec/filterTags
                  value:
                    pattern: '^(staging|prod)-[a-f0-9]+-(?P<ts>[0-9]+)$'
                    extract: '$ts'

                """,
            "apps/production/kustomization.yaml": """
                resources:
                  - ../base/web
                components:
                  - ../../components/policies
                images:
                  - name: ghcr.io/acme/web
                    newTag: prod-1a2b3c4-1700000000 # {"$imagepolicy": "flux-system:web:tag"}
                patches:
                  - path: policy-patch.yaml
                    target:
                      group: image.toolkit.fluxcd.io
                      kind: ImagePolicy
                      name: web

                """,
        ])
        try r.commitAll("overlays")
        return r
    }

    /// The policies `tagwarden graph --format json` shows: label, environment and each field with where it is written.
    func policies(_ r: TempRepo, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let res = try tagwarden(["graph", "--format", "json"], in: r.path, sourceLocation: sourceLocation)
        #expect(res.code == 0, "\(res.described)", sourceLocation: sourceLocation)
        let g = try #require(try JSONSerialization.jsonObject(with: Data(res.stdout.utf8)) as? [String: Any], "\(res.described)",
                             sourceLocation: sourceLocation)
        return try #require(g["nodes"] as? [[String: Any]]).filter { $0["kind"] as? String == "policy" }.map { n in
            let spec = (n["spec"] as? [[String: String]] ?? []).map { "\($0["field"]!)=\($0["value"]!)@\($0["location"]!)" }
            return "\(n["label"]!) [\(n["environment"] as? String ?? "-")] " + spec.joined(separator: " ")
        }.sorted()
    }

    @Test func eachOverlayDeploysItsOwnPolicyAndFindingsPointAtThePatch() throws {
        let r = try overlays()
        let got = try policies(r)
        #expect(got == [
            "ImagePolicy flux-system/web [production] imageRepositoryRef.name=web@apps/base/web/images.yaml:19 "
                + "filterTags.pattern=^(staging|prod)-[a-f0-9]+-(?P<ts>[0-9]+)$@apps/production/policy-patch.yaml:4 "
                + "filterTags.extract=$ts@apps/production/policy-patch.yaml:5 policy.numerical.order=asc@components/policies/kustomization.yaml:12",
            "ImagePolicy flux-system/web [staging] imageRepositoryRef.name=web@apps/base/web/images.yaml:19 "
                + "filterTags.pattern=^staging-[a-f0-9]+-(?P<ts>[0-9]+)$@apps/staging/kustomization.yaml:19 "
                + "filterTags.extract=$ts@apps/staging/kustomization.yaml:20 policy.numerical.order=asc@components/policies/kustomization.yaml:12",
        ], "\(got)")
        // the base alone has no policy (object-invalid) and no filter: the builds complete it; production's filter
        // admits staging's tags, at the patch's line; the two markers each find their overlay's policy
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["policy-crosses-environment apps/production/policy-patch.yaml:4:14"], "\(res.described)")
        #expect((res.findingObjects.first?["environment"] as? String) == "production")
    }

    @Test func patchesThatBreakAPolicyAreReportedWhereTheyAreWritten() throws {
        let r = try overlays()
        // staging's patch now writes an invalid regex; a Flux Kustomization's own patch sets production's semver range
        let staging = try String(contentsOfFile: r.path + "/apps/staging/kustomization.yaml", encoding: .utf8)
        try r.write("apps/staging/kustomization.yaml", staging.replacingOccurrences(of: "(?P<ts>[0-9]+)$'", with: "(?P<ts>[0-9+)$'"))
        let flux = Self.automation("production").replacingOccurrences(of: "  prune: true\n", with: """
              prune: true
              patches:
                - target:
                    kind: ImagePolicy
                  patch: |
                    - op: add
                      path: /spec/policy
                      value:
                        semver:
                          range: '>=1.0.0 <<2'

            """)
        try r.write("clusters/production/apps.yaml", flux)
        try r.commitAll("broken patches")
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "policy-invalid-semver clusters/production/apps.yaml:18:22",
            "policy-invalid-regex apps/staging/kustomization.yaml:19:20",
            "policy-crosses-environment apps/production/policy-patch.yaml:4:14",
        ].sorted(), "\(res.described)")
    }

    /// A Component holds template objects that each app renames with JSON patches (activescott/home-infra-k8s-flux,
    /// ppbrown/fluxcd-starterkit): markers name the renamed policies, and one marker the template's own name.
    @Test func templatePoliciesRenamedByEachApp() throws {
        let r = try TempRepo()
        var files: [String: String] = [
            "templates/image-automation/kustomization.yaml": """
                apiVersion: kustomize.config.k8s.io/v1alpha1
                kind: Component
                resources:
                  - objects.yaml

                """,
            "templates/image-automation/objects.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageRepository
                metadata:
                  name: CHANGEME
                  namespace: flux-system
                spec:
                  image: ghcr.io/acme/CHANGEME
                  interval: 5m
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata:
                  name: CHANGEME
                  namespace: flux-system
                spec:
                  imageRepositoryRef:
                    name: CHANGEME
                  filterTags:
                    pattern: '^main-[a-f0-9]+-(?P<ts>[0-9]+)$'
                    extract: '$ts'
                  policy:
                    numerical:
                      order: asc

                """,
        ]
        for app in ["shop", "blog"] {
            files["prod/\(app)/kustomization.yaml"] = """
                resources:
                  - deployment.yaml
                components:
                  - ../../templates/image-automation
                patches:
                  - target:
                      kind: ImageRepository
                    patch: |
                      - op: replace
                        path: /metadata/name
                        value: \(app)
                      - op: replace
                        path: /spec/image
                        value: ghcr.io/acme/\(app)
                  - target:
                      kind: ImagePolicy
                    patch: |
                      - op: replace
                        path: /metadata/name
                        value: \(app)
                      - op: replace
                        path: /spec/imageRepositoryRef/name
                        value: \(app)

                """
            let policy = app == "shop" ? app : "CHANGEME"
            files["prod/\(app)/deployment.yaml"] = """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: \(app)
                spec:
                  template:
                    spec:
                      containers:
                        - name: \(app)
                          image: ghcr.io/acme/\(app):main-1a2b3c4-1700000000 # {"$imagepolicy": "flux-system:\(policy)"}

                """
        }
        try r.write(files)
        try r.commitAll("apps")
        let got = try policies(r)
        #expect(got == [
            "ImagePolicy flux-system/blog [production] imageRepositoryRef.name=blog@prod/blog/kustomization.yaml:23 "
                + "filterTags.pattern=^main-[a-f0-9]+-(?P<ts>[0-9]+)$@templates/image-automation/objects.yaml:19 "
                + "filterTags.extract=$ts@templates/image-automation/objects.yaml:20 policy.numerical.order=asc@templates/image-automation/objects.yaml:23",
            "ImagePolicy flux-system/shop [production] imageRepositoryRef.name=shop@prod/shop/kustomization.yaml:23 "
                + "filterTags.pattern=^main-[a-f0-9]+-(?P<ts>[0-9]+)$@templates/image-automation/objects.yaml:19 "
                + "filterTags.extract=$ts@templates/image-automation/objects.yaml:20 policy.numerical.order=asc@templates/image-automation/objects.yaml:23",
        ], "\(got)")
        // the blog's marker names the template's name, which no build deploys; so the blog's policy is used by no
        // marker (reported at the template, where it is written)
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["marker-unknown-policy prod/blog/deployment.yaml:10:60", "policy-unused templates/image-automation/objects.yaml:11:7"],
                "\(res.described)")
        let messages = res.findingObjects.map { $0["message"] as? String ?? "" }
        #expect(messages.first?.contains("no ImagePolicy flux-system/CHANGEME") == true, "\(messages)")
        #expect(messages.last?.contains("flux-system/blog") == true, "\(messages)")
    }

    /// A prefixed overlay renames the base's policy: a marker naming it as written finds nothing; a strategic-merge
    /// patch without a target, named as written, still patches it; a `$patch: delete` takes it out of one build.
    @Test func prefixesAndStrategicMergesByName() throws {
        let r = try TempRepo()
        try r.write([
            "base/policy.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageRepository
                metadata:
                  name: api
                  namespace: flux-system
                spec:
                  image: ghcr.io/acme/api
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata:
                  name: api
                  namespace: flux-system
                spec:
                  imageRepositoryRef:
                    name: api
                  policy:
                    semver:
                      range: '>=1.0.0'

                """,
            "base/kustomization.yaml": "resources: [policy.yaml]\n",
            "qa/kustomization.yaml": """
                resources: [../base]
                namePrefix: qa-
                patchesStrategicMerge:
                  - range.yaml

                """,
            "qa/range.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata:
                  name: api
                  namespace: flux-system
                spec:
                  policy:
                    semver:
                      range: '~2.1'

                """,
            "gone/kustomization.yaml": """
                resources: [../base]
                patches:
                  - patch: |
                      $patch: delete
                      apiVersion: image.toolkit.fluxcd.io/v1
                      kind: ImagePolicy
                      metadata:
                        name: api
                        namespace: flux-system

                """,
            "qa/app.yaml": #"image: ghcr.io/acme/api:2.1.0 # {"$imagepolicy": "flux-system:api"}"# + "\n",
            "qa/app2.yaml": #"image: ghcr.io/acme/api:2.1.0 # {"$imagepolicy": "flux-system:qa-api"}"# + "\n",
        ])
        try r.commitAll("qa")
        let got = try policies(r)
        #expect(got == [
            "ImagePolicy flux-system/qa-api [-] imageRepositoryRef.name=api@base/policy.yaml:16 policy.semver.range=~2.1@qa/range.yaml:9",
        ], "\(got)")
        // qa-api still reads an ImageRepository `api`: the one the `gone` build deploys, unprefixed
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["marker-unknown-policy qa/app.yaml:1:31"], "\(res.described)")
    }

    /// A Component of templates named `${APP}` that Flux Kustomizations pull in with `spec.components` and name with
    /// `postBuild.substitute` (Tomyail/talos-cluster): one policy per app, named as substituted; a marker naming an
    /// app no Kustomization substitutes finds nothing.
    @Test func componentTemplatesNamedByFluxSubstitution() throws {
        let r = try TempRepo()
        var files: [String: String] = [
            "components/image-automation/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - objects.yaml\n",
            "components/image-automation/objects.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageRepository
                metadata:
                  name: ${APP}
                spec:
                  image: ${REGISTRY_URL}
                  interval: 5m
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata:
                  name: ${APP}
                spec:
                  imageRepositoryRef:
                    name: ${APP}
                  policy:
                    semver:
                      range: '>=1.0.0'

                """,
        ]
        for app in ["fava", "atuin"] {
            files["apps/\(app)/ks.yaml"] = """
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata:
                  name: &app \(app)
                  namespace: flux-system
                spec:
                  components:
                    - ../../../components/image-automation
                  interval: 1h
                  path: ./apps/\(app)/app
                  prune: true
                  sourceRef:
                    kind: GitRepository
                    name: flux-system
                  targetNamespace: flux-system
                  postBuild:
                    substitute:
                      APP: *app
                      REGISTRY_URL: ghcr.io/acme/\(app)

                """
            files["apps/\(app)/app/kustomization.yaml"] = "resources:\n  - release.yaml\n"
            files["apps/\(app)/app/release.yaml"] = """
                image:
                  repository: ghcr.io/acme/\(app)
                  tag: 1.0.0 # {"$imagepolicy": "flux-system:\(app == "fava" ? app : "atuin-app"):tag"}

                """
        }
        files["clusters/home/apps.yaml"] = """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata:
              name: apps
              namespace: flux-system
            spec:
              interval: 1h
              path: ./apps
              prune: true
              sourceRef:
                kind: GitRepository
                name: flux-system

            """
        try r.write(files)
        try r.commitAll("apps")
        let got = try policies(r)
        #expect(got == [
            "ImagePolicy flux-system/atuin [-] imageRepositoryRef.name=atuin@components/image-automation/objects.yaml:15 "
                + "policy.semver.range=>=1.0.0@components/image-automation/objects.yaml:18",
            "ImagePolicy flux-system/fava [-] imageRepositoryRef.name=fava@components/image-automation/objects.yaml:15 "
                + "policy.semver.range=>=1.0.0@components/image-automation/objects.yaml:18",
        ], "\(got)")
        let res = try r.audit("--format", "json")
        // the component is applied through the Kustomizations' spec.components: atuin's marker names another policy
        #expect(res.findings.filter { $0.hasPrefix("marker") || $0.hasPrefix("policy") } == [
            "marker-unknown-policy apps/atuin/app/release.yaml:3:14",
            "policy-unused components/image-automation/objects.yaml:10:7",
        ], "\(res.described)")
    }

    /// A base whose tag the staging and production overlays set and the development one forgets: the finding is at the
    /// base's line and names the build that deploys it as written.
    @Test func anOverlayThatForgetsItsTagIsNamed() throws {
        let r = try TempRepo()
        var files: [String: String] = [
            "base/deploy.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  template:
                    spec:
                      containers:
                        - name: web
                          image: ghcr.io/acme/web:latest

                """,
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        ]
        for env in ["staging", "production", "development"] {
            files["clusters/\(env)/apps.yaml"] = Self.automation(env).components(separatedBy: "---\n")[0]
            files["apps/\(env)/kustomization.yaml"] = "resources: [../../base]\n"
                + (env == "development" ? "" : "images:\n  - name: ghcr.io/acme/web\n    newTag: 1.4.2\n")
        }
        try r.write(files)
        try r.commitAll("three overlays")
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/deploy.yaml:10:18"], "\(res.described)")
        let message = res.findingObjects.first?["message"] as? String ?? ""
        #expect(message.contains("(deployed with this tag by Flux Kustomization apps (clusters/development/apps.yaml); the other builds replace or drop it)"),
                "\(message)")
        // once development sets it too, the base's tag never runs
        try r.write("apps/development/kustomization.yaml", "resources: [../../base]\nimages:\n  - name: ghcr.io/acme/web\n    newTag: 1.4.2\n")
        try r.commitAll("development sets it")
        #expect(try r.audit("--format", "json").findings == [])
    }

    /// An `images:` entry that matches nothing deploys nothing: its `newTag: latest` is not `image-latest-tag`
    /// (activescott/home-infra-k8s-flux's gpu-poet-collector), only `image-entry-unmatched`.
    @Test func anEntryThatMatchesNothingDeploysNoTag() throws {
        let r = try TempRepo()
        try r.write([
            "app/deploy.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  template:
                    spec:
                      containers:
                        - name: web
                          image: ghcr.io/acme/web:1.4.2

                """,
            "app/kustomization.yaml": "resources: [deploy.yaml]\nimages:\n  - name: web-image\n    newName: ghcr.io/acme/web\n    newTag: latest\n",
        ])
        try r.commitAll("app")
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-entry-unmatched app/kustomization.yaml:3:11"], "\(res.described)")
    }

    /// From a review of this code, each held to `kubectl kustomize` on the kustomization Flux generates: a Flux
    /// Kustomization's `spec.patches` run in its root's `patches:` step, before the root's `patchesJson6902` (which
    /// wins); a policy every build deletes is not deployed; a patched automation's findings are at the patch's lines.
    @Test func fluxPatchOrderDeletionAndAutomationPatches() throws {
        let r = try TempRepo()
        try r.write([
            "apps/kustomization.yaml": """
                resources: [policy.yaml, automation.yaml]
                patchesJson6902:
                  - target: {group: image.toolkit.fluxcd.io, version: v1, kind: ImagePolicy, name: api}
                    patch: |
                      - op: replace
                        path: /spec/policy/semver/range
                        value: '>=1.0.0'
                patches:
                  - path: automation-patch.yaml
                  - target: {kind: ImagePolicy, name: old}
                    patch: |
                      $patch: delete
                      apiVersion: image.toolkit.fluxcd.io/v1
                      kind: ImagePolicy
                      metadata: {name: old, namespace: flux-system}

                """,
            "apps/policy.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageRepository
                metadata: {name: api, namespace: flux-system}
                spec: {image: ghcr.io/acme/api}
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata: {name: api, namespace: flux-system}
                spec:
                  imageRepositoryRef: {name: api}
                  policy:
                    semver:
                      range: CHANGEME
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata: {name: old, namespace: flux-system}
                spec:
                  imageRepositoryRef: {name: api}
                  policy: {semver: {range: not-a-range}}

                """,
            "apps/automation.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageUpdateAutomation
                metadata: {name: apps, namespace: flux-system}
                spec:
                  interval: 10m
                  sourceRef: {kind: GitRepository, name: flux-system}
                  git:
                    checkout: {ref: {branch: main}}
                    commit: {author: {name: flux, email: flux@example.com}}
                    push: {branch: flux-updates}
                  update: {path: ./apps, strategy: Setters}

                """,
            "apps/automation-patch.yaml": """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageUpdateAutomation
                metadata:
                  name: apps
                  namespace: flux-system
                spec:
                  sourceRef:
                    name: no-such-repository
                  update:
                    strategy: Bogus

                """,
            "apps/app.yaml": #"image: ghcr.io/acme/api:1.0.0 # {"$imagepolicy": "flux-system:api"}"# + "\n",
            "clusters/prod/apps.yaml": """
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata: {name: apps, namespace: flux-system}
                spec:
                  interval: 10m
                  path: ./apps
                  prune: true
                  sourceRef: {kind: GitRepository, name: flux-system}
                  patches:
                    - target: {kind: ImagePolicy, name: api}
                      patch: |
                        - op: replace
                          path: /spec/policy/semver/range
                          value: 'also-not-a-range'
                ---
                apiVersion: source.toolkit.fluxcd.io/v1
                kind: GitRepository
                metadata: {name: flux-system, namespace: flux-system}
                spec:
                  url: https://example.com/acme/fleet.git
                  ref: {branch: main}

                """,
        ])
        try r.commitAll("apps")
        let res = try r.audit("--format", "json")
        #expect(res.findings == [
            "automation-unknown-source apps/automation-patch.yaml:8:11",
            "object-invalid apps/automation-patch.yaml:10:15",
        ], "\(res.described)")
    }

    /// Strategic-merge patches that replace a container's image (inline with a target, and a patchesStrategicMerge
    /// file by the workload's own name): the base's `:latest` of that container never runs in those builds, the
    /// sidecar's does; a third overlay without the patch deploys it, and is named. As `kubectl kustomize` builds them.
    @Test func strategicMergePatchesThatReplaceAContainerImage() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write([
            "base/deploy.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  template:
                    spec:
                      containers:
                        - name: web
                          image: ghcr.io/acme/web:latest
                        - name: sidecar
                          image: ghcr.io/acme/sidecar:latest

                """,
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "staging/kustomization.yaml": """
                resources: [../base]
                patches:
                  - target: {kind: Deployment, name: web}
                    patch: |-
                      apiVersion: apps/v1
                      kind: Deployment
                      metadata:
                        name: any
                      spec:
                        template:
                          spec:
                            containers:
                              - name: web
                                image: ghcr.io/acme/web:1.4.2

                """,
            "production/kustomization.yaml": "resources: [../base]\npatchesStrategicMerge: [web-image.yaml]\n",
            "production/web-image.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  template:
                    spec:
                      containers:
                        - name: web
                          image: ghcr.io/acme/web:latest

                """,
        ])
        try r.commitAll("overlays")
        // production's patch writes latest itself: reported where it is written; the base's web tag never runs
        var res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/deploy.yaml:12:18", "image-latest-tag production/web-image.yaml:10:18"],
                "\(res.described)")
        try r.write("dev/kustomization.yaml", "resources: [../base]\n")
        try r.commitAll("dev")
        res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/deploy.yaml:10:18", "image-latest-tag base/deploy.yaml:12:18",
                                 "image-latest-tag production/web-image.yaml:10:18"], "\(res.described)")
        let web = res.findingObjects.first { ($0["line"] as? Int) == 10 && ($0["file"] as? String) == "base/deploy.yaml" }
        #expect((web?["message"] as? String)?.hasSuffix("(deployed with this tag by dev/; the other builds replace or drop it)") == true, "\(res.described)")
    }

    /// A shared base's image that no overlay retags: the finding at the base names the environments that deploy it.
    @Test func aSharedBaseFindingNamesItsEnvironments() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write([
            "base/deploy.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web:latest\n",
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "overlays/staging/kustomization.yaml": "resources: [../../base]\n",
            "overlays/production/kustomization.yaml": "resources: [../../base]\n",
        ])
        try r.commitAll("overlays")
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/deploy.yaml:7:14"], "\(res.described)")
        #expect((res.findingObjects.first?["message"] as? String)?.hasSuffix("(deployed by production, staging)") == true, "\(res.described)")
    }

    /// AEdral/flux-examples: a cluster builds the development overlay; the production overlay, which nothing here
    /// applies, deploys nothing, so the base is not judged in production (it was: production's `image-not-pinned`
    /// as an error). Where no build a cluster reaches deploys it, each build's environment still counts.
    @Test func aSharedBaseIsJudgedInTheEnvironmentsOfTheBuildsAClusterReaches() throws {
        let r = try TempRepo()
        var files = bootstrapFiles("clusters/main", flux: "v2.7.0")
        files["clusters/main/app.yaml"] = fluxKustomization(name: "app", path: "./app/overlays/dev", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files[".tagwarden.yaml"] = "environments:\n  - name: development\n    aliases: [dev]\n  - name: production\n    aliases: [prod]\n    requireDigest: true\n"
        files["app/base/web.yaml"] = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web:latest\n"
        files["app/base/kustomization.yaml"] = "resources: [web.yaml]\n"
        files["app/overlays/dev/kustomization.yaml"] = "resources: [../../base]\n"
        files["app/overlays/prod/kustomization.yaml"] = "resources: [../../base]\n"
        try r.write(files)
        try r.commitAll("fleet")
        func found() throws -> [String] {
            try r.audit("--format", "json").findingObjects.filter { $0["severity"] as? String != "note" }
                .map { "\($0["severity"]!) \($0["rule"]!) \($0["environment"] as? String ?? "-") \(($0["message"] as? String)?.suffix(25) ?? "")" }
        }
        let reached = try found()
        #expect(reached == ["error image-latest-tag development (deployed by development)"], "\(reached)")
        // nothing here applies either overlay: both environments, as before, and warnings
        try r.write("clusters/main/app.yaml", fluxKustomization(name: "app", path: "./app/overlays/stage", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n"))
        try r.commitAll("no overlay")
        let unreached = try found().filter { !$0.contains("kustomization-build-fails") }
        #expect(unreached.map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == ["warning image-latest-tag -", "warning image-not-pinned production"],
                "\(unreached)")
    }

    /// A base that only production deploys is judged in production: a staging tag there is `image-env-prefix`.
    @Test func aBaseOneEnvironmentDeploysIsJudgedThere() throws {
        let r = try TempRepo()
        try r.write([
            ".tagwarden.yaml": "promotedImages: [\"ghcr.io/acme/*\"]\nenvironments:\n  - name: production\n    tagPrefix: prod-\n  - name: staging\n    tagPrefix: staging-\n",
            "base/deploy.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web:staging-1.4.2\n",
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "overlays/production/kustomization.yaml": "resources: [../../base]\n",
        ])
        try r.commitAll("base")
        let res = try r.audit("--format", "json")
        #expect(res.findings.filter { $0.hasPrefix("image-env-prefix") } == ["image-env-prefix base/deploy.yaml:7:14"], "\(res.described)")
        #expect((res.findingObjects.first { ($0["rule"] as? String) == "image-env-prefix" }?["environment"] as? String) == "production")
    }
}

extension EffectiveObjectsTests {
    /// A shared base's promoted image is judged in each environment that deploys it with its written tag: a tag
    /// without a prefix is a finding in each; a staging tag only in production; an overlay that retags it takes its
    /// environment out of the judgement.
    @Test func aSharedBaseIsJudgedInEachEnvironmentThatDeploysIt() throws {
        let r = try TempRepo()
        try r.write([
            ".tagwarden.yaml": oneClusterConfig + "promotedImages: [\"ghcr.io/acme/*\"]\nenvironments:\n  - name: production\n    tagPrefix: prod-\n  - name: staging\n    tagPrefix: staging-\n",
            "base/deploy.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web:1.4.2\n",
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "overlays/staging/kustomization.yaml": "resources: [../../base]\n",
            "overlays/production/kustomization.yaml": "resources: [../../base]\n",
        ])
        try r.commitAll("base")
        func prefixFindings() throws -> [String] {
            let res = try r.audit("--format", "json")
            return res.findingObjects.filter { ($0["rule"] as? String) == "image-env-prefix" }.map {
                "\($0["file"] as? String ?? "?"):\($0["line"] as? Int ?? 0) [\($0["environment"] as? String ?? "-")] \($0["message"] as? String ?? "?")"
            }.sorted()
        }
        var got = try prefixFindings()
        #expect(got == [
            "base/deploy.yaml:7 [production] tag '1.4.2' of promoted image 'ghcr.io/acme/web' lacks the production prefix 'prod-' (deployed by production, staging)",
            "base/deploy.yaml:7 [staging] tag '1.4.2' of promoted image 'ghcr.io/acme/web' lacks the staging prefix 'staging-' (deployed by production, staging)",
        ], "\(got)")
        try r.write("base/deploy.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n      image: ghcr.io/acme/web:staging-1.4.2\n")
        try r.commitAll("staging tag")
        got = try prefixFindings()
        #expect(got == [
            "base/deploy.yaml:7 [production] tag 'staging-1.4.2' of promoted image 'ghcr.io/acme/web' lacks the production prefix 'prod-': it is a staging tag (deployed by production, staging)",
        ], "\(got)")
        // production sets its own tag: the base's tag runs only in staging, where it is right
        try r.write("overlays/production/kustomization.yaml", "resources: [../../base]\nimages:\n  - name: ghcr.io/acme/web\n    newTag: prod-1.4.2\n")
        try r.commitAll("production retags")
        got = try prefixFindings()
        #expect(got == [], "\(got)")
        // and a third build, development, deploys the staging tag as written: judged there only
        try r.write([
            ".tagwarden.yaml": oneClusterConfig + "promotedImages: [\"ghcr.io/acme/*\"]\nenvironments:\n  - name: production\n    tagPrefix: prod-\n  - name: staging\n    tagPrefix: staging-\n  - name: development\n    tagPrefix: dev-\n",
            "overlays/development/kustomization.yaml": "resources: [../../base]\n",
        ])
        try r.commitAll("development")
        got = try prefixFindings()
        #expect(got == [
            "base/deploy.yaml:7 [development] tag 'staging-1.4.2' of promoted image 'ghcr.io/acme/web' lacks the development prefix 'dev-': it is a staging tag "
                + "(deployed with this tag by overlays/development/, overlays/staging/; the other builds replace or drop it)",
        ], "\(got)")
    }
}

extension EffectiveObjectsTests {
    /// One patch completes a hundred ImagePolicies (a public repository keeps a hundred such): each is judged with the
    /// patch's ordering and filter, and a broken range in the patch is a finding for each policy, at the patch's line.
    @Test func onePatchCompletesAHundredPolicies() throws {
        let r = try TempRepo()
        var objects: [String] = [], workloads: [String] = []
        for n in 0..<100 {
            objects.append("""
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageRepository
                metadata: {name: app\(n), namespace: flux-system}
                spec: {image: ghcr.io/acme/app\(n), interval: 5m}
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImagePolicy
                metadata: {name: app\(n), namespace: flux-system}
                spec:
                  imageRepositoryRef: {name: app\(n)}

                """)
            workloads.append("""
                apiVersion: v1
                kind: Pod
                metadata: {name: app\(n)}
                spec:
                  containers:
                    - name: app
                      image: ghcr.io/acme/app\(n):prod-1.0.0 # {"$imagepolicy": "flux-system:app\(n)"}

                """)
        }
        try r.write([
            ".tagwarden.yaml": "environments:\n  - name: production\n    tagPrefix: prod-\n",
            "clusters/production/apps.yaml": Self.automation("production"),
            "apps/production/policies.yaml": objects.joined(separator: "---\n"),
            "apps/production/pods.yaml": workloads.joined(separator: "---\n"),
            "apps/production/kustomization.yaml": """
                resources: [policies.yaml, pods.yaml]
                patches:
                  - target:
                      kind: ImagePolicy
                    patch: |-
                      - op: add
                        path: /spec/filterTags
                        value:
                          pattern: '^prod-(?P<v>.*)$'
                          extract: '$v'
                      - op: add
                        path: /spec/policy
                        value:
                          semver:
                            range: '>=1.0.0'

                """,
        ])
        try r.commitAll("a hundred policies")
        let got = try policies(r)
        #expect(got.count == 100)
        #expect(got.allSatisfy {
            $0.contains("[production]") && $0.contains("filterTags.pattern=^prod-(?P<v>.*)$@apps/production/kustomization.yaml:9")
                && $0.contains("policy.semver.range=>=1.0.0@apps/production/kustomization.yaml:15")
        }, "\(got.prefix(3))")
        var res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        // a broken range in the one patch breaks every policy it completes
        let k = try String(contentsOfFile: r.path + "/apps/production/kustomization.yaml", encoding: .utf8)
        try r.write("apps/production/kustomization.yaml", k.replacingOccurrences(of: "'>=1.0.0'", with: "'>=1.0.0 <<2'"))
        try r.commitAll("broken range")
        res = try r.audit("--format", "json")
        #expect(res.findings == Array(repeating: "policy-invalid-semver apps/production/kustomization.yaml:15:20", count: 100), "\(res.described)")
        let named = Set(res.findingObjects.compactMap { ($0["object"] as? [String: Any])?["name"] as? String })
        #expect(named == Set((0..<100).map { "app\($0)" }), "\(named.sorted().prefix(5))")
    }
}

extension EffectiveObjectsTests {
    /// JSON patches that write a container's image by its place in the list: inline with a target, a `patches:` file
    /// with a target, a `patchesJson6902` file; an `add` that inserts a container before the others replaces none.
    @Test func jsonPatchesThatReplaceAContainerImageByPlace() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write([
            "base/deploy.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  template:
                    spec:
                      initContainers:
                        - name: migrate
                          image: ghcr.io/acme/migrate:latest
                      containers:
                        - name: web
                          image: ghcr.io/acme/web:latest
                        - name: sidecar
                          image: ghcr.io/acme/sidecar:latest

                """,
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "staging/kustomization.yaml": """
                resources: [../base]
                patches:
                  - target: {kind: Deployment, name: web}
                    patch: |-
                      - op: replace
                        path: /spec/template/spec/containers/0/image
                        value: ghcr.io/acme/web:1.4.2
                      - op: replace
                        path: /spec/template/spec/initContainers/0/image
                        value: ghcr.io/acme/migrate:1.4.2
                  - path: sidecar.yaml
                    target: {kind: Deployment, name: web}

                """,
            "staging/sidecar.yaml": """
                - op: add
                  path: /spec/template/spec/containers/1/image
                  value: ghcr.io/acme/sidecar:2.0.0

                """,
            "production/kustomization.yaml": """
                resources: [../base]
                patchesJson6902:
                  - target: {group: apps, version: v1, kind: Deployment, name: web}
                    path: images.yaml

                """,
            "production/images.yaml": """
                - op: replace
                  path: /spec/template/spec/containers/0
                  value: {name: web, image: ghcr.io/acme/web:1.4.2}
                - op: replace
                  path: /spec/template/spec/containers/1/image
                  value: ghcr.io/acme/sidecar:2.0.0
                - op: replace
                  path: /spec/template/spec/initContainers/0/image
                  value: ghcr.io/acme/migrate:1.4.2

                """,
        ])
        try r.commitAll("json patches")
        // every build replaces every image the base writes
        var res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        // staging's file patch now inserts a container in front instead: the base's sidecar (now second) keeps its
        // tag in staging, and the inserted one is judged where it is written
        try r.write("staging/sidecar.yaml", """
            - op: add
              path: /spec/template/spec/containers/0
              value: {name: proxy, image: ghcr.io/acme/proxy:latest}

            """)
        try r.commitAll("insert")
        res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/deploy.yaml:15:18", "image-latest-tag staging/sidecar.yaml:3:31"], "\(res.described)")
        let sidecar = res.findingObjects.first { ($0["file"] as? String) == "base/deploy.yaml" }
        #expect((sidecar?["message"] as? String)?.hasSuffix("(deployed with this tag by staging/; the other builds replace or drop it)") == true,
                "\(res.described)")
    }
}

extension EffectiveObjectsTests {
    /// Places move along a build: a strategic merge puts the containers it names first, so a JSON patch of place 0
    /// after it writes the container it named; a Component's patch, selected by label, removes a container.
    @Test func containerPlacesMoveAsKustomizeMovesThem() throws {
        let r = try TempRepo()
        try r.write([
            "base/deploy.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                  labels: {app: web}
                spec:
                  template:
                    spec:
                      containers:
                        - name: web
                          image: ghcr.io/acme/web:latest
                        - name: proxy
                          image: ghcr.io/acme/proxy:latest

                """,
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "staging/resources.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  template:
                    spec:
                      containers:
                        - name: proxy
                          resources: {limits: {memory: 64Mi}}

                """,
            "staging/kustomization.yaml": """
                resources: [../base]
                patchesStrategicMerge: [resources.yaml]
                patches:
                  - target: {kind: Deployment, name: web}
                    patch: |-
                      - op: replace
                        path: /spec/template/spec/containers/0/image
                        value: ghcr.io/acme/proxy:1.2.0

                """,
        ])
        try r.commitAll("reorder")
        // staging's merge moved the proxy first: the JSON patch writes the proxy's image, and the web's `latest` runs
        var res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/deploy.yaml:11:18"], "\(res.described)")
        // a Component that every app with `app: web` lists removes the (now second) web container
        try r.write([
            "components/no-web/kustomization.yaml": """
                apiVersion: kustomize.config.k8s.io/v1alpha1
                kind: Component
                patches:
                  - target: {kind: Deployment, labelSelector: app=web}
                    patch: |-
                      - op: remove
                        path: /spec/template/spec/containers/1

                """,
        ])
        let k = try String(contentsOfFile: r.path + "/staging/kustomization.yaml", encoding: .utf8)
        try r.write("staging/kustomization.yaml", k.replacingOccurrences(of: "resources: [../base]\n", with: "resources: [../base]\ncomponents: [../components/no-web]\n"))
        try r.commitAll("component")
        // the Component runs first: it removes the proxy (second as written); the merge then names a proxy the build no
        // longer has and adds it without an image, and the JSON patch writes that one: the web's `latest` runs still
        res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/deploy.yaml:11:18"], "\(res.described)")
        // when it removes the first container, the web, no base tag runs (as `kubectl kustomize` builds it)
        let c = try String(contentsOfFile: r.path + "/components/no-web/kustomization.yaml", encoding: .utf8)
        try r.write("components/no-web/kustomization.yaml", c.replacingOccurrences(of: "containers/1", with: "containers/0"))
        try r.commitAll("remove the web")
        res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
    }
}

extension EffectiveObjectsTests {
    /// A base HelmRelease whose values leave the tag to the overlays: a strategic merge of `values.image.tag` in
    /// staging, a JSON patch of `/spec/values/image` in production. An overlay that patches something else deploys the
    /// base's tag, and is named.
    @Test func patchesThatWriteAReleasesImageValues() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write([
            "base/release.yaml": """
                apiVersion: helm.toolkit.fluxcd.io/v2
                kind: HelmRelease
                metadata:
                  name: web
                spec:
                  interval: 10m
                  chart:
                    spec:
                      chart: web
                      sourceRef: {kind: HelmRepository, name: acme}
                  values:
                    image:
                      repository: ghcr.io/acme/web
                      tag: latest
                    worker:
                      image: ghcr.io/acme/worker:latest

                """,
            "base/kustomization.yaml": "resources: [release.yaml]\n",
            "staging/kustomization.yaml": """
                resources: [../base]
                patches:
                  - patch: |-
                      apiVersion: helm.toolkit.fluxcd.io/v2
                      kind: HelmRelease
                      metadata:
                        name: web
                      spec:
                        values:
                          image:
                            tag: 1.4.2
                          worker:
                            image: ghcr.io/acme/worker:1.4.2

                """,
            "production/kustomization.yaml": """
                resources: [../base]
                patches:
                  - target: {kind: HelmRelease, name: web}
                    patch: |-
                      - op: replace
                        path: /spec/values/image
                        value: {repository: ghcr.io/acme/web, tag: 1.4.2}
                      - op: replace
                        path: /spec/values/worker/image
                        value: ghcr.io/acme/worker:1.4.2

                """,
        ])
        try r.commitAll("releases")
        var res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        // development patches the replicas only: the base's tags run there
        try r.write("development/kustomization.yaml", """
            resources: [../base]
            patches:
              - target: {kind: HelmRelease}
                patch: |-
                  - op: add
                    path: /spec/values/replicas
                    value: 1

            """)
        try r.commitAll("development")
        res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag base/release.yaml:14:12", "image-latest-tag base/release.yaml:16:14"], "\(res.described)")
        #expect(res.findingObjects.allSatisfy {
            ($0["message"] as? String)?.hasSuffix("(deployed with this tag by development/; the other builds replace or drop it)") == true
        }, "\(res.described)")
    }
}

extension EffectiveObjectsTests {
    /// A Flux Kustomization's `spec.namePrefix` and `spec.nameSuffix` (Flux 2.5) take the place of the
    /// kustomization's own at its `path`, and of none where Flux generates the kustomization.
    @Test func fluxNameAffixesReplaceTheKustomizations() throws {
        let r = try TempRepo()
        let policy = """
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImagePolicy
            metadata:
              name: api
              namespace: flux-system
            spec:
              imageRepositoryRef:
                name: api
              policy:
                semver:
                  range: '>=1.0.0'

            """
        try r.write([
            "clusters/production/apps.yaml": Self.automation("production").replacingOccurrences(of: "  prune: true\n",
                                                                                              with: "  prune: true\n  namePrefix: prod-\n"),
            "clusters/staging/apps.yaml": Self.automation("staging").replacingOccurrences(of: "  prune: true\n",
                                                                                        with: "  prune: true\n  nameSuffix: -stg\n"),
            "apps/production/policy.yaml": policy,
            "apps/production/kustomization.yaml": "resources: [policy.yaml]\nnamePrefix: own-\n",
            "apps/staging/policy.yaml": policy,
            "apps/production/app.yaml": #"image: ghcr.io/acme/api:2.1.0 # {"$imagepolicy": "flux-system:prod-api"}"# + "\n",
            "apps/staging/app.yaml": #"image: ghcr.io/acme/api:2.1.0 # {"$imagepolicy": "flux-system:own-api"}"# + "\n",
        ])
        try r.commitAll("affixes")
        let got = try policies(r).map { $0.components(separatedBy: " [").first ?? $0 }
        #expect(got == ["ImagePolicy flux-system/api-stg", "ImagePolicy flux-system/prod-api"], "\(got)")
        let res = try r.audit("--format", "json")
        #expect(res.findings.filter { $0.hasPrefix("marker-unknown-policy") } == ["marker-unknown-policy apps/staging/app.yaml:1:31"], "\(res.described)")
    }
}

extension EffectiveObjectsTests {
    /// A patch copied from another app, whose target is of a kind this build does not have, applies to nothing: its
    /// `:latest` deploys nothing (redhat-na-ssa/demo-ai-gitops-catalog, nfs-provisioner/test). With the kind there, it
    /// is judged.
    @Test func aPatchOfAKindTheBuildLacksDeploysNothing() throws {
        let r = try TempRepo()
        try r.write([
            "app/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: nfs}\nspec:\n  containers:\n    - name: nfs\n      image: ghcr.io/acme/nfs:1.2.0\n",
            "app/kustomization.yaml": """
                resources: [pod.yaml]
                patches:
                  - target: {kind: DaemonSet, name: generic-device-plugin}
                    patch: |-
                      - op: replace
                        path: /spec/template/spec/containers/0/image
                        value: ghcr.io/acme/plugin:latest

                """,
        ])
        try r.commitAll("a copied patch")
        var res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        try r.write("app/kustomization.yaml", """
            resources: [pod.yaml]
            patches:
              - target: {kind: Pod, name: nfs}
                patch: |-
                  - op: replace
                    path: /spec/containers/0/image
                    value: ghcr.io/acme/plugin:latest

            """)
        try r.commitAll("a patch of the pod")
        res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag app/kustomization.yaml:7:16"], "\(res.described)")
    }
}

extension EffectiveObjectsTests {
    /// andreyolv/pikakube: a patch file whose target's labelSelector (or name) matches no object of the build patches
    /// nothing (`kubectl kustomize` deploys the base's image): its `:latest` deploys nothing. With a target that
    /// selects the Deployment, it is judged.
    @Test func aPatchFileThatSelectsNothingDeploysNothing() throws {
        let r = try TempRepo()
        let patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
            + "      containers:\n        - name: web\n          image: nginx:latest\n"
        func kustomization(_ target: String) -> String { "resources: [deployment.yaml]\npatches:\n  - path: patch.yaml\n    target: \(target)\n" }
        try r.write([
            "app/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {env: prod}}\nspec:\n  template:\n    spec:\n"
                + "      containers:\n        - name: web\n          image: nginx:1.25.3\n",
            "app/patch.yaml": patch,
            "app/kustomization.yaml": kustomization("{kind: Deployment, labelSelector: env=dev}"),
        ])
        try r.commitAll("a patch of nothing")
        var res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        try r.write("app/kustomization.yaml", kustomization("{kind: Deployment, name: webx}"))
        try r.commitAll("another name")
        res = try r.audit("--format", "json")
        #expect(res.findings == [], "\(res.described)")
        try r.write("app/kustomization.yaml", kustomization("{kind: Deployment, labelSelector: env=prod}"))
        try r.commitAll("a patch of the deployment")
        res = try r.audit("--format", "json")
        #expect(res.findings == ["image-latest-tag app/patch.yaml:9:18"], "\(res.described)")
    }
}
