import TagwardenFixtures
import Testing
@testable import TagwardenLint

/// The images of a repository as kustomize, Helm and Flux make them (images: entries, patches, components, values,
/// anchors) and the image rules over them, with suppressions. In-process; the reports, exit codes and what the
/// binary reads from disk and git are in AuditTests.
@Suite struct ImageRuleTests {
    /// d4rkfella/home-ops (openebs/zfs-localpv's chart): a `registry` written with its `/` is joined as written, the
    /// chart's `{{ registry }}{{ repository }}`, not with a second `/`.
    @Test func aRegistryWrittenWithItsSlashIsJoinedAsWritten() throws {
        var files: [String: String] = [:]
        files["apps/zfs.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: zfs, namespace: openebs}
        spec:
          values:
            csi:
              registrar: {image: {registry: registry.k8s.io/, repository: sig-storage/csi-node-driver-registrar, tag: v2.17.0}}
              resizer: {image: {registry: registry.k8s.io/, repository: sig-storage/csi-resizer, tag: latest}}

        """
        let res = try lint(files)
        #expect(res.rendered == ["image-latest-tag apps/zfs.yaml:8:95"], "\(res.map(\.message))")
        #expect(res.first?.message.hasPrefix("image 'registry.k8s.io/sig-storage/csi-resizer:latest' uses the tag 'latest'") == true, "\(res.map(\.message))")
    }

    /// A container an inline patch of a kustomization adds runs with the tag its `images:` entries give it: kustomize's
    /// image transformer runs after the patches (`kubectl kustomize apps`: `n8nio/runners:2.26.5`; anthony-spruyt/spruyt-labs).
    /// One no entry names keeps the tag written.
    @Test func anInlinePatchsContainerTakesItsKustomizationsEntries() throws {
        func files(entry: String) -> [String: String] {
            ["apps/kustomization.yaml": """
            resources: [dep.yaml]
            images:
              - name: \(entry)
                newTag: "2.26.5"
            patches:
              - target: {kind: Deployment, name: worker}
                patch: |-
                  apiVersion: apps/v1
                  kind: Deployment
                  metadata: {name: _}
                  spec:
                    template:
                      spec:
                        containers:
                          - name: runner
                            image: n8nio/runners

            """,
             "apps/dep.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: worker}\nspec:\n  template:\n    spec:\n"
                + "      containers:\n        - {name: web, image: nginx:1.27.0}\n"]
        }
        #expect(try lint(files(entry: "n8nio/runners")).rendered == [])
        let other = try lint(files(entry: "n8nio/other")).rendered
        #expect(other == ["image-entry-unmatched apps/kustomization.yaml:3:11", "image-missing-tag apps/kustomization.yaml:16:24"], "\(other)")
    }

    /// A HelmRelease's post-renderers retag the chart's images and the containers their patches add: Flux runs each
    /// post-renderer's kustomize in order, its patches before its `images:` entries (anthony-spruyt/spruyt-labs). A later
    /// post-renderer's patch comes after an earlier one's entries, and a kustomization's entries do not rewrite a patch's
    /// text.
    @Test func aPostRenderersEntriesRetagTheReleasesImages() throws {
        func release(_ renderers: String) -> [String: String] {
            ["apps/kustomization.yaml": "resources: [release.yaml]\nimages:\n  - {name: n8nio/late, newTag: \"9.9.9\"}\n",
             "apps/release.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: n8n, namespace: n8n}
            spec:
              chart: {spec: {chart: n8n, sourceRef: {kind: HelmRepository, name: n8n}}}
              values:
                image: {repository: n8nio/n8n, tag: latest}
              postRenderers:
            \(renderers)
            """]
        }
        func patch(_ image: String) -> String {
            """
                    patches:
                      - target: {kind: Deployment, name: n8n-worker}
                        patch: |-
                          apiVersion: apps/v1
                          kind: Deployment
                          metadata: {name: _}
                          spec:
                            template:
                              spec:
                                containers:
                                  - {name: runner, image: \(image)}

            """
        }
        let retagged = try lint(release("""
                - kustomize:
                    images:
                      - {name: n8nio/runners, newTag: "2.26.5"}
                      - {name: n8nio/n8n, newTag: "1.2.3"}
            \(patch("n8nio/runners"))
            """)).rendered
        // (the kustomization's entry reaches neither the values nor a patch's text: it matches nothing of its build)
        #expect(retagged == ["image-entry-unmatched apps/kustomization.yaml:3:12"], "\(retagged)")
        // (the second post-renderer's entry reaches the first's container; the first's entry not the second's)
        let ordered = try lint(release("""
                - kustomize:
                    images:
                      - {name: n8nio/late, newTag: "2.26.5"}
            \(patch("n8nio/runners"))
                - kustomize:
                    images:
                      - {name: n8nio/runners, newTag: "2.26.5"}
            \(patch("n8nio/late"))
            """)).rendered
        #expect(ordered == ["image-latest-tag apps/release.yaml:7:41", "image-missing-tag apps/release.yaml:37:47"], "\(ordered)")
    }

    @Test func kustomizeHelmAndCronJobImages() throws {
        var files: [String: String] = [:]
        files["base/kustomization.yaml"] = """
        resources: [cron.yaml]
        images:
          - name: app
            newName: ghcr.io/acme/app
            newTag: latest
          - name: side
            digest: sha256:123

        """
        files["base/cron.yaml"] = """
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: c
        spec:
          jobTemplate:
            spec:
              template:
                spec:
                  containers:
                    - name: a
                      image: app
                  ephemeralContainers:
                    - name: dbg
                      image: busybox:edge

        """
        files["flux/ks.yaml"] = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: apps
        spec:
          images:
            - name: web
              newTag: main

        """
        files["helm/hr.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata:
          name: h
        spec:
          chart:
            spec:
              version: 1.10
          values:
            deep:
              list:
                - image: quay.io/x/y
            other:
              registry: docker.io
              repository: bitnami/redis
              tag: latest
            chartDefault:
              repository: ghcr.io/acme/side
              tag: ""
          postRenderers:
            - kustomize:
                images:
                  - name: ghcr.io/acme/side
                    newTag: latest

        """
        files["compose/docker-compose.yaml"] = "services:\n  a:\n    image: nginx:latest\n"
        files["list/list.yaml"] = """
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: Pod
            metadata: {name: p}
            spec:
              containers:
                - {name: a, image: "redis:latest"}

        """
        files["rollout/r.yaml"] = """
        apiVersion: argoproj.io/v1alpha1
        kind: Rollout
        metadata:
          name: r
        spec:
          template:
            spec:
              containers:
                - name: a
                  image: nginx:latest
        ---
        apiVersion: argoproj.io/v1alpha1
        kind: Workflow
        metadata:
          name: w
        spec:
          template:
            spec:
              containers:
                - name: a
                  image: nginx:latest

        """
        files["crds/workloads.yaml"] = """
        apiVersion: serving.knative.dev/v1
        kind: Service
        metadata: {name: k}
        spec:
          template:
            spec:
              containers:
                - image: ghcr.io/acme/k:latest
        ---
        apiVersion: apps.kruise.io/v1alpha1
        kind: CloneSet
        metadata: {name: c}
        spec:
          template:
            spec:
              initContainers:
                - {name: i, image: "busybox"}
        ---
        apiVersion: keda.sh/v1alpha1
        kind: ScaledJob
        metadata: {name: j}
        spec:
          jobTargetRef:
            template:
              spec:
                containers:
                  - {name: w, image: "ghcr.io/acme/worker:main"}
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: plain}
        spec:
          template:
            spec:
              containers:
                - image: nginx:latest

        """
        let res = try lint(files)
        #expect(res.rendered == [
            // `image: app` leaves the build as ghcr.io/acme/app:latest: the entry that says so is reported, not the base
            "image-floating-tag base/cron.yaml:15:22",
            "image-latest-tag base/kustomization.yaml:5:13",
            // no container of the build is 'side': its digest lands nowhere (kustomize checks none), so it is no invalid image
            "image-entry-unmatched base/kustomization.yaml:6:11",
            "image-latest-tag crds/workloads.yaml:8:18",
            "image-missing-tag crds/workloads.yaml:17:28",
            "image-floating-tag crds/workloads.yaml:27:30",
            "image-floating-tag flux/ks.yaml:8:15",
            "image-tag-not-string helm/hr.yaml:8:16",
            "image-missing-tag helm/hr.yaml:12:18",
            "image-latest-tag helm/hr.yaml:16:12",
            "image-latest-tag helm/hr.yaml:24:21",
            "image-latest-tag list/list.yaml:9:28",
            "image-latest-tag rollout/r.yaml:10:18",
        ])
    }

    /// A repository whose own policy filters for tags of two numbers says its image's releases have two.
    @Test func twoNumbersAreAReleaseWhereTheFieldsPolicyFiltersForThem() throws {
        var files: [String: String] = [:]
        func policy(_ name: String, pattern: String) -> String {
            """
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImagePolicy
            metadata: {name: \(name), namespace: flux-system}
            spec:
              imageRepositoryRef: {name: seaweedfs}
              filterTags: {pattern: '\(pattern)', extract: '$major.$minor.0'}
              policy: {semver: {range: '>=4.0.0'}}
            ---

            """
        }
        files["infra/policies.yaml"] = """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata: {name: seaweedfs, namespace: flux-system}
        spec: {image: chrislusf/seaweedfs, interval: 24h}
        ---

        """ + policy("two", pattern: #"^(?P<major>\d+)\.(?P<minor>\d+)$"#)
            + policy("prefix", pattern: #"^(?P<major>\d+)\.(?P<minor>\d+)"#)
        files["infra/release.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: seaweedfs, namespace: flux-system}
        spec:
          values:
            master:
              image: chrislusf/seaweedfs:4.22 # {"$imagepolicy": "flux-system:two"}
            filer:
              image: chrislusf/seaweedfs:4.22 # {"$imagepolicy": "flux-system:prefix"}
            volume:
              image: chrislusf/seaweedfs:4.22

        """
        // a policy of the image that takes 4.22 but no 4.22.x says its releases have two numbers, whichever policy a
        // field follows (an image no policy ranks so keeps the assumption: shortVersionsThatTheRepositorySaysAreReleases)
        #expect(try lint(files).filter { $0.rule == "image-floating-tag" }.rendered == [])
        // without that policy, one that takes 4.22.1 as well, and no policy at all, leave 4.22 a series of patch releases
        files["infra/policies.yaml"] = files["infra/policies.yaml"]!.replacingOccurrences(of: #"^(?P<major>\d+)\.(?P<minor>\d+)$"#, with: #"^(?P<major>\d+)\.(?P<minor>\d+)\.\d+$"#)
        let res = try lint(files).filter { $0.rule == "image-floating-tag" }
        #expect(res.rendered == ["image-floating-tag infra/release.yaml:7:14", "image-floating-tag infra/release.yaml:9:14",
                                 "image-floating-tag infra/release.yaml:11:14"], "\(res.rendered)")
    }

    /// Charts whose templates add a tag of their own to a values field that names the image (kubecost's cost-analyzer
    /// `:prod-<appVersion>`, plane-ce `:<planeVersion>`, seaweedfs-csi-driver's `:<appVersion>` from 0.2.12): a bare
    /// repository there does not run `latest`. Another chart, an older seaweedfs-csi-driver, or a version range keeps the
    /// warning and its assumption.
    @Test func chartsKnownToTagAnImageFieldCompleteABareRepository() throws {
        func release(_ chart: String, version: String, values: String) -> String {
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: r, namespace: apps}\nspec:\n  chart:\n    spec:\n"
                + "      chart: \(chart)\n      version: \(version)\n      sourceRef: {kind: HelmRepository, name: charts}\n  values:\n" + values
        }
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/kubecost.yaml"] = release("cost-analyzer", version: "2.2.2", values: """
            kubecostFrontend: {image: public.ecr.aws/kubecost/frontend}
            kubecostModel: {image: public.ecr.aws/kubecost/cost-model}
            networkCosts: {image: gcr.io/kubecost1/kubecost-network-costs}

        """)
        files["clusters/prod/plane.yaml"] = release("plane-ce", version: "1.6.0", values: """
            web: {image: artifacts.plane.so/makeplane/plane-frontend}
            redis: {image: valkey/valkey}

        """)
        for (name, version) in [("new", "0.2.19"), ("old", "0.2.10"), ("range", "'>=0.2.12'")] {
            files["clusters/prod/csi-\(name).yaml"] = release("seaweedfs-csi-driver", version: version, values: """
                seaweedfsCsiPlugin: {image: chrislusf/seaweedfs-csi-driver}

            """)
        }
        let found = try lint(files).filter { $0.rule == "image-missing-tag" }.rendered
        #expect(found == ["image-missing-tag clusters/prod/csi-old.yaml:11:33", "image-missing-tag clusters/prod/csi-range.yaml:11:33",
                          "image-missing-tag clusters/prod/kubecost.yaml:13:27", "image-missing-tag clusters/prod/plane.yaml:12:20"], "\(found)")
    }

    /// A chart kept in the repository: its own values.yaml sets what runs wherever the release does not override the
    /// field (the issue's `registry:2`); a release that sets the tag, or the whole image, takes that field's default away.
    @Test func aChartsOwnValuesAreJudgedWhereTheReleaseDoesNotOverrideThem() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps")
        files["charts/web/Chart.yaml"] = "apiVersion: v2\nname: web\nversion: 1.0.0\n"
        files["charts/web/values.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: latest\nsidecar:\n  image: ghcr.io/acme/proxy:latest\n"
        func release(_ values: String) -> String {
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  chart:\n    spec:\n"
                + "      chart: ./charts/web\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n" + values
        }
        files["apps/web.yaml"] = release("")
        var res = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag charts/web/values.yaml:3:8",
                                                              "error image-latest-tag charts/web/values.yaml:5:10"], "\(res)")
        #expect(res.first?.message == "image 'ghcr.io/acme/web:latest' uses the tag 'latest', which moves with every push: pin a version or a "
                + "digest (the default in the chart's own values.yaml, which HelmRelease apps/web does not override)")
        // the release sets the tag, and the sidecar's whole image: neither default runs
        files["apps/web.yaml"] = release("  values:\n    image: {tag: 1.4.2}\n    sidecar: {image: ghcr.io/acme/proxy:2.0.1}\n")
        res = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(res.rendered == [], "\(res)")
        // the release sets only the repository: the chart's tag still runs
        files["apps/web.yaml"] = release("  values:\n    image: {repository: ghcr.io/acme/web2}\n")
        res = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(res.rendered == ["image-latest-tag charts/web/values.yaml:3:8", "image-latest-tag charts/web/values.yaml:5:10"], "\(res)")
        // two releases of the chart that keep a default: one finding for the field, naming both
        files["apps/web2.yaml"] = release("").replacingOccurrences(of: "name: web,", with: "name: web2,")
        res = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(res.map(\.message) == [
            "image 'ghcr.io/acme/web:latest' uses the tag 'latest', which moves with every push: pin a version or a digest (the default in "
                + "the chart's own values.yaml, which HelmReleases apps/web, apps/web2 do not override)",
            "image 'ghcr.io/acme/proxy:latest' uses the tag 'latest', which moves with every push: pin a version or a digest (the default in "
                + "the chart's own values.yaml, which HelmReleases apps/web, apps/web2 do not override)"], "\(res)")
    }

    /// armansaa/devops-test-pena: the chart's default tag carries a marker, and the release sets the tag in values read
    /// here (its `spec.values`, or a ConfigMap its `valuesFrom` names that a kustomization generates from a file): the
    /// default never runs, and the marker does not make it an image of its own that is judged as deployed.
    @Test func aMarkedDefaultEveryReleaseOverridesIsNotDeployed() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps")
        files["charts/web/Chart.yaml"] = "apiVersion: v2\nname: web\nversion: 1.0.0\n"
        files["charts/web/values.yaml"] = "image:\n  repository: ghcr.io/acme/web\n  tag: latest # {\"$imagepolicy\": \"apps:web:tag\"}\n"
        files["apps/policy.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: web, namespace: apps}\n"
            + "spec:\n  imageRepositoryRef: {name: web}\n  policy: {alphabetical: {order: asc}}\n---\n"
            + "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: web, namespace: apps}\nspec: {image: ghcr.io/acme/web}\n"
        func release(_ rest: String) -> String {
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  chart:\n    spec:\n"
                + "      chart: ./charts/web\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n" + rest
        }
        func latest() throws -> [String] { try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }.map { "\($0.severity) \($0.rendered)" } }
        files["apps/web.yaml"] = release("")
        #expect(try latest() == ["error image-latest-tag charts/web/values.yaml:3:8"])
        files["apps/web.yaml"] = release("  values:\n    image: {tag: 1.4.2}\n")
        #expect(try latest() == [])
        // the tag from a ConfigMap the release's kustomization generates from a file
        files["apps/web.yaml"] = release("  valuesFrom:\n    - {kind: ConfigMap, name: web-values, valuesKey: values.yaml}\n")
        files["apps/kustomization.yaml"] = "resources: [web.yaml, policy.yaml]\nconfigMapGenerator:\n"
            + "  - {name: web-values, namespace: apps, files: [values.yaml]}\ngeneratorOptions: {disableNameSuffixHash: true}\n"
        files["apps/values.yaml"] = "image:\n  tag: 1.4.2\n"
        #expect(try latest() == [])
        // a values file that leaves the tag alone: the default runs
        files["apps/values.yaml"] = "replicaCount: 2\n"
        #expect(try latest() == ["error image-latest-tag charts/web/values.yaml:3:8"])
        // a ConfigMap not in the repository: what it sets is not known here, and the marked field is judged as before
        files["apps/web.yaml"] = release("  valuesFrom:\n    - {kind: ConfigMap, name: elsewhere}\n")
        #expect(try latest() == ["error image-latest-tag charts/web/values.yaml:3:8"])
    }

    /// loki-stack's logstash values (MTRNord/cluster): `image:` names the image and `imageTag:` beside it is its tag; a
    /// values field that gives only a tag, with no marker to say whose, is judged on the premise that the chart runs it.
    @Test func anImageBesideItsImageTagIsOneReference() throws {
        let release = { (tag: String) in """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: loki, namespace: monitoring}
        spec:
          values:
            logstash:
              image: grafana/logstash-output-loki
              imageTag: \(tag)
            policyReportsCleanup:
              image:
                registry: mirror.example.com
                tag: latest

        """ }
        let res = try lint(["apps/loki.yaml": release("3.2.2")]).filter { $0.rule.hasPrefix("image-") }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag apps/loki.yaml:12:14"], "\(res)")
        #expect(res.first?.message == "the image whose tag this field sets uses the tag 'latest', which moves with every push: pin a version "
                + "or a digest (assuming the chart runs an image with this tag: the image's name is the chart's own, not read here)")
        let latest = try lint(["apps/loki.yaml": release("latest")]).filter { $0.rule == "image-latest-tag" }
        #expect(latest.map { "\($0.severity) \($0.rendered) \($0.message.prefix(46))" }
                == ["error image-latest-tag apps/loki.yaml:8:17 image 'grafana/logstash-output-loki:latest' us",
                    "warning image-latest-tag apps/loki.yaml:12:14 the image whose tag this field sets uses the t"], "\(latest)")
        // `repo` beside the tag under `image:` names the image (tailscale-operator's chart; HadiCherkaoui/homelab-k8s-fluxcd)
        let repo = release("3.2.2").replacingOccurrences(of: "registry: mirror.example.com", with: "repo: registry.example.com/acme/anvil")
        #expect(try lint(["apps/loki.yaml": repo]).filter { $0.rule == "image-latest-tag" }.map { "\($0.severity) \($0.rendered) \($0.message.prefix(46))" }
                == ["error image-latest-tag apps/loki.yaml:12:14 image 'registry.example.com/acme/anvil:latest'"])
    }

    /// Renovate pins charts' images as `tag: v1.60.0@sha256:…`: the chart renders `repository:tag`, a reference with
    /// both, so the image is pinned and its tag is the part before `@`; beside a digest field as well (shamubernetes'
    /// tailscale-operator), the chart renders one digest, never `:tag@digest@digest`.
    @Test func aTagFieldThatCarriesTheDigestPinsTheImage() throws {
        var files: [String: String] = [:]
        let sha = "sha256:" + String(repeating: "5f", count: 32)
        files["apps/production/hr.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: web, namespace: production}
        spec:
          values:
            app:
              image:
                repository: ghcr.io/acme/web
                tag: v1.60.0@\(sha)
            proxy:
              image: {repository: ghcr.io/acme/proxy, tag: "latest@\(sha)"}
            worker:
              image: {repository: ghcr.io/acme/worker, tag: "1.0.0@sha256:5f5f"}
            job:
              image: {repository: ghcr.io/acme/job, tag: "1.0.0"}
            operator:
              image: {repository: ghcr.io/acme/operator, tag: "v1.9.0@\(sha)", digest: "\(sha)"}

        """
        files["apps/production/db.yaml"] = pod("db", images: ["ghcr.io/acme/db"])
        files["apps/production/kustomization.yaml"] = """
        resources: [hr.yaml, db.yaml]
        images:
          - {name: ghcr.io/acme/db, newTag: "16.2@\(sha)"}

        """
        let res = try lint(files, profile: "strict")
        #expect(res.rendered == [
            "image-invalid-reference apps/production/hr.yaml:13:27",
            "image-not-pinned apps/production/hr.yaml:15:27",
        ])
        let messages = res.map(\.message)
        #expect(messages[1] == "production requires digests: give the chart the digest of 'ghcr.io/acme/job:1.0.0': a `digest: sha256:<digest>` value "
                + "beside the tag where the chart reads one, else `tag: 1.0.0@sha256:<digest>`")
        // a kustomize entry's newTag that carries a digest beside its own digest: kustomize writes both (`kubectl kustomize`)
        files["apps/production/kustomization.yaml"] = files["apps/production/kustomization.yaml"]!
            .replacingOccurrences(of: "newTag: \"16.2@\(sha)\"}", with: "newTag: \"16.2@\(sha)\", digest: \"\(sha)\"}")
        let both = try lint(files, profile: "strict").rendered
        #expect(both.contains("image-invalid-reference apps/production/kustomization.yaml:3:12"), "\(both)")
    }

    /// devantler/homelab (homepage's chart): `background.image` holds a web address, a picture, not a container image;
    /// the same address where a container's image goes is still judged.
    @Test func aWebAddressInChartValuesIsAPictureNotAnImage() throws {
        let files = ["apps/home.yaml": """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: homepage, namespace: apps}
        spec:
          values:
            config:
              settings:
                background: {image: "https://images.example.com/photo-1?q=80&w=1974", blur: sm}
            sidecar:
              image: "https://ghcr.io/acme/web:1.0.0"

        """, "apps/pod.yaml": pod("web", images: ["https://ghcr.io/acme/web:1.0.0"])]
        #expect(try lint(files).filter { $0.rule.hasPrefix("image-") }.rendered == ["image-invalid-reference apps/pod.yaml:8:14"])
    }

    /// xunholy/k8s-gitops (kguardian's chart): `sha: sha256:…` beside the tag pins the image as `digest:` does; the bare
    /// hex digits some charts read there are not taken for a digest, and the tag is judged.
    @Test func aShaFieldHoldingADigestPinsTheChartsImage() throws {
        let hex = String(repeating: "5f", count: 32)
        func release(_ sha: String) -> [String: String] { ["apps/db.yaml": """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: db, namespace: apps}
        spec:
          values:
            database:
              image: {repository: ghcr.io/acme/db, tag: "1.2", sha: "\(sha)"}

        """] }
        #expect(try lint(release("sha256:" + hex)).filter { $0.rule.hasPrefix("image-") }.rendered == [])
        let bare = try lint(release(hex)).filter { $0.rule.hasPrefix("image-") }
        #expect(bare.rendered == ["image-floating-tag apps/db.yaml:7:49"], "\(bare)")
    }

    @Test func anImagesEntryThatMatchesNothingIsReported() throws {
        var files: [String: String] = [:]
        files["base/kustomization.yaml"] = """
        resources: [app.yaml, crd.yaml]
        images:
          - {name: web, newName: ghcr.io/acme/web}

        """
        files["base/app.yaml"] = pod("app", images: ["web", "nginx:1.25.3"])
        files["base/crd.yaml"] = "apiVersion: acme.io/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  runner:\n    containers:\n      - image: ghcr.io/acme/runner:1.0.0\n"
        files["overlays/production/kustomization.yaml"] = """
        resources: [../../base]
        images:
          - {name: ghcr.io/acme/wbe, newTag: 1.4.1}
          - {name: ghcr.io/acme/web, newTag: 1.4.1}
          - {name: docker.io/library/nginx, newTag: 1.25.4}
          - {name: ghcr.io/acme/runner, newTag: 1.0.1}
          - {name: ghcr.io/acme/gone, newTag: 1.0.0}

        """
        // `bases:` is the older name of `resources:`
        files["legacy/kustomization.yaml"] = "bases: [../base]\nimages:\n  - {name: ghcr.io/acme/web, newTag: 1.4.1}\n"
        // what cannot be known is not judged: a chart kustomize inflates, a remote base, a path the repository lacks
        files["charts/kustomization.yaml"] = "helmCharts:\n  - {name: podinfo, repo: https://stefanprodan.github.io/podinfo}\nimages:\n  - {name: ghcr.io/x/y, newTag: 1.0.0}\n"
        files["remote/kustomization.yaml"] = "resources: [github.com/acme/base//app?ref=v1]\nimages:\n  - {name: ghcr.io/x/y, newTag: 1.0.0}\n"
        files["missing/kustomization.yaml"] = "resources: [../nowhere]\nimages:\n  - {name: ghcr.io/x/y, newTag: 1.0.0}\n"
        // a Flux Kustomization's spec.images apply to what its path builds
        files["clusters/apps.yaml"] = fluxKustomization(path: "./base", spec: "  images:\n    - {name: ghcr.io/acme/web, newTag: 1.0.0}\n    - {name: ghcr.io/acme/api, newTag: 1.0.0}\n")
        // the cluster applies the other builds too (what no Flux Kustomization applies is not deployed)
        files["clusters/others.yaml"] = fluxKustomizations([("production", "./overlays/production"), ("legacy", "./legacy"), ("charts", "./charts"),
                                                                ("remote", "./remote"), ("missing", "./missing")])
        let res = try lint(files)
        let unmatched = res.filter { $0.rule == "image-entry-unmatched" }
        #expect(unmatched.map(\.position) == [
            "clusters/apps.yaml:8:14", "overlays/production/kustomization.yaml:3:12", "overlays/production/kustomization.yaml:5:12",
            "overlays/production/kustomization.yaml:7:12",
        ])
        // (the Flux Kustomizations of clusters/ are applied by nothing here: each message ends with that premise)
        let premise = " (cluster clusters is taken to be applied from outside this repository (nothing here applies clusters/apps.yaml, "
            + "clusters/others.yaml); declare it under clusters: in .tagwarden.yaml)"
        #expect(unmatched.allSatisfy { $0.message.hasSuffix(premise) })
        #expect(unmatched.map { $0.message.replacingOccurrences(of: premise, with: "") } == [
            // (base renames web: the build has no image of that name)
            "images: entry 'ghcr.io/acme/api' matches no image of the build of Flux Kustomization flux-system/apps, so kustomize leaves "
                + "the images as they are (its images include 'ghcr.io/acme/web', 'nginx')",
            "images: entry 'ghcr.io/acme/wbe' matches no image of this kustomization's build, so kustomize leaves the images as they are: "
                + "did you mean 'ghcr.io/acme/web'?",
            "images: entry 'docker.io/library/nginx' matches no image of this kustomization's build, so kustomize leaves the images as "
                + "they are: kustomize compares names as written, and the build writes this image 'nginx'",
            "images: entry 'ghcr.io/acme/gone' matches no image of this kustomization's build, so kustomize leaves the images as they are "
                + "(its images include 'ghcr.io/acme/web', 'nginx')",
        ])
    }

    /// kustomize applies `images:` entries one after another, a Component's before the kustomization's own: an entry
    /// for a name that an earlier `newName` changed misses, and the base's tag runs (found by
    /// scripts/kustomize-vs-tagwarden against `kubectl kustomize`).
    @Test func anEntryForANameAnEarlierEntryRenamedMisses() throws {
        var files: [String: String] = [:]
        files["base/kustomization.yaml"] = "resources: [app.yaml]\n"
        files["base/app.yaml"] = pod("app", images: ["ghcr.io/acme/web:latest", "ghcr.io/acme/api:latest", "ghcr.io/acme/job:latest"])
        files["components/mirror/kustomization.yaml"] = """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        images:
          - {name: ghcr.io/acme/api, newName: mirror.acme.io/api}

        """
        files["overlay/kustomization.yaml"] = """
        resources: [../base]
        components: [../components/mirror]
        images:
          - {name: ghcr.io/acme/web, newName: mirror.acme.io/web}
          - {name: ghcr.io/acme/web, newTag: 1.0.0}
          - {name: ghcr.io/acme/api, newTag: 1.0.0}
          - {name: ghcr.io/acme/job, newName: mirror.acme.io/job}
          - {name: mirror.acme.io/job, newTag: 1.0.0}

        """
        // web and api keep `latest` (their retag comes after a rename); job's retag follows its new name
        #expect(try lint(files).rendered == ["image-latest-tag base/app.yaml:8:14", "image-latest-tag base/app.yaml:10:14"])
    }

    /// mwdavisii/gitops-service-example: a template's placeholder entry (`name: <container url>`, `newName: <container
    /// url>`) matches nothing, so its reference lands nowhere and is no invalid image; an entry's own `newName`, or a
    /// later entry's, is no image its name can match (checked with `kubectl kustomize`: `nginx` stays, and `foo:v2`
    /// only when the rename comes first).
    @Test func anEntryMatchesOnlyNamesThatEarlierEntriesMade() throws {
        var files: [String: String] = [:]
        files["base/kustomization.yaml"] = "resources: [app.yaml]\n"
        files["base/app.yaml"] = pod("app", images: ["nginx:1.25.4"])
        files["overlay/kustomization.yaml"] = """
        resources: [../base]
        images:
          - name: <container url>
            newName: <container url>
            newTag: v1.2.3
          - {name: foo, newTag: v2}
          - {name: nginx, newName: foo}
          - {name: foo, newTag: 3.0.1}

        """
        let res = try lint(files)
        #expect(res.rendered == ["image-entry-unmatched overlay/kustomization.yaml:3:11", "image-entry-unmatched overlay/kustomization.yaml:6:12"],
                "\(res.rendered)")
    }

    /// martijnjanssen/cluster-ops: the image's policy ranks build numbers (`^[0-9]*$`, numerical), so `687` is a build,
    /// marked or not; nicolerenee/infra's netdisco `2.098002` is Perl's version numbering, no series (a series' minor
    /// number has no leading zero). An image no policy ranks so keeps the assumption.
    @Test func shortVersionsThatTheRepositorySaysAreReleases() throws {
        var files: [String: String] = [:]
        files["flux/bite.yaml"] = imageRepository(name: "bite", image: "ghcr.io/acme/bite") + "---\n"
            + imagePolicy(name: "bite", pattern: "^[0-9]*$", order: .numerical("asc"))
        files["apps/bite.yaml"] = deployment(name: "bite", namespace: "apps", image: "ghcr.io/acme/bite:687")
        files["apps/netdisco.yaml"] = deployment(name: "netdisco", namespace: "apps", image: "netdisco/netdisco:2.098002-web")
        files["apps/other.yaml"] = deployment(name: "other", namespace: "apps", image: "ghcr.io/acme/other:687")
        let res = try lint(files).filter { $0.rule == "image-floating-tag" }
        #expect(res.rendered == ["image-floating-tag apps/other.yaml:9:18"], "\(res.rendered)")
    }

    /// kingdon-ci/fleet-infra: a configMapGenerator's data file has Flux write a tag into `content-hash` to roll a
    /// deployment: the field is a value, not an image, so only what Flux writes there is judged; a key that reads as an
    /// image's tag is one.
    @Test func aTagMarkerOnAValueThatIsNoImagesIsJudgedAsAMarkerOnly() throws {
        var files: [String: String] = [:]
        files["app/kustomization.yaml"] = "resources: [d.yaml]\nconfigMapGenerator:\n  - {name: edition, files: [values.yaml]}\n"
        files["app/d.yaml"] = deployment(namespace: "apps", image: "ghcr.io/acme/web:1.2.3")
        files["app/values.yaml"] = "content-hash: v1 # {\"$imagepolicy\": \"flux-system:site:tag\"}\n"
        files["flux/site.yaml"] = imagePolicy(name: "site") + "---\n" + imageRepository(name: "site", image: "ghcr.io/acme/site")
        #expect(try lint(files).rendered == ["marker-value-rejected app/values.yaml:1:18"])
        files["app/values.yaml"] = "webTag: v1 # {\"$imagepolicy\": \"flux-system:site:tag\"}\n"
        #expect(try lint(files).rendered == ["image-floating-tag app/values.yaml:1:9", "marker-value-rejected app/values.yaml:1:12"])
    }

    /// giantswarm/gitops-template: a full-reference marker on an App's `version: '0.1.8'`, a field Tagwarden knows no
    /// image in. The value is read as an image only where it names the image the marker's policy updates: no pod is
    /// known to run `0.1.8`, and what Flux would write there is marker-image-mismatch's.
    @Test func aMarkedFieldIsAnImageWhereItNamesThePolicysImage() throws {
        var files: [String: String] = [:]
        files["flux/web.yaml"] = imagePolicy(name: "web") + "---\n" + imageRepository(name: "web", image: "ghcr.io/acme/web")
        files["apps/app.yaml"] = "apiVersion: application.giantswarm.io/v1alpha1\nkind: App\nmetadata: {name: web}\nspec:\n"
            + "  version: '0.1.8' # {\"$imagepolicy\": \"flux-system:web\"}\n"
        #expect(try lint(files).rendered.filter { $0.hasPrefix("image-") } == [])
        files["apps/app.yaml"] = "apiVersion: application.giantswarm.io/v1alpha1\nkind: App\nmetadata: {name: web}\nspec:\n"
            + "  image: ghcr.io/acme/web # {\"$imagepolicy\": \"flux-system:web\"}\n"
        #expect(try lint(files).rendered.filter { $0.hasPrefix("image-") } == ["image-missing-tag apps/app.yaml:5:10"])
        // the version field again, outside the one automation's update.path: Flux skips the marker and overwrites nothing
        files["apps/app.yaml"] = "apiVersion: application.giantswarm.io/v1alpha1\nkind: App\nmetadata: {name: web}\nspec:\n"
            + "  version: '0.1.8' # {\"$imagepolicy\": \"flux-system:web\"}\n"
        let before = try lint(files, asFound: true).rendered; #expect(before.filter { $0.hasPrefix("marker-") } == ["marker-image-mismatch apps/app.yaml:5:20"], "\(before)")
        files.merge(bootstrapFiles("clusters/mc", flux: "v2.8.0")) { $1 }
        files["flux/automation.yaml"] = imageUpdateAutomation(name: "web", path: "./clusters")
        let after = try lint(files, asFound: true).rendered; #expect(after.filter { $0.hasPrefix("marker-") } == ["marker-ignored apps/app.yaml:5:20"], "\(after)")
    }

    /// T41-Ch1/mystok-gcp-flux-prod: a patch file writes the container's image without a tag, and the kustomization that
    /// applies the patch sets the tag with `images:` (kustomize runs the patches first: `acme/app:2.0.1` runs). Where no
    /// entry sets it, the patch's image runs as written.
    @Test func aPatchFilesImageIsTaggedByTheEntriesOfTheKustomizationThatAppliesIt() throws {
        var files: [String: String] = [:]
        files["base/kustomization.yaml"] = "resources: [d.yaml]\n"
        files["base/d.yaml"] = deployment(name: "app", namespace: "apps", image: "acme/app:1.0.1")
        let patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app, namespace: apps}\n"
            + "spec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: acme/app\n"
        for env in ["staging", "production"] {
            files["\(env)/kustomization.yaml"] = "resources: [../base]\npatches:\n  - target: {kind: Deployment, name: app}\n"
                + "    path: kustomize/patch.yaml\n" + (env == "production" ? "images:\n  - {name: acme/app, newTag: 2.0.1}\n" : "")
            files["\(env)/kustomize/patch.yaml"] = patch
        }
        #expect(try lint(files).rendered == ["image-missing-tag staging/kustomize/patch.yaml:9:18"])
    }

    /// neogan74/k8s-chaos: the kubebuilder layout renames `controller` in `config/manager`, so the deployment overlays'
    /// entries for `controller` match nothing (`kubectl kustomize`: `example.com/k8s-chaos:v0.0.1` runs) and their
    /// `latest` lands nowhere; a label that spells the name is no image.
    @Test func anEntryForANameAnInnerKustomizationRenamedMatchesNothing() throws {
        var files: [String: String] = [:]
        files["config/manager/kustomization.yaml"] = "resources: [manager.yaml]\nimages:\n  - {name: controller, newName: example.com/k8s-chaos, newTag: v0.0.1}\n"
        files["config/manager/manager.yaml"] = deployment(name: "manager", namespace: "system", image: "controller:latest")
        files["deploy/base/kustomization.yaml"] = """
        resources: [../../config/manager]
        labels:
          - pairs: {app.kubernetes.io/component: controller}
        images:
          - {name: controller, newName: ghcr.io/neogan74/k8s-chaos, newTag: latest}

        """
        let res = try lint(files)
        #expect(res.rendered == ["image-entry-unmatched deploy/base/kustomization.yaml:5:12"], "\(res.rendered)")
        #expect(res.first?.message.hasPrefix("images: entry 'controller' matches no image of this kustomization's build, so kustomize "
                                             + "leaves the images as they are (its images include 'example.com/k8s-chaos')") == true, "\(res)")
    }

    /// The kustomize base/overlay layout: a base leaves the tag to the overlays' `images:`; what runs is the
    /// overlays' tag, judged where they write it, and the base is reported only where a build deploys its own.
    @Test func aBaseWhoseOverlaysSetTheTagIsJudgedByTheOverlays() throws {
        var files: [String: String] = [:]
        files["base/kustomization.yaml"] = "resources: [app.yaml]\n"
        files["base/app.yaml"] = pod("app", images: ["ghcr.io/acme/web", "ghcr.io/acme/api:latest", "ghcr.io/acme/worker:main"])
        files["overlays/staging/kustomization.yaml"] = """
        resources: [../../base]
        images:
          - {name: ghcr.io/acme/web, newTag: 1.0.0}
          - {name: ghcr.io/acme/api, newTag: latest}
          - {name: ghcr.io/acme/worker, newName: ghcr.io/acme/worker2}

        """
        files["overlays/production/kustomization.yaml"] = """
        bases: [../../base]
        components: [../../components/tags]
        images:
          - name: ghcr.io/acme/web
            digest: sha256:\(String(repeating: "a", count: 64))

        """
        files["components/tags/kustomization.yaml"] = """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        images:
          - {name: ghcr.io/acme/api, newTag: 2.0.0}

        """
        // the overlays are applied by the cluster
        files["clusters/overlays.yaml"] = fluxKustomizations([("staging", "./overlays/staging"), ("production", "./overlays/production")])
        // built by Flux Kustomizations: one that sets the tag, one that does not
        files["flux-base/kustomization.yaml"] = "resources: [app.yaml]\n"
        files["flux-base/app.yaml"] = pod("flux-app", images: ["ghcr.io/acme/flux-app", "ghcr.io/acme/flux-tool"])
        files["clusters/flux.yaml"] = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: a, namespace: flux-system}
        spec:
          path: ./flux-base
          images:
            - {name: ghcr.io/acme/flux-app, newTag: 1.0.0}
            - {name: ghcr.io/acme/flux-tool, newTag: 1.0.0}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: b, namespace: flux-system}
        spec:
          path: ./flux-base
          images:
            - {name: ghcr.io/acme/flux-app, newTag: 1.0.0}

        """
        let res = try lint(files)
        // web: every overlay sets it; api: staging's own entry and production's Component set it (staging's
        // `latest` is what runs there, reported where it is written)
        #expect(res.rendered == [
            "image-floating-tag base/app.yaml:12:14",        // worker: the staging overlay renames it and keeps 'main'
            "image-missing-tag flux-base/app.yaml:10:14",    // flux-tool: Kustomization b deploys it untagged
            "image-latest-tag overlays/staging/kustomization.yaml:4:38",
        ])
        // a Flux Kustomization that builds the base itself deploys what the base writes
        files["clusters/base.yaml"] = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: c, namespace: flux-system}\nspec:\n  path: ./base\n"
        #expect(try lint(files).rendered == [
            "image-missing-tag base/app.yaml:8:14",
            "image-latest-tag base/app.yaml:10:14",
            "image-floating-tag base/app.yaml:12:14",
            "image-missing-tag flux-base/app.yaml:10:14",
            "image-latest-tag overlays/staging/kustomization.yaml:4:38",
        ])
    }

    /// kltn-healthcare/healthcare-manifests: a base's own `images:` entry gives the image `latest`, and the overlays set
    /// the tag again (kustomize applies the base's entries, then the overlay's to the name they leave): the base's tag
    /// runs nowhere. Where one overlay keeps it, the finding names the build that deploys it.
    @Test func aBasesEntryWhoseOverlaysSetTheTagAgainIsJudgedByTheOverlays() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["base/kustomization.yaml"] = "resources: [app.yaml]\nimages:\n  - {name: web-image, newName: ghcr.io/acme/web, newTag: latest}\n"
        files["base/app.yaml"] = pod("app", images: ["web-image"])
        files["overlays/production/kustomization.yaml"] = "resources: [../../base]\nimages:\n  - {name: ghcr.io/acme/web, newTag: 1.2.3}\n"
        files["overlays/staging/kustomization.yaml"] = "resources: [../../base]\nimages:\n  - {name: ghcr.io/acme/web, newTag: 1.2.4}\n"
        files["clusters/prod/apps.yaml"] = fluxKustomizations([("production", "./overlays/production"), ("staging", "./overlays/staging")])
        #expect(try lint(files).rendered == [])
        // a Flux Kustomization's spec.images sets it again too
        files["clusters/prod/base.yaml"] = fluxKustomization(name: "base", path: "./base", spec: "  images:\n    - {name: ghcr.io/acme/web, newTag: 1.0.0}\n")
        #expect(try lint(files).rendered == [])
        // the staging overlay keeps the base's tag
        files["overlays/staging/kustomization.yaml"] = "resources: [../../base]\n"
        let res = try lint(files)
        #expect(res.rendered == ["image-latest-tag base/kustomization.yaml:3:58"], "\(res.rendered)")
        #expect(res.first?.message.hasSuffix("(deployed with this tag by Flux Kustomization staging (clusters/prod/apps.yaml); the other builds replace or drop it)") == true, "\(res.first?.message ?? "")")
    }

    /// elifesciences/elife-flux-cluster: the cluster's Flux Kustomization sets the tag of a base that a preview overlay,
    /// which no cluster here applies, deploys as written: that the tag runs rests on the preview being applied.
    @Test func aWrittenTagOnlyAnUnreachedBuildDeploysIsAnAssumption() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["base/kustomization.yaml"] = "resources: [app.yaml]\n"
        files["base/app.yaml"] = pod("app", images: ["ghcr.io/acme/web:latest"])
        files["preview/kustomization.yaml"] = "resources: [../base]\n"
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "web", path: "./base", spec: "  images:\n    - {name: ghcr.io/acme/web, newTag: 1.2.3}\n")
        let res = try lint(files, asFound: true)
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag base/app.yaml:8:14"], "\(res.map(\.message))")
        #expect(res.first?.message.hasSuffix("(deployed with this tag by preview/; the other builds replace or drop it) "
                                             + "(assuming that build is applied from outside this repository: no cluster here applies it)") == true, "\(res.first?.message ?? "")")
        // a cluster that applies the preview makes it a fact
        files["clusters/prod/preview.yaml"] = fluxKustomization(name: "preview", path: "./preview")
        #expect(try lint(files, asFound: true).map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag base/app.yaml:8:14"])
    }

    /// fancl20/homeserver-configs: the Flux Kustomization of `./services` adds a Component (`spec.components`) whose
    /// `images:` entries tag every app's image, and Flux's generated kustomization there takes each app's directory,
    /// with or without a kustomization file of its own (`kubectl kustomize` of the kustomization Flux generates: tagged).
    @Test func theEntriesOfAComponentAFluxKustomizationAddsTagWhatItBuilds() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/services.yaml"] = fluxKustomization(name: "services", path: "./services",
                                                                 spec: "  components: [../components/images]\n")
        files["components/images/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nimages:\n"
            + "  - {name: lscr.io/linuxserver/beets, newTag: 2.13.1-ls348}\n  - {name: docker.io/library/mongo, newTag: 8.3.8}\n"
        files["services/beets/deployment.yaml"] = pod("beets", images: ["lscr.io/linuxserver/beets"])
        files["services/unifi/kustomization.yaml"] = "resources: [deployment.yaml]\n"
        files["services/unifi/deployment.yaml"] = pod("unifi", images: ["docker.io/library/mongo", "docker.io/library/nginx"])
        let res = try lint(files)
        // nginx has no entry: it runs untagged, and the finding names the build
        #expect(res.rendered == ["image-missing-tag services/unifi/deployment.yaml:10:14"], "\(res.rendered)")
        // without the Component, each is judged as written
        files["clusters/prod/services.yaml"] = fluxKustomization(name: "services", path: "./services")
        #expect(try lint(files).rendered == ["image-missing-tag services/beets/deployment.yaml:8:14", "image-missing-tag services/unifi/deployment.yaml:8:14",
                                             "image-missing-tag services/unifi/deployment.yaml:10:14"])
        // the generated build's spec.images, the same
        files["clusters/prod/services.yaml"] = fluxKustomization(name: "services", path: "./services",
                                                                 spec: "  images:\n    - {name: docker.io/library/mongo, newTag: 8.3.8}\n")
        #expect(try lint(files).rendered == ["image-missing-tag services/beets/deployment.yaml:8:14", "image-missing-tag services/unifi/deployment.yaml:10:14"])
    }

    /// An app's kustomization below a `path` without one gives its image `latest` with its own entry, and the Flux
    /// Kustomization's `spec.images` on the kustomization Flux generates there sets the tag again: the entry's tag
    /// runs nowhere (entries' images follow the builds above them as containers do).
    @Test func anEntryBelowAGeneratedBuildIsRetaggedByItsSpecImages() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["services/web/kustomization.yaml"] = "resources: [app.yaml]\nimages:\n  - {name: ghcr.io/acme/web, newTag: latest}\n"
        files["services/web/app.yaml"] = pod("web", images: ["ghcr.io/acme/web"])
        files["clusters/prod/services.yaml"] = fluxKustomization(name: "services", path: "./services",
                                                                 spec: "  images:\n    - {name: ghcr.io/acme/web, newTag: 1.2.3}\n")
        #expect(try lint(files).rendered == [])
        files["clusters/prod/services.yaml"] = fluxKustomization(name: "services", path: "./services")
        let found = try lint(files).rendered
        #expect(found == ["image-latest-tag services/web/kustomization.yaml:3:38"], "\(found)")
    }

    /// fancl20/homeserver-configs: kustomize's `images:` entries rewrite the `image` of every item of a `containers` or
    /// `initContainers` list wherever it stands, a HelmRelease's values included (`kubectl kustomize`: the velero
    /// plugin's initContainer comes out tagged); an `image` elsewhere in the values (`sidecar.image`) is left as written.
    @Test func entriesRewriteContainerListsInAReleasesValues() throws {
        var files: [String: String] = [:]
        files["app/kustomization.yaml"] = "resources: [release.yaml]\nimages:\n  - {name: docker.io/velero/velero-plugin-for-aws, newTag: v1.14.2}\n"
            + "  - {name: nginx, newTag: '1.27.3'}\n"
        files["app/release.yaml"] = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: velero, namespace: velero}\nspec:\n"
            + "  values:\n    initContainers:\n      - name: aws\n        image: docker.io/velero/velero-plugin-for-aws\n"
            + "    sidecar:\n      image: nginx\n"
        let res = try lint(files).filter { $0.rule.hasPrefix("image-") }
        #expect(res.rendered == ["image-missing-tag app/release.yaml:10:14"], "\(res.rendered)")
    }

    @Test func jsonPatchesThatWriteContainerImages() throws {
        var files: [String: String] = [:]
        files["apps/production/patch.yaml"] = """
        - op: replace
          path: /spec/template/spec/containers/0/image
          value: nginx:latest
        - op: add
          path: /spec/template/spec/containers/-
          value: {name: side, image: busybox}
        - op: add
          path: /spec/jobTemplate/spec/template/spec/initContainers
          value:
            - {name: init, image: "alpine:edge"}
        - op: test
          path: /spec/template/spec/containers/0/image
          value: redis:latest
        - op: replace
          path: /spec/image
          value: ghcr.io/acme/web
        - op: remove
          path: /spec/template/spec/containers/1/image

        """
        // a test compares without writing; /spec/image is no container's (an ImageRepository's repository)
        let res = try lint(files)
        #expect(res.rendered == [
            "image-latest-tag apps/production/patch.yaml:3:10",
            "image-missing-tag apps/production/patch.yaml:6:30",
            "image-floating-tag apps/production/patch.yaml:10:27",
        ], "\(res.rendered)")
    }

    @Test func inlinePatchesAreReadWhereTheyStand() throws {
        var files: [String: String] = [:]
        // CRLF line ends and a blank line inside the block: positions are the file's all the same
        files["apps/production/kustomization.yaml"] = [
            "apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization", "patches:",
            "  - target: {kind: Deployment}", "    patch: |-", "      - op: replace", "        path: /spec/template/spec/containers/0/image",
            "        value: nginx:latest", "  - patch: |", "      apiVersion: apps/v1", "      kind: Deployment", "      metadata: {name: web}",
            "      spec:", "        template:", "          spec:", "            containers:", "", "              - name: web",
            "                image: \"ghcr.io/acme/web:main\"",
            "  - patch: \"- op: replace\\n  path: /spec/template/spec/containers/0/image\\n  value: busybox\"",
            "patchesStrategicMerge:", "  - |-", "    apiVersion: v1", "    kind: Pod", "    metadata: {name: p}", "    spec:",
            "      containers:", "        - {name: a, image: redis}",
            "  - patch: |", "      apiVersion: helm.toolkit.fluxcd.io/v2", "      kind: HelmRelease", "      metadata: {name: podinfo}",
            "      spec:", "        values:", "          image: {repository: ghcr.io/stefanprodan/podinfo, tag: latest}",
            "resources: [workloads.yaml]", "",
        ].joined(separator: "\r\n")
        // what the patches patch: kustomize applies a patch to nothing when its build has no object of the target's kind
        files["apps/production/workloads.yaml"] = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          template:
            spec:
              containers: [{name: web, image: "ghcr.io/acme/web:1.0.0"}]
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers: [{name: a, image: "redis:7.2.4"}]
        ---
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: podinfo}
        spec:
          values:
            image: {repository: ghcr.io/stefanprodan/podinfo, tag: 6.5.0}

        """
        files["clusters/production/apps.yaml"] = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: apps, namespace: flux-system}
        spec:
          path: ./apps/production
          patches:
            - patch: |
                - op: add
                  path: /spec/template/spec/initContainers
                  value: [{name: init, image: "alpine:edge"}]
        ---
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: podinfo, namespace: podinfo}
        spec:
          postRenderers:
            - kustomize:
                patches:
                  - patch: |
                      - op: replace
                        path: /spec/template/spec/containers/0/image
                        value: ghcr.io/stefanprodan/podinfo:latest

        """
        // a patch in a quoted string (busybox) is not read: its positions do not map back to the file
        let res = try lint(files)
        #expect(res.rendered == [
            "image-latest-tag apps/production/kustomization.yaml:8:16",
            "image-floating-tag apps/production/kustomization.yaml:19:24",
            "image-missing-tag apps/production/kustomization.yaml:28:28",
            "image-latest-tag apps/production/kustomization.yaml:35:66",
            "image-floating-tag clusters/production/apps.yaml:10:39",
            "image-latest-tag clusters/production/apps.yaml:22:24",
        ], "\(res.rendered)")
    }

    @Test func partsWithVariablesAreNotJudged() throws {
        // a tag, digest or registry written with ${…} or {{ … }} is filled in later: no invalid reference
        var files: [String: String] = [:]
        files["kustomization.yaml"] = """
        resources: [pod.yaml, hr.yaml]
        images:
          - {name: ghcr.io/acme/web, newTag: "${WEB_TAG}"}
          - {name: ghcr.io/acme/api, digest: "{{ .Digest }}"}
          - {name: ghcr.io/acme/ok, newTag: "1.0.0"}
          - {name: ghcr.io/acme/bad, newTag: "latest"}

        """
        files["hr.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: x}
        spec:
          values:
            a: {image: {repository: ghcr.io/acme/x, tag: "${X_TAG}"}}
            b: {image: {registry: "${REGISTRY}", repository: acme/z, tag: "1.0"}}
            c: {image: {repository: ghcr.io/acme/y, tag: latest}}

        """
        files["pod.yaml"] = pod("p", images: ["ghcr.io/acme/web", "ghcr.io/acme/api", "ghcr.io/acme/ok", "ghcr.io/acme/bad"])
        let res = try lint(files)
        #expect(res.rendered == ["image-latest-tag hr.yaml:8:50", "image-latest-tag kustomization.yaml:6:38"], "\(res.rendered)")
    }

    @Test func anchorsAliasesAndMergeKeysAreFollowed() throws {
        var files: [String: String] = [:]
        files["d.yaml"] = """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: d
          annotations: {example.com/image: &img ghcr.io/o/a:latest}
        spec:
          template:
            spec:
              containers:
                - &base
                  name: a
                  image: ghcr.io/o/a:1.2.3
                - <<: *base
                  name: b
                - <<: [{name: c}, *base]
                  image: ghcr.io/o/c:1.2.3
                - name: d
                  image: *img
              initContainers:
                - {<<: *base, name: i}
        ---
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: h}
        spec:
          values:
            a: {image: &h "redis:latest"}
            b: {image: *h}

        """
        files["e.yaml"] = "apiVersion: v1\nkind: Pod\nmetadata: {name: e}\nspec:\n  containers:\n    - {name: a, image: *nope}\n"
        // an image given through an alias is reported once, at the anchored value (where the fix goes); an alias
        // naming no anchor is what kubectl refuses
        #expect(try lint(files).rendered == [
            "image-latest-tag d.yaml:5:41", "image-latest-tag d.yaml:27:19", "yaml-syntax e.yaml:6:24",
        ])
    }

    @Test func kustomizeComponents() throws {
        var files: [String: String] = [:]
        // a Component is a kustomization: its images are kustomize images, and the namespace of the
        // kustomization that pulls it in with `components:` reaches the resources it lists
        files["components/img/kustomization.yaml"] = """
        apiVersion: kustomize.config.k8s.io/v1alpha1
        kind: Component
        resources: [policy.yaml]
        images:
          - name: ghcr.io/acme/web
            newTag: latest
            digest: sha256:64d2a1ebcab622e8defe3e4a8a316205912a85d5d16306e6ad587ee38854d489
          - name: ghcr.io/acme/api
            newTag: main # {"$imagepolicy": "flux-system:api:tag"}

        """
        files["components/img/policy.yaml"] = """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata:
          name: api
        spec:
          imageRepositoryRef: {name: api}
          policy: {semver: {range: ">=1.0.0"}}

        """
        files["components/img/repo.yaml"] = """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata:
          name: api
          namespace: apps
        spec:
          image: ghcr.io/acme/api

        """
        files["overlay/kustomization.yaml"] = """
        namespace: apps
        components: [../components/img]
        resources: [../components/img/repo.yaml]

        """
        let report = try lintReport(files)
        #expect(report.findings.rendered == [
            "image-entry-unmatched components/img/kustomization.yaml:5:11",   // the overlay has no web container
            "image-floating-tag components/img/kustomization.yaml:9:13",
            "marker-unknown-policy components/img/kustomization.yaml:9:18",
            "policy-unused components/img/policy.yaml:2:7",
        ])
        #expect(report.summary.images == 2)
        let messages = report.findings.map(\.message)
        #expect(messages[0] == "images: entry 'ghcr.io/acme/web' matches no image of the builds that include this Component, "
                + "so kustomize leaves the images as they are (it has no container images)")
        #expect(messages[2] == "no ImagePolicy flux-system/api in the repository, so Flux never updates this field: did you mean 'apps:api'?")
        #expect(messages[3].hasPrefix("no $imagepolicy marker uses policy apps/api"))
    }

    @Test func namespaceFromFluxKustomizationTargets() throws {
        var files: [String: String] = [:]
        files[".tagwarden.yaml"] = "profile: strict\npromotedImages: [\"ghcr.io/acme/*\"]\n"
        func target(_ ns: String) -> String {
            fluxKustomization(name: "apps-\(ns)", path: "./apps/base", spec: "  targetNamespace: \(ns)\n")
        }
        files["apps/base/web.yaml"] = pod("web", images: ["ghcr.io/acme/web:staging-v1.2.3-abcdef0-1700000000"])
        files["clusters/aa/apps.yaml"] = target("production")
        // one Flux Kustomization deploys the base into production: production's rules apply
        #expect(try lint(files).rendered == ["image-env-prefix apps/base/web.yaml:8:14", "image-not-pinned apps/base/web.yaml:8:14"])
        // another deploys it into staging too: the namespace is open, as when kustomize overlays disagree
        files["clusters/zz/apps.yaml"] = target("staging")
        let open = try lint(files)
        #expect(open.rendered == [], "\(open.rendered)")
        // a Kustomization whose path is an overlay that includes the base deploys the base too
        files["clusters/zz/apps.yaml"] = nil
        files["apps/overlay/kustomization.yaml"] = "resources:\n  - ../base\n"
        files["apps/base/kustomization.yaml"] = "resources:\n  - web.yaml\n"   // (else kustomize refuses the directory)
        files["clusters/aa/apps.yaml"] = fluxKustomization(path: "./apps/overlay", spec: "  targetNamespace: production\n")
        #expect(try lint(files).rendered == ["image-env-prefix apps/base/web.yaml:8:14", "image-not-pinned apps/base/web.yaml:8:14"])
    }

    @Test func suppressions() throws {
        var files: [String: String] = [:]
        files["a.yaml"] = """
        apiVersion: v1
        kind: Pod
        metadata:
          name: a
        spec:
          containers:
            - name: a
              image: nginx:latest # tagwarden:ignore image-latest-tag vendor ships no versions
            - name: b
              # tagwarden:ignore image-latest-tag,image-floating-tag one comment, two rules
              image: redis:latest
            - name: c
              image: redis:edge # tagwarden:ignore image-latest-tag wrong rule
            # tagwarden:ignore image-latst-tag typo

        """
        let res = try lint(files)
        #expect(res.rendered == [
            "suppression-unused a.yaml:10:7",
            "image-floating-tag a.yaml:13:14",
            "suppression-unused a.yaml:13:25",
            "suppression-unused a.yaml:14:5",
        ])
        let messages = res.map(\.message)
        #expect(messages[0] == "tagwarden:ignore image-floating-tag suppresses nothing on this line or the next: remove it")
        #expect(messages[3] == "tagwarden:ignore names an unknown rule 'image-latst-tag' (did you mean 'image-latest-tag'?)")
    }
}
