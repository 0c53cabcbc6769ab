import TagwardenFixtures
import Testing
@testable import TagwardenModel
@testable import TagwardenLint
import TagwardenYAML

/// What the repository says of the clusters: the Flux each runs (its components' version label or CRDs), what its
/// Kustomizations apply and substitute, and where its automations' paths lead. In-process; what the binary shows of
/// them (the report's header, `env`, `init`, git) is in TruthTests.
@Suite struct TruthRuleTests {
    /// `rule:line:severity` of the api findings of `file`.
    func apiFindings(_ res: [Finding], _ file: String) -> [String] {
        res.filter { $0.rule.hasPrefix("api-") && $0.file == file }.map { "\($0.rule):\($0.line):\($0.severity.rawValue)" }
    }

    @Test func specImagesOfEveryFluxKustomizationRetagAFolderWithoutAKustomizationFile() throws {
        // MonBusinessApp/Infrastructure: apps/split-app-backend has no kustomization.yaml; the Flux Kustomization of each
        // cluster builds it with spec.images setting the tag, so the `:main` written in the deployment never runs
        var files: [String: String] = [:]
        for cluster in ["dev", "local"] {
            files["clusters/\(cluster)/app.yaml"] = fluxKustomization(path: "./apps/split-app-backend", spec: """
              images:
                - name: ghcr.io/diezfx/split-app-backend
                  newTag: main-793d3481-1705427332
            """)
        }
        files["apps/split-app-backend/deployment.yaml"] = pod("backend", images: ["ghcr.io/diezfx/split-app-backend:main"])
        files["apps/split-app-backend/debug.yaml"] = pod("debug", images: ["ubuntu:latest"])
        let res = try lint(files)
        #expect(res.rendered == ["image-latest-tag apps/split-app-backend/debug.yaml:8:14"], "\(res.rendered)")
        // one cluster without the entry: the written tag runs there
        files["clusters/local/app.yaml"] = fluxKustomization(path: "./apps/split-app-backend")
        let partly = try lint(files)
        #expect(partly.rendered.contains("image-floating-tag apps/split-app-backend/deployment.yaml:8:14"), "\(partly.rendered)")
    }

    /// gavinmcfall/home-ops: `./apps` has no kustomization, and the one Flux generates takes each directory below that
    /// has one and looks no deeper (its walk skips the directory). The namespace's kustomization comments out `aaa`'s
    /// ks.yaml, so nothing applies `aaa/app`, though `aaa/app` holds a kustomization of its own.
    @Test func theGeneratedKustomizationTakesTheShallowestKustomizationBelow() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/ns1/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
            + "  # - ./aaa/ks.yaml\n  - ./bbb/ks.yaml\n"
        for app in ["aaa", "bbb"] {
            files["apps/ns1/\(app)/ks.yaml"] = fluxKustomization(name: app, path: "./apps/ns1/\(app)/app")
            files["apps/ns1/\(app)/app/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deploy.yaml\n"
            files["apps/ns1/\(app)/app/deploy.yaml"] = pod(app, images: ["nginx:latest"])
        }
        let found = try lint(files, asFound: true).map { "\($0.severity) \($0.rendered)" }
        #expect(found == ["warning image-latest-tag apps/ns1/aaa/app/deploy.yaml:8:14", "error image-latest-tag apps/ns1/bbb/app/deploy.yaml:8:14"],
                "\(found)")
    }

    @Test func theComponentsCRDsSayWhatIsServed() throws {
        // no version label: the CustomResourceDefinitions of the cluster's components decide
        var files = bootstrapFiles("clusters/prod", flux: nil, crds: """
        ---
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: imagepolicies.image.toolkit.fluxcd.io
        spec:
          group: image.toolkit.fluxcd.io
          names: {kind: ImagePolicy}
          scope: Namespaced
          versions:
            - {name: v1beta1, served: true}
            - {name: v1beta2, served: true}

        """)
        files["clusters/prod/policy.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata:\n  name: web\n  namespace: flux-system\n"
        let res = try lint(files)
        #expect(apiFindings(res, "clusters/prod/policy.yaml") == ["api-removed:1:error"])
        let message = res.first { $0.rule == "api-removed" }?.message ?? ""
        #expect(message == "image.toolkit.fluxcd.io/v1 ImagePolicy is not served by the Flux components of cluster clusters/prod (their CustomResourceDefinition "
                + "of ImagePolicy serves v1beta2, v1beta1): the API server refuses it, and whatever applies it fails (a Flux Kustomization as a whole); use image.toolkit.fluxcd.io/v1beta2")
    }

    @Test func commitTemplatesFollowTheClustersFlux() throws {
        // 2.2: no .Values yet (an error); 2.6: .Updated works, and 2.7 removes it (a warning); 2.7: removed (an error)
        for (version, expected) in [("v2.2.0", ["automation-invalid-template:13:error"]), ("v2.6.0", ["automation-invalid-template:13:warning"]),
                                    ("v2.7.0", ["automation-invalid-template:13:error"])] {
            var files = bootstrapFiles("clusters/prod", flux: version)
            let api = version == "v2.7.0" ? "v1" : "v1beta1"
            files["clusters/prod/auto.yaml"] = """
            apiVersion: image.toolkit.fluxcd.io/\(api)
            kind: ImageUpdateAutomation
            metadata:
              name: auto
              namespace: flux-system
            spec:
              sourceRef: {kind: GitRepository, name: flux-system}
              update: {path: ./clusters/prod}
              git:
                push: {branch: main}
                commit:
                  author: {email: bot@example.com}
                  messageTemplate: '{{range .Updated.Images}}{{println .}}{{end}} {{ .Values.cluster }}'

            """
            let res = try lint(files)
            let got = res.filter { $0.rule == "automation-invalid-template" }.map { "\($0.rule):\($0.line):\($0.severity.rawValue)" }
            #expect(got == expected, "Flux \(version): \(got)")
            let message = res.first { $0.rule == "automation-invalid-template" }?.message ?? ""
            // 2.2 has no .Values yet (2.5); 2.7 removed .Updated
            if version == "v2.2.0" { #expect(message.hasPrefix("messageTemplate reads .Values.cluster (line 13, column"), "\(message)") }
            if version == "v2.7.0" { #expect(message.hasPrefix("messageTemplate uses .Updated (line 13, column"), "\(message)") }
            if version == "v2.6.0" { #expect(message.contains("which Flux 2.7 removes") && message.hasSuffix("use .Changed, which it serves"), "\(message)") }
        }
    }

    @Test func aKustomizationsNamespaceOverridesTheOneWritten() throws {
        var files: [String: String] = [:]
        files["apps/web/kustomization.yaml"] = "namespace: apps\nresources: [policy.yaml, deploy.yaml, roles.yaml]\n"
        files["apps/web/policy.yaml"] = """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata:
          name: web
          namespace: flux-system
        spec:
          imageRepositoryRef: {name: web, namespace: flux-system}
          policy: {semver: {range: '>=1.0.0'}}

        """
        files["apps/web/deploy.yaml"] = """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
          namespace: flux-system
        spec:
          template:
            spec:
              containers:
                - name: web
                  image: ghcr.io/acme/web:1.0.0 # {"$imagepolicy": "flux-system:web"}

        """
        // cluster-scoped: no namespace, whatever the kustomization says
        files["apps/web/roles.yaml"] = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n---\n"
                    + "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n"
        // the repository lets the policy's namespace use the repository through the API server's own label
        files["flux/repo.yaml"] = """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata:
          name: web
          namespace: flux-system
        spec:
          image: ghcr.io/acme/web
          accessFrom:
            namespaceSelectors:
              - matchLabels: {kubernetes.io/metadata.name: apps}
        ---
        apiVersion: v1
        kind: Namespace
        metadata:
          name: apps

        """
        let res = try lint(files)
        // the policy no marker names where it is: unused (a note)
        #expect(res.rendered == ["marker-unknown-policy apps/web/deploy.yaml:11:41", "policy-unused apps/web/policy.yaml:2:7",
                                 "kustomization-build-fails apps/web/roles.yaml:7:7"], "\(res.rendered)")
        let messages = res.map(\.message)
        #expect(messages[1] == "no $imagepolicy marker uses policy apps/web: it selects tags nobody deploys")
        #expect(messages[0] == "no ImagePolicy flux-system/web in the repository, so Flux never updates this field: ImagePolicy web of apps/web/policy.yaml "
                + "is written in flux-system, but the kustomization apps/web/kustomization.yaml sets namespace: apps, so it is apps/web: write 'apps:web'")
        // (one kustomize build takes both: kustomize refuses it, and says the name without a namespace)
        #expect(messages[2].hasPrefix("kustomize refuses the build: the kustomization apps/web/kustomization.yaml takes ClusterRole reader twice, "
                                      + "here and in apps/web/roles.yaml:2"), "\(messages[2])")
        #expect(try #require(res[2].object).namespace == nil)
        // the marker that names where the policy is resolves
        files["apps/web/deploy.yaml"] = files["apps/web/deploy.yaml"]!
            .replacingOccurrences(of: "flux-system:web", with: "apps:web")
        #expect(try lint(files).rendered == ["kustomization-build-fails apps/web/roles.yaml:7:7"])
    }

    @Test func aRepositoryWithoutClustersHasEveryFileJudgedAsUnreached() throws {
        var files = appliedRepoFiles()
        for f in ["clusters/prod/apps.yaml", "clusters/prod/flux-system/gotk-sync.yaml"] { files[f] = nil }
        // an applications repository: every file is judged (the archive's policy, on the components' Flux 2.7, and its
        // latest image); the LabelTransformers are kustomize's configuration, no duplicates
        let found = try lintReport(files, asFound: true)
        // (and bootstrap's kustomization still lists the sync file taken out)
        let expected = ["api-removed archive/api.yaml:1:13", "policy-unknown-repository archive/api.yaml:2:7", "policy-unused archive/api.yaml:2:7",
                        "image-latest-tag archive/web.yaml:9:14", "kustomization-build-fails clusters/prod/flux-system/kustomization.yaml:1:35"]
        #expect(found.findings.rendered == expected, "\(found.findings.rendered)")
        // but whether anything applies them is not known here: warnings at most, each saying so, and the header says how
        // to settle it
        #expect(found.findings.map(\.severity) == [.warning, .warning, .note, .warning, .warning])
        #expect(found.findings.allSatisfy { $0.message.hasSuffix(" (no cluster in this repository applies this file)") })
        #expect(found.applied == "8 files that no cluster here applies, judged as warnings at most (declare what applies them under clusters: "
                + "in .tagwarden.yaml); tagwarden env --applied lists them", "\(found.applied ?? "nil")")
        // declared, they are facts; what the declared cluster does not take stays as it was, and so does the Flux it runs,
        // read from the components' installation, which no cluster applies: an assumption
        let declared = try lint(files, config: "clusters:\n  - name: archive\n    paths: [archive]\n", asFound: true)
        #expect(declared.rendered == expected)
        #expect(declared.map(\.severity) == [.warning, .error, .note, .error, .warning])
        #expect(declared.first?.assumption?.hasPrefix("assuming cluster archive runs that Flux, though no cluster here applies its installation") == true,
                "\(declared.first?.message ?? "")")
        #expect(declared.map { $0.message.hasSuffix("(no cluster in this repository applies this file)") } == [false, false, false, false, true])
    }

    @Test func whatSourceControllerLeavesOutIsNotDeployed() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/kustomization.yaml"] = "resources: [web.yaml]\n"
        files["apps/web.yaml"] = pod("web", images: ["nginx:latest"])
        files[".archive/old.yaml"] = pod("old", images: ["nginx:latest"])
        #expect(try lint(files).rendered == ["image-latest-tag .archive/old.yaml:8:14", "image-latest-tag apps/web.yaml:8:14"])
        // xunholy/k8s-gitops: everything but one directory is left out of the artifact
        files[".sourceignore"] = "# Exclude all by default\n/*\n!/clusters\n!/apps\n"
        let report = try lintReport(files)
        #expect(report.findings.rendered == ["image-latest-tag apps/web.yaml:8:14"])
        let m = try #require(report.model)
        let archive = try #require(m.files.indices.first { m.path($0) == ".archive/old.yaml" })
        #expect(m.clusters.reach[archive] == .notDeployed("source-controller leaves it out of the artifact (.sourceignore:2 '/*')"))
        // the bootstrap GitRepository's spec.ignore comes after: it leaves out apps too, so the cluster deploys nothing there
        files["clusters/prod/flux-system/gotk-sync.yaml"] = files["clusters/prod/flux-system/gotk-sync.yaml"]!
            .replacingOccurrences(of: "  ref: {branch: main}\n", with: "  ref: {branch: main}\n  ignore: |\n    /apps\n")
        #expect(try lint(files).rendered == [])
    }

    /// carpenike/k8s-gitops: a file every source's rules leave out is named as left out by a GitRepository the cluster's
    /// roots read, not by another repository's (gateway-api's `/*`) that sorts first in the repository.
    @Test func theReasonAFileIsLeftOutNamesTheClustersOwnSource() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
        files["clusters/prod/flux-system/gotk-sync.yaml"] = files["clusters/prod/flux-system/gotk-sync.yaml"]!
            .replacingOccurrences(of: "  ref: {branch: main}\n", with: "  ref: {branch: main}\n  ignore: |\n    /*\n    !/clusters\n")
        files["clusters/prod/crds.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: gateway-api, namespace: flux-system}\n"
            + "spec:\n  url: https://github.com/kubernetes-sigs/gateway-api\n  ref: {tag: v1.2.0}\n  ignore: |\n    /*\n    !/config/crd\n"
        files["a/old.yaml"] = pod("old", images: ["nginx:latest"])
        let m = try #require(try lintReport(files).model)
        let old = try #require(m.files.indices.first { m.path($0) == "a/old.yaml" })
        #expect(m.clusters.reach[old] == .notDeployed("source-controller leaves it out of the artifact (spec.ignore of GitRepository flux-system "
                                                      + "(clusters/prod/flux-system/gotk-sync.yaml):1 '/*')"), "\(m.clusters.reach[old])")
    }

    @Test func aSecondSourceOfThisRepositoryTakesBackWhatSourceignoreDrops() throws {
        // aelred/manifests: `.sourceignore` drops kustomizations/ and scripts/, and a second GitRepository of the same
        // repository takes kustomizations/ back with its spec.ignore; a Flux Kustomization template in scripts/ is no builder
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./services")
        files[".sourceignore"] = "scripts/\nkustomizations/\n"
        files["services/source.yaml"] = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: kustomizations, namespace: flux-system}
        spec:
          url: ssh://git@github.com/acme/fleet
          ref: {branch: main}
          ignore: |
            /*
            !/kustomizations

        """
        func service(_ name: String, _ substitute: String) -> String {
            """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: \(name), namespace: flux-system}
            spec:
              sourceRef: {kind: GitRepository, name: kustomizations}
              path: ./kustomizations/service
              postBuild:
                substitute: {\(substitute)}

            """
        }
        files["services/web.yaml"] = service("web", "name: web")
        files["scripts/template.yaml"] = service("'${name}'", "name: '${name}', image: '${image}'")
        files["kustomizations/service/kustomization.yaml"] = "resources: [pod.yaml]\n"
        files["kustomizations/service/pod.yaml"] = pod("app", images: ["ghcr.io/acme/${image:=${name}}:latest"])
        let res = try lint(files)
        #expect(res.rendered == ["image-latest-tag kustomizations/service/pod.yaml:8:14"], "\(res.rendered)")
        #expect(res.first?.message.hasPrefix("image 'ghcr.io/acme/web:latest' uses the tag 'latest'") == true, "\(res.first?.message ?? "")")
    }

    @Test func clustersNotNamedAfterEnvironmentsAreClustersAllTheSame() throws {
        var files: [String: String] = [:]
        for c in ["demo", "ithc", "sbox"] {
            files.merge(bootstrapFiles("clusters/\(c)", flux: "v2.8.0")) { $1 }
            files["clusters/\(c)/apps.yaml"] = fluxKustomization(path: "./apps/\(c)")
            files["apps/\(c)/kustomization.yaml"] = "resources: [../base, config.yaml]\n"
            files["apps/\(c)/config.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata: {cluster: \(c)}\n"
        }
        files["apps/base/kustomization.yaml"] = "resources: [settings.yaml]\n"
        files["apps/base/settings.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base-settings\n  namespace: web\ndata: {a: b}\n"
        // each cluster has its own settings: no duplicate across clusters
        #expect(try lint(files).rendered == [])
        // one kustomization that takes two objects of one name: kustomize refuses the build
        files["apps/sbox/more.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata: {cluster: other}\n"
        files["apps/sbox/kustomization.yaml"] = "resources: [../base, config.yaml, more.yaml]\n"
        let refused = try lint(files)
        #expect(refused.rendered == ["kustomization-build-fails apps/sbox/more.yaml:2:7"])
        #expect(refused[0].message == "kustomize refuses the build: the kustomization apps/sbox/kustomization.yaml takes ConfigMap web/settings twice, "
                + "here and in apps/sbox/config.yaml:2 (may not add resource with an already registered id), so Flux Kustomization "
                + "flux-system/apps (clusters/sbox/apps.yaml) deploys nothing")
        // one cluster that applies two different objects of one name by two Flux Kustomizations: one replaces the other there
        files["apps/sbox/kustomization.yaml"] = "resources: [../base, config.yaml]\n"
        files["apps/sbox-more/kustomization.yaml"] = "resources: [../sbox/more.yaml]\n"
        files["clusters/sbox/more.yaml"] = fluxKustomization(name: "more", path: "./apps/sbox-more")
        let res = try lint(files)
        #expect(res.rendered == ["object-duplicate apps/sbox/more.yaml:2:7"])
        #expect(res[0].message == "ConfigMap web/settings is also defined in apps/sbox/config.yaml:2 applied to cluster clusters/sbox, differently: one silently replaces the other")
        #expect(res[0].severity == .warning)
    }

    /// ipni/storetheindex's per-instance directories (`nameSuffix: -helga`, `-porvy`) and onedr0p/home-ops's namespace
    /// directories (a Namespace `_` that each directory's `namespace:` renames): kustomize builds objects of other names,
    /// which meet nothing; two that keep one name after their prefixes still meet.
    @Test func objectsAreComparedByTheNamesKustomizeGivesThem() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/kustomization.yaml"] = "resources: [a, b, default, media]\n"
        for d in ["a", "b"] {
            files["apps/\(d)/kustomization.yaml"] = "namespace: shared\nnameSuffix: -\(d)\nresources: [pvc.yaml]\n"
            files["apps/\(d)/pvc.yaml"] = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {volumeName: \(d)}\n"
        }
        for d in ["default", "media"] {
            files["apps/\(d)/kustomization.yaml"] = "namespace: \(d)\nresources: [namespace.yaml]\n"
            files["apps/\(d)/namespace.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: _\n  labels: {team: \(d)}\n"
        }
        #expect(try lint(files, asFound: true).rendered == [])
        // a second Flux Kustomization of the cluster builds shared/data-a too (with the same suffix): they meet there
        files["clusters/prod/more.yaml"] = fluxKustomization(name: "more", path: "./more")
        files["more/kustomization.yaml"] = "namespace: shared\nnameSuffix: -a\nresources: [pvc.yaml]\n"
        files["more/pvc.yaml"] = files["apps/b/pvc.yaml"]
        let met = try lint(files, asFound: true)
        #expect(met.rendered == ["object-duplicate more/pvc.yaml:2:7"])
        #expect(met.first?.message == "PersistentVolumeClaim shared/data-a is also defined in apps/a/pvc.yaml:2, "
                + "differently: one silently replaces the other")
    }

    /// isning/k8s-gitops: an operator's manifest brings its Namespace, which the kustomization that takes it deletes
    /// (`$patch: delete`, from a patch file and from an inline patch with a target) because another applies it.
    @Test func anObjectItsKustomizationDeletesMeetsNothing() throws {
        var files = bootstrapFiles("clusters/lab", flux: "v2.8.0")
        files["clusters/lab/infra.yaml"] = fluxKustomization(name: "namespaces", path: "./infra/namespaces")
            + "---\n" + fluxKustomization(name: "controllers", path: "./infra/controllers")
        files["infra/namespaces/kustomization.yaml"] = "resources: [namespaces.yaml]\n"
        files["infra/namespaces/namespaces.yaml"] = ["kubevirt", "cdi", "other"].map {
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: \($0)\n  labels: {team: lab}\n"
        }.joined(separator: "---\n")
        files["infra/controllers/operator.yaml"] = ["kubevirt", "cdi", "other"].map {
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: \($0)\n"
        }.joined(separator: "---\n")
        files["infra/controllers/delete-kubevirt.yaml"] = "$patch: delete\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: kubevirt\n"
        files["infra/controllers/kustomization.yaml"] = """
        resources: [operator.yaml]
        patches:
          - path: delete-kubevirt.yaml
          - target: {kind: Namespace, name: cdi}
            patch: |
              $patch: delete
              kind: Namespace
              metadata:
                name: cdi

        """
        // `other` is not deleted: the two meet in the cluster
        let deleted = try lint(files, asFound: true)
        #expect(deleted.rendered == ["object-duplicate infra/namespaces/namespaces.yaml:14:7"], "\(deleted.map(\.message))")
        #expect(deleted.first?.message == "Namespace other is also defined in infra/controllers/operator.yaml:12, differently: one silently replaces the other")
        // a second kustomization that takes the file and deletes nothing deploys the operator's kubevirt Namespace; and
        // `other`, which neither deletes, is applied by both Kustomizations (kubevirt and cdi only by `keep`)
        files["infra/keep/kustomization.yaml"] = "resources: [../controllers/operator.yaml]\n"
        files["clusters/lab/keep.yaml"] = fluxKustomization(name: "keep", path: "./infra/keep")
        let kept = try lint(files, asFound: true)
        #expect(kept.rendered == ["object-duplicate infra/controllers/operator.yaml:12:7", "object-duplicate infra/namespaces/namespaces.yaml:2:7",
                                  "object-duplicate infra/namespaces/namespaces.yaml:8:7", "object-duplicate infra/namespaces/namespaces.yaml:14:7"],
                "\(kept.map(\.message))")
        #expect(kept.first?.message == "Namespace other is applied by 2 Flux Kustomizations, flux-system/controllers (clusters/lab/infra.yaml:8), "
                + "flux-system/keep (clusters/lab/keep.yaml:2), as one object: kustomize-controller applies every Kustomization's objects with "
                + "one field manager, so at each reconciliation one silently takes it over from the other, fields, labels and annotations")
    }

    /// sulibot/home-ops: two copies of a HelmRepository that differ only in how they write `interval` (`1h0m0s`, `1h`)
    /// are one object to the API server (metav1.Duration); `1m` is another. (The two Kustomizations of one file build two
    /// generated kustomizations: the copies meet in the cluster, not in one kustomize build.)
    @Test func fluxDurationsAreComparedAsDurations() throws {
        #expect(GoDuration.nanoseconds("1h0m0s") == GoDuration.nanoseconds("1h"))
        #expect(GoDuration.nanoseconds("1.5h") == GoDuration.nanoseconds("90m"))
        #expect(GoDuration.nanoseconds("1h") != GoDuration.nanoseconds("1m"))
        #expect(GoDuration.nanoseconds("1x") == nil && GoDuration.nanoseconds("") == nil && GoDuration.nanoseconds("h") == nil)
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomizations([("a", "./a"), ("b", "./b")])
        func repository(_ interval: String) -> String {
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: cnpg, namespace: flux-system}\n"
                + "spec: {interval: \(interval), url: https://cloudnative-pg.github.io/charts}\n"
        }
        files["a/repo.yaml"] = repository("1h0m0s")
        files["b/repo.yaml"] = repository("1h")
        let same = try lint(files, asFound: true).map { "\($0.severity) \($0.rendered)" }
        #expect(same == ["note object-duplicate b/repo.yaml:2:7"], "\(same)")
        files["b/repo.yaml"] = repository("1m")
        #expect(try lint(files, asFound: true).map { "\($0.severity) \($0.rendered)" } == ["warning object-duplicate b/repo.yaml:2:7"])
    }

    /// A name that many objects have (twelve ConfigMaps `settings` that one cluster applies through two Flux
    /// Kustomizations, one a namespace but for two pairs): its objects are told apart by their keys, and each pair is
    /// reported once, at the later file.
    @Test func aNameManyObjectsHaveFindsEachPairOnce() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomizations([("a", "./a"), ("b", "./b")])
        func settings(_ namespace: String, _ value: String) -> String {
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: \(namespace)\ndata: {a: \(value)}\n"
        }
        for n in 0..<10 { files["a/cm-\(n).yaml"] = settings("ns\(n)", "x") }
        files["b/more-3.yaml"] = settings("ns3", "y")
        files["b/more-7.yaml"] = settings("ns7", "x")
        let found = try lint(files, asFound: true).filter { $0.rule == "object-duplicate" }.map { "\($0.severity) \($0.rendered)" }
        #expect(found == ["warning object-duplicate b/more-3.yaml:2:7", "note object-duplicate b/more-7.yaml:2:7"], "\(found)")
    }

    /// A repository without Flux clusters (Argo CD applies each per-cluster overlay alone): objects of one name in two
    /// overlays never meet; two in one overlay's build, one from its base, fail it (kustomize accumulates the base's
    /// output and then the overlay's file: "may not add resource with an already registered id"); two files outside
    /// every build meet.
    @Test func withoutClustersObjectsMeetInOneBuild() throws {
        var files: [String: String] = [:]
        for c in ["prod-eu", "prod-us"] {
            files["components/secrets/production/\(c)/kustomization.yaml"] = "resources: [../../base, secret.yaml]\n"
            files["components/secrets/production/\(c)/secret.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata: {cluster: \(c)}\n"
        }
        files["components/secrets/base/kustomization.yaml"] = "resources: [common.yaml]\n"
        files["components/secrets/base/common.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: common\n  namespace: web\ndata: {a: b}\n"
        #expect(try lint(files, asFound: true).rendered == [])
        // the base itself now defines `settings` too: each overlay's build takes both
        files["components/secrets/base/common.yaml"]! += "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: web\ndata: {a: c}\n"
        let both = try lint(files, asFound: true).rendered
        #expect(both == ["kustomization-build-fails components/secrets/production/prod-eu/secret.yaml:2:7",
                         "kustomization-build-fails components/secrets/production/prod-us/secret.yaml:2:7"], "\(both)")
        // files no build takes meet only their own documents, and under a hidden directory (a test runner's fixtures:
        // an input and what it should become) nothing
        files["tests/.chainsaw-test/input.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loose\n  namespace: web\ndata: {a: b}\n"
        files["tests/.chainsaw-test/expected.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loose\n  namespace: web\ndata: {a: c}\n"
            + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loose\n  namespace: web\ndata: {a: d}\n"
        #expect(try lint(files, asFound: true).rendered.filter { $0.hasPrefix("object-duplicate tests") } == [])
        files["snapshots/prod-eu/deploy.yaml"] = files["tests/.chainsaw-test/expected.yaml"]
        files["snapshots/prod-us/deploy.yaml"] = files["tests/.chainsaw-test/input.yaml"]
        #expect(try lint(files, asFound: true).rendered.filter { $0.hasPrefix("object-duplicate snapshots") } == ["object-duplicate snapshots/prod-eu/deploy.yaml:9:7"])
        // a repository of plain manifests, without kustomizations: the files of one environment meet
        let plain = ["manifests/production/a.yaml": files["tests/.chainsaw-test/input.yaml"]!,
                     "manifests/production/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loose\n  namespace: web\ndata: {a: c}\n",
                     "manifests/staging/c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: loose\n  namespace: web\ndata: {a: e}\n"]
        #expect(try lint(plain, asFound: true).rendered == ["object-duplicate manifests/production/b.yaml:2:7"])
    }

    /// Objects whose namespace is written with `${…}` that no build makes one namespace of are not known to meet
    /// (stuttgart-things: each app's HelmRepository in `${APP_NAMESPACE:-app}`).
    @Test func namespacesLeftOpenAreNotOne() throws {
        var files = bootstrapFiles("clusters/lab", flux: "v2.8.0")
        files["clusters/lab/apps.yaml"] = fluxKustomization(path: "./apps")
        for app in ["minio", "argo"] {
            files["apps/\(app).yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n"
                + "  namespace: ${\(app.uppercased())_NAMESPACE:-\(app)}\nspec:\n  url: https://charts.example.com/\(app)\n"
        }
        #expect(try lint(files).rendered.filter { $0.hasPrefix("object-duplicate") } == [])
    }

    /// haraldkoch/kochhaus-home, joryirving/home-ops: each namespace's directory holds a Namespace named `_` and the
    /// Flux Kustomizations of its apps, and its kustomization's `replacements:` copy the Namespace's name (its
    /// `namespace:`, as kustomize builds it) into their `spec.targetNamespace`. Two apps' dashboards of one name land
    /// in two namespaces: no duplicate. A replacement from elsewhere leaves the namespace not known, and says so.
    @Test func replacementsCopyANamespaceIntoTargetNamespace() throws {
        var files = bootstrapFiles("clusters/lab", flux: "v2.8.0")
        files["clusters/lab/apps.yaml"] = fluxKustomization(path: "./namespaces")
        files["namespaces/kustomization.yaml"] = "resources: [observability, default]\n"
        files["components/replacements/ks.yaml"] = """
        - source: {kind: Namespace, fieldPath: metadata.name}
          targets:
            - select: {kind: Kustomization, group: kustomize.toolkit.fluxcd.io}
              fieldPaths: [spec.targetNamespace]
              options: {create: true}

        """
        for (namespace, app) in [("observability", "exporter"), ("default", "blocky")] {
            files["namespaces/\(namespace)/kustomization.yaml"] = "namespace: \(namespace)\nresources: [namespace.yaml, app.yaml]\n"
                + "replacements:\n  - path: ../../components/replacements/ks.yaml\n"
            files["namespaces/\(namespace)/namespace.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: _\n"
            files["namespaces/\(namespace)/app.yaml"] = fluxKustomization(name: app, path: "./apps/\(app)")
            files["apps/\(app)/dashboard.yaml"] = "apiVersion: grafana.integreatly.org/v1beta1\nkind: GrafanaDashboard\n"
                + "metadata:\n  name: plug-exporter\nspec:\n  url: https://example.com/\(app).json\n"
        }
        #expect(try lint(files).rendered.filter { $0.hasPrefix("object-duplicate") } == [])
        // copied from a ConfigMap: not followed, so the duplicate stands on an assumption
        files["components/replacements/ks.yaml"] = files["components/replacements/ks.yaml"]!
            .replacingOccurrences(of: "kind: Namespace, fieldPath: metadata.name", with: "kind: ConfigMap, name: settings, fieldPath: data.ns")
        let found = try lint(files).filter { $0.rule == "object-duplicate" }
        #expect(found.rendered == ["object-duplicate apps/exporter/dashboard.yaml:2:7"], "\(found.rendered)")
        #expect(found.first?.assumption == "assuming both land in one namespace: the replacements: of namespaces/observability/kustomization.yaml "
                + "may set the targetNamespace of Flux Kustomization exporter, which Tagwarden does not follow (its source is ConfigMap's data.ns)",
                "\(found.first?.assumption ?? "")")
    }

    /// giantswarm/gitops-template: each stage's directory names its image-automation objects `${cluster_name}-…`, and
    /// the stage's Flux Kustomization substitutes its own `cluster_name`; a kustomization that sets a namespace has
    /// kustomize's names followed. The names Flux applies differ: no duplicate (their written names are one).
    @Test func namesFluxSubstitutesAreComparedAsSubstituted() throws {
        var files = bootstrapFiles("clusters/mc", flux: "v2.8.0")
        for stage in ["dev", "staging"] {
            files["clusters/mc/\(stage).yaml"] = fluxKustomization(name: stage, path: "./stages/\(stage)",
                                                                  spec: "  postBuild:\n    substitute: {cluster_name: hello-\(stage)-1}\n")
            files["stages/\(stage)/kustomization.yaml"] = "namespace: org-acme\nresources: [policy.yaml]\n"
            files["stages/\(stage)/policy.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata:\n  name: ${cluster_name}-web\n"
                + "spec:\n  imageRepositoryRef: {name: web}\n  policy: {semver: {range: '>=1.0.0'}}\n"
        }
        #expect(try lint(files, asFound: true).rendered.filter { $0.hasPrefix("object-duplicate") } == [])
        // the same value in both: one policy replaces the other
        files["clusters/mc/staging.yaml"] = fluxKustomization(name: "staging", path: "./stages/staging",
                                                             spec: "  postBuild:\n    substitute: {cluster_name: hello-dev-1}\n")
        let met = try lint(files, asFound: true).filter { $0.rule == "object-duplicate" }
        #expect(met.rendered == ["object-duplicate stages/staging/policy.yaml:2:7"])
        #expect(met.first?.message == "ImagePolicy org-acme/hello-dev-1-web is also defined, identically, in stages/dev/policy.yaml:2: "
                + "one of the two copies is redundant")
    }

    @Test func fluxsOwnControllersNeedNoDigest() throws {
        var files: [String: String] = [:]
        files[".tagwarden.yaml"] = "profile: strict\n"
        files.merge(bootstrapFiles("clusters/production", flux: "v2.7.0")) { $1 }
        files["clusters/production/app.yaml"] = pod("app", namespace: "apps", images: ["nginx:1.25.3"])
        #expect(try lint(files).rendered == ["image-not-pinned clusters/production/app.yaml:9:14"])
    }

    @Test func anUpdatePathIsCheckedAgainstTheCheckoutWhenOneRepositoryIsNamed() throws {
        // no remote, no bootstrap: the only repository the GitRepositories name is taken to be this checkout, and the message says so
        var files: [String: String] = [:]
        files["flux/auto.yaml"] = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: fleet, namespace: flux-system}
        spec: {url: 'https://github.com/acme/fleet'}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageUpdateAutomation
        metadata: {name: auto, namespace: flux-system}
        spec:
          sourceRef: {kind: GitRepository, name: fleet}
          git: {commit: {author: {email: bot@example.com}}, push: {branch: main}}
          update: {path: ./apps}

        """
        let res = try lint(files)
        #expect(res.rendered == ["automation-missing-path flux/auto.yaml:12:18"])
        #expect(res.first?.message == "update.path './apps' holds no manifest in this tree: the automation updates nothing; "
                + "checked against this checkout, as the repository its GitRepository names (every GitRepository here names that one; no remote of the clone has its URL)")
        // a second repository named: which one this checkout is cannot be told
        files["flux/other.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: charts, namespace: flux-system}\nspec: {url: 'https://github.com/acme/charts'}\n"
        #expect(try lint(files).rendered == [])
    }

    @Test func aPolicysRepositoryReferenceIsSubstitutedLikeItsNamespace() throws {
        var files: [String: String] = [:]
        files["clusters/a/apps.yaml"] = fluxKustomization(path: "./apps", spec: "  postBuild:\n    substitute: {org: acme}\n")
        files["apps/image.yaml"] = """
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageRepository
        metadata: {name: web, namespace: 'org-${org}'}
        spec: {image: ghcr.io/acme/web}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImagePolicy
        metadata: {name: web, namespace: 'org-${org}'}
        spec:
          imageRepositoryRef: {name: web, namespace: 'org-${org}'}
          policy: {semver: {range: '>=1.0.0'}}

        """
        let res = try lint(files)
        #expect(!res.rendered.contains { $0.hasPrefix("policy-unknown-repository") }, "\(res.rendered)")
    }

    @Test func aChartThatMakesImagePoliciesMayMakeTheOneAMarkerNames() throws {
        var files: [String: String] = [:]
        files["charts/frontend/Chart.yaml"] = "apiVersion: v2\nname: frontend\nversion: 1.0.0\n"
        files["charts/frontend/templates/policy.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata:\n  name: {{ .Values.name }}\n"
        files["apps/values.yaml"] = "image:\n  repository: ghcr.io/acme/ui\n  tag: 1.0.0 # {\"$imagepolicy\": \"flux-system:ui:tag\"}\n"
        let res = try lint(files)
        let unknown = res.filter { $0.rule == "marker-unknown-policy" }
        #expect(unknown.map(\.severity) == [.note])
        let message = unknown.first?.message ?? ""
        #expect(message.hasPrefix("no manifest defines ImagePolicy flux-system/ui, but the templates of chart charts/frontend make ImagePolicies"), "\(message)")
    }

    @Test func aGitRepositoryTheClustersKustomizationsReadExistsThere() throws {
        // made outside the repository (by hand, as its documentation says): the Kustomizations read from it, so it exists
        var files: [String: String] = [:]
        files["clusters/a/apps.yaml"] = fluxKustomization(path: "./apps", spec: "  sourceRef: {kind: GitRepository, name: your-repo, namespace: default}\n")
        files["apps/auto.yaml"] = imageUpdateAutomation(name: "auto", namespace: "default", source: "your-repo", path: "./apps") + "---\n"
                    + imageUpdateAutomation(name: "other", namespace: "default", source: "your-rep", path: "./apps")
        #expect(try lint(files).rendered == ["automation-unknown-source apps/auto.yaml:13:42"])
    }

    @Test func updatePathsAreJudgedAsEachClusterSubstitutesThem() throws {
        var files: [String: String] = [:]
        for c in ["dev", "prod"] {
            files.merge(bootstrapFiles("clusters/\(c)", flux: "v2.7.0")) { $1 }
            files["clusters/\(c)/infra.yaml"] = fluxKustomization(name: "infra", path: "./infrastructure", spec: "  postBuild:\n    substitute: {FLUX_CONFIG_PATH: ./clusters/\(c)}\n")
            files["clusters/\(c)/app.yaml"] = pod("app", namespace: "apps", images: ["ghcr.io/acme/app:1.0.0"])
        }
        files["infrastructure/auto.yaml"] = imageUpdateAutomation(name: "auto", path: "${FLUX_CONFIG_PATH}/apps")
        // ./clusters/dev/apps and ./clusters/prod/apps: neither exists
        var res = try lint(files)
        #expect(res.rendered == ["automation-missing-path infrastructure/auto.yaml:7:18"])
        #expect(res[0].message == "update.path '${FLUX_CONFIG_PATH}/apps' (substituted by the Flux Kustomizations that apply it: "
                + "'clusters/dev/apps', 'clusters/prod/apps') holds no manifest in this tree: the automation updates nothing")
        // every cluster sets it to a directory it has
        files["infrastructure/auto.yaml"] = files["infrastructure/auto.yaml"]!
            .replacingOccurrences(of: "${FLUX_CONFIG_PATH}/apps", with: "${FLUX_CONFIG_PATH}")
        res = try lint(files)
        #expect(res.rendered == [], "\(res.rendered)")
        // a value that may come from a Secret (never read here): not judged
        files["infrastructure/auto.yaml"] = files["infrastructure/auto.yaml"]!
            .replacingOccurrences(of: "${FLUX_CONFIG_PATH}", with: "${FROM_SECRET}/x")
        files["clusters/dev/infra.yaml"] = fluxKustomization(name: "infra", path: "./infrastructure", spec: "  postBuild:\n    substituteFrom: [{kind: Secret, name: cluster-vars}]\n")
        #expect(try lint(files).rendered == [])
        // a variable the Kustomization does not define becomes an empty string, as in Flux: '/x', which Flux joins to the
        // root as 'x' (securejoin)
        files["clusters/dev/infra.yaml"] = fluxKustomization(name: "infra", path: "./infrastructure", spec: "  postBuild:\n    substitute: {A: b}\n")
        files["clusters/prod/infra.yaml"] = nil
        let absolute = try lint(files)
        #expect(absolute.rendered == ["automation-missing-path infrastructure/auto.yaml:7:18"])
        #expect(absolute.first?.message == "update.path '${FROM_SECRET}/x' (substituted by the Flux Kustomizations that apply it: 'x') "
                + "holds no manifest in this tree: the automation updates nothing")
        files["x/app.yaml"] = pod("x", images: ["nginx:1.25.3"])
        #expect(try lint(files).rendered == [])
    }

    @Test func updatePathsAreJoinedToTheRootAsFluxJoinsThem() throws {
        // securejoin: '/apps' and '../apps' are 'apps', which holds manifests; '../gone' is 'gone', which does not
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["apps/web.yaml"] = pod("web", images: ["nginx:1.25.3"])
        files["clusters/prod/auto.yaml"] = imageUpdateAutomation(name: "a", path: "/apps") + "---\n" + imageUpdateAutomation(name: "b", path: "../apps") + "---\n"
                    + imageUpdateAutomation(name: "c", path: "../gone")
        #expect(try lint(files).rendered == ["automation-missing-path clusters/prod/auto.yaml:23:18"])
    }

    @Test func tagsAUserWouldCallFloating() throws {
        let floating = ["nginx:alpine", "python:slim", "debian:bookworm", "mcr.microsoft.com/windows/servercore:windowsservercore",
                        "nginx:alpine3.20", "node:bookworm-slim", "mcr.microsoft.com/dotnet/runtime:ltsc2022", "example/app:ubi9"]
        // (a channel's word with a number is a numbered release: enesanbar/gitops-flux's k8s-fleetman images, `release2`)
        let pinned = ["nginx:1.25.3-alpine3.20", "postgres:16.3", "registry.k8s.io/pause:3.9", "postgres:16.3-alpine",
                      "ghcr.io/cloudnative-pg/postgresql:18.1", "richardchesterwood/k8s-fleetman-api-gateway:release2", "example/app:beta2"]
        let res = try lint(["apps/web.yaml": pod("web", images: floating + pinned)])
        #expect(res.rendered == floating.indices.map { "image-floating-tag apps/web.yaml:\(8 + 2 * $0):14" }, "\(res.rendered)")
    }

    @Test func aShortVersionIsASeriesByAssumption() throws {
        // belalamr/gitops-certification-examples: kostiscodefresh's images publish `v1.0` and `v2.0` as releases
        let files = ["apps/web.yaml": pod("web", images: ["kostiscodefresh/gitops-simple-app:v1.0", "discourse/discourse:34"])]
        // raised to error by the config, it stays a warning that names the assumption and the key that settles it
        let raised = try lint(files, config: "rules:\n  image-floating-tag: {severity: error}\n")
        #expect(raised.map { "\($0.line):\($0.severity.rawValue)" } == ["8:warning", "10:warning"])
        #expect(raised.first?.message == "image 'kostiscodefresh/gitops-simple-app:v1.0' uses the partial version 'v1.0', which moves to "
                + "every new patch release: pin the full version (assuming 'v1.0' names a series, not a release of its own; "
                + "if the image's releases are numbered so, list it under shortVersionReleases in .tagwarden.yaml)")
        // the config settles it, by the name as written or normalized
        let settled = try lint(files, config: "shortVersionReleases: [\"kostiscodefresh/*\", \"docker.io/discourse/discourse\"]\n")
        #expect(settled.rendered == [], "\(settled.rendered)")
        // a floating word is no short version: the list does not hide it
        let word = try lint(["apps/web.yaml": pod("web", images: ["kostiscodefresh/gitops-simple-app:main"])],
                            config: "shortVersionReleases: [\"kostiscodefresh/*\"]\n")
        #expect(word.rendered == ["image-floating-tag apps/web.yaml:8:14"], "\(word.rendered)")
    }

    @Test func fixedWidthNumbersSortRightAlphabetically() throws {
        var files: [String: String] = [:]
        files["flux/dates.yaml"] = imagePolicy(name: "dates", repository: "web", pattern: "\\b\\d{4}\\.\\d{2}\\.\\d{2}\\b", order: .alphabetical("asc"))
        files["flux/versions.yaml"] = imagePolicy(name: "versions", repository: "web", pattern: "-v[0-9]+\\.[0-9]+\\.[0-9]+$", order: .alphabetical("asc"))
        let res = try lint(files).filter { $0.rule == "policy-fragile-order" }
        #expect(res.map(\.file) == ["flux/versions.yaml"])
        #expect(res.first?.message == "alphabetical order compares version-like tags byte by byte, and their numbers can have one digit or more "
                + "('-v0.0.0', '-v00.0.0'), so a larger number with more digits sorts before a smaller one ('10' before '9'): use semver, numerical order on a key of digits, or a pattern whose keys all have one width (a timestamp such as '20250101T120000Z')")
    }

    @Test func aPatchTargetingEveryPolicyMayAddItsOrdering() throws {
        var files: [String: String] = [:]
        files["apps/kustomization.yaml"] = """
        resources: [policy.yaml]
        patches:
          - target: {kind: ImagePolicy, annotationSelector: 'acme.io/defaults != disabled'}
            patch: |-
              - op: add
                path: /spec/policy
                value: {semver: {range: '>=1.0.0'}}

        """
        files["apps/policy.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  imageRepositoryRef: {name: web}\n"
        #expect(!(try lint(files).rendered.contains { $0.hasPrefix("object-invalid") }))
        // a target of another kind or name does not
        files["apps/kustomization.yaml"] = "resources: [policy.yaml]\npatches:\n  - target: {kind: ImagePolicy, name: 'api-.*'}\n    path: p.yaml\n"
        #expect(try lint(files).rendered.contains("object-invalid apps/policy.yaml:2:7"))
    }
}

@Suite struct FluxInstanceTests {
    /// thatMacAdmin/geekzoo-talos-prod: flux-operator's FluxInstance syncs the cluster and makes its GitRepository,
    /// named after its namespace, which the automations name: it exists, though no file of the repository holds it.
    @Test func aFluxInstancesSyncMakesTheGitRepositoryTheAutomationsRead() throws {
        var files: [String: String] = [:]
        files["flux/instance.yaml"] = """
        apiVersion: fluxcd.controlplane.io/v1
        kind: FluxInstance
        metadata: {name: flux, namespace: flux-system}
        spec:
          distribution: {version: 2.9.x}
          sync: {kind: GitRepository, url: "https://github.com/acme/cluster.git", ref: refs/heads/main, path: clusters/production}

        """
        files["clusters/production/apps.yaml"] = fluxKustomizations([("apps", "./apps"), ("flux", "./flux")])
        files["apps/auto.yaml"] = imageUpdateAutomation(name: "apps", path: "./apps")
        files["apps/typo.yaml"] = imageUpdateAutomation(name: "typo", source: "flux-sytem", path: "./apps")
        let res = try lint(files).filter { $0.rule == "automation-unknown-source" }
        #expect(res.map { "\($0.file):\($0.severity.rawValue)" } == ["apps/typo.yaml:error"], "\(res)")
    }
}

extension FluxInstanceTests {
    /// onedr0p/home-ops, bjw-s-labs/home-ops, joryirving/home-ops: the flux-instance chart installed by a HelmRelease
    /// with its values inline syncs the cluster, as its values file does: the cluster's files are applied, a fact.
    @Test func aHelmReleaseOfTheFluxInstanceChartWithInlineValuesSyncsTheCluster() throws {
        var files: [String: String] = [:]
        files["kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml"] = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: flux-instance}
        spec:
          chartRef: {kind: OCIRepository, name: flux-instance}
          values:
            instance:
              distribution: {version: 2.6.x}
              sync: {kind: GitRepository, url: "https://github.com/acme/home-ops", ref: refs/heads/main, path: kubernetes/flux/cluster}

        """
        files["kubernetes/flux/cluster/ks.yaml"] = fluxKustomizations([("cluster-apps", "./kubernetes/apps")])
        files["kubernetes/apps/default/web.yaml"] = deployment(namespace: "default", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        let cluster = report.model?.clusters.clusters.first
        #expect(report.model?.clusters.clusters.count == 1)
        #expect(cluster?.name == "kubernetes/flux/cluster")
        #expect(cluster?.syncedBy == "kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml:9")
        #expect(cluster?.inferred == nil)
        #expect(cluster?.flux?.description == "2.6")
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag kubernetes/apps/default/web.yaml:9:18"])
        // a chart of another name with an `instance:` value is no FluxInstance
        files["kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml"] = files["kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml"]!
            .replacingOccurrences(of: "name: flux-instance}", with: "name: some-chart}")
        #expect(try lintReport(files, asFound: true).model?.clusters.clusters.first?.syncedBy == nil)
    }
}

extension FluxInstanceTests {
    /// A FluxInstance in flux-system with `spec.sync` (flow style), on line 5, or 6 after a distribution `version`.
    func fluxInstance(sync: String, version: String? = nil) -> String {
        "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux, namespace: flux-system}\nspec:\n"
            + (version.map { "  distribution: {version: \($0)}\n" } ?? "") + "  sync: \(sync)\n"
    }

    /// xunholy/k8s-gitops, controlplaneio-fluxcd/d2-fleet: a FluxInstance syncs an OCIRepository that CI pushes from
    /// one directory of the repository, and stands inside the path it syncs. That directory is taken to be the artifact's
    /// root: the cluster and the paths of the Kustomizations of that source are read there, judged under that premise,
    /// which the message states, until the config declares the cluster.
    @Test func aFluxInstanceSyncingAnArtifactStandsInItsPathAndPlacesTheArtifactsRoot() throws {
        var files: [String: String] = [:]
        files["kubernetes/clusters/prod/flux-system/instance.yaml"] = fluxInstance(
            sync: #"{kind: OCIRepository, url: "oci://ghcr.io/acme/fleet", ref: latest, path: ./clusters/prod}"#, version: "2.7.x")
        files["kubernetes/clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps/prod", spec: "  sourceRef: {kind: OCIRepository, name: flux-system}\n")
        files["kubernetes/apps/prod/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        files["kubernetes/apps/staging/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        let cluster = report.model?.clusters.clusters.first
        #expect(report.model?.clusters.clusters.map(\.name) == ["kubernetes/clusters/prod"])
        #expect(cluster?.syncedBy == "kubernetes/clusters/prod/flux-system/instance.yaml:6")
        let premise = "cluster kubernetes/clusters/prod is taken to be what the FluxInstance sync at kubernetes/clusters/prod/flux-system/instance.yaml:6 "
            + "applies: ./clusters/prod of OCIRepository oci://ghcr.io/acme/fleet, an artifact taken to be pushed from this repository's "
            + "directory kubernetes, since the sync stands in its clusters/prod"
        #expect(cluster?.inferred == premise)
        #expect(report.model?.objects.first { $0.name == "apps" }?.fluxKustomization?.path == "kubernetes/apps/prod")
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == [
            "warning image-latest-tag kubernetes/apps/prod/web.yaml:9:18", "warning image-latest-tag kubernetes/apps/staging/web.yaml:9:18",
        ])
        #expect(report.findings.first?.message.hasSuffix("(\(premise); declare it under clusters: in .tagwarden.yaml)") == true, "\(report.findings)")
        #expect(report.findings.last?.message.hasSuffix("(no cluster in this repository applies this file)") == true, "\(report.findings)")
        // declared, the cluster is a fact
        let declared = try lintReport(files, config: "clusters:\n  - {name: kubernetes/clusters/prod, paths: [kubernetes/clusters/prod/**]}\n", asFound: true)
        #expect(declared.findings.map { "\($0.severity) \($0.rendered)" } == [
            "error image-latest-tag kubernetes/apps/prod/web.yaml:9:18", "warning image-latest-tag kubernetes/apps/staging/web.yaml:9:18",
        ])
    }

    /// The repository's root pushed whole (d2-fleet): the sync's path is the repository's own.
    @Test func anArtifactPushedFromTheRootIsTheRepositorysTree() throws {
        var files: [String: String] = [:]
        files["clusters/prod/flux-system/instance.yaml"] = fluxInstance(
            sync: #"{kind: OCIRepository, url: "oci://ghcr.io/acme/fleet", ref: latest, path: clusters/prod}"#)
        files["clusters/prod/tenants.yaml"] = fluxKustomization(path: "./tenants", spec: "  sourceRef: {kind: OCIRepository, name: flux-system}\n")
        files["tenants/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["clusters/prod"])
        #expect(report.model?.clusters.clusters.first?.inferred?.hasSuffix("pushed from this repository's root, since the sync stands in its clusters/prod") == true)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag tenants/web.yaml:9:18"])
        // two such clusters apply the tenants: the premise says both are inferred so
        for (from, to) in [("clusters/prod/flux-system/instance.yaml", "clusters/staging/flux-system/instance.yaml"),
                           ("clusters/prod/tenants.yaml", "clusters/staging/tenants.yaml")] {
            files[to] = files[from]!.replacingOccurrences(of: "clusters/prod", with: "clusters/staging")
        }
        let two = try lintReport(files, asFound: true)
        #expect(two.model?.clusters.clusters.map(\.name) == ["clusters/prod", "clusters/staging"])
        #expect(two.findings.first?.message.hasSuffix("(clusters clusters/prod, clusters/staging are taken to be what FluxInstance syncs of "
            + "artifacts pushed from this repository apply (tagwarden env --applied names each premise); declare them under clusters: in "
            + ".tagwarden.yaml)") == true, "\(two.findings)")
    }

    /// flux-operator-local-dev, duynhlab/homelab, tyriis/home-ops: a sync of the artifact's root (`./`, which any
    /// directory above the FluxInstance may be), or of a path the FluxInstance does not stand in, places nothing: no
    /// cluster is made of it, and the Kustomizations of its source build nothing here.
    @Test func anArtifactSyncThatDoesNotPlaceItselfMakesNoCluster() throws {
        for (instanceDir, path) in [("kubernetes/clusters/local/flux-system", "./"), ("devenv/oci/apps/flux-system", "./devenv/oci/flux")] {
            var files: [String: String] = [:]
            files["\(instanceDir)/instance.yaml"] = fluxInstance(sync: #"{kind: OCIRepository, url: "oci://registry:5000/sync", ref: local, path: ""# + path + #""}"#)
            files["devenv/oci/flux/apps.yaml"] = fluxKustomization(path: "./apps", spec: "  sourceRef: {kind: OCIRepository, name: flux-system}\n")
            files["apps/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
            let report = try lintReport(files, asFound: true)
            #expect(report.model?.clusters.clusters.isEmpty == true, "\(path)")
            #expect(report.model?.objects.first { $0.name == "apps" }?.fluxKustomization?.path == nil)
            #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag apps/web.yaml:9:18"])
            // the artifact may hold the file: that no cluster here applies it is not known
            #expect(report.findings.first?.message.hasSuffix("(no cluster here is known to apply this file, but what artifacts hold is not read here: "
                + "the FluxInstance sync at \(instanceDir)/instance.yaml:5 of OCIRepository oci://registry:5000/sync and 1 more)") == true,
                    "\(report.findings)")
            #expect(report.model?.clusterLines.first?.hasPrefix("no cluster is described here (no flux bootstrap sync, FluxInstance or Flux "
                + "Kustomization builds this repository's files as far as is read here, but what artifacts hold is not read: the FluxInstance "
                + "sync at \(instanceDir)/instance.yaml:5 of OCIRepository oci://registry:5000/sync and 1 more; Flux") == true, "\(report.model?.clusterLines ?? [])")
        }
    }

    /// Paddione/Bachelorprojekt: a cluster applies Kustomizations of an OCIRepository that CI renders and pushes; a
    /// file no cluster here reaches may be in it, and the premise says so, naming the first.
    @Test func aClustersKustomizationOfAnUnknownArtifactMakesTheUnreachedPremiseAnAssumption() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.8")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./prod", spec: "  sourceRef: {kind: OCIRepository, name: fleet-manifests}\n")
            + "---\n" + fluxKustomization(name: "dev", path: "./dev", spec: "  sourceRef: {kind: OCIRepository, name: fleet-manifests}\n")
        files["k3d/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag k3d/web.yaml:9:18"])
        #expect(report.findings.first?.message.hasSuffix("(no cluster here is known to apply this file, but what artifacts hold is not read here: "
            + "clusters/prod/apps.yaml builds ./prod of OCIRepository fleet-manifests and 1 more)") == true, "\(report.findings)")
        // the Kustomizations in a file no cluster applies say nothing of it
        files["clusters/prod/kustomization.yaml"] = "resources: [flux-system]\n"
        #expect(try lintReport(files, asFound: true).findings.first?.message.hasSuffix("(no cluster in this repository applies this file)") == true)
        // nor does one of Flux's own manifests (tvories/k8s-gitops): that artifact holds Flux, not this repository's files
        files["clusters/prod/kustomization.yaml"] = nil
        files["clusters/prod/apps.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nmetadata: {name: flux-manifests, namespace: flux-system}\n"
            + "spec: {url: oci://ghcr.io/fluxcd/flux-manifests, ref: {tag: v2.4.0}}\n---\n"
            + fluxKustomization(name: "flux", path: "./", spec: "  sourceRef: {kind: OCIRepository, name: flux-manifests}\n")
        #expect(try lintReport(files, asFound: true).findings.first?.message.hasSuffix("(no cluster in this repository applies this file)") == true)
    }

    /// olga-mir/k8s-multi-cluster, fluxcd/flux2-hub-spoke-example: a Kustomization with `spec.kubeConfig` applies its
    /// build to the cluster its Secret names, not to the one that applies it: the two clusters' objects never meet, and
    /// that cluster is one of its own, named after the Secret.
    @Test func aKustomizationsKubeConfigAppliesItsBuildToAnotherCluster() throws {
        var files = bootstrapFiles("clusters/hub", flux: "v2.8.0")
        files["clusters/hub/apps.yaml"] = fluxKustomization(name: "hub-apps", path: "./hub-apps") + "---\n"
            + fluxKustomization(name: "spoke", path: "./spoke", spec: "  kubeConfig:\n    secretRef: {name: spoke-kubeconfig}\n")
        func settings(_ value: String) -> String { "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: web}\ndata: {a: \(value)}\n" }
        files["hub-apps/settings.yaml"] = settings("hub")
        files["spoke/settings.yaml"] = settings("spoke")
        files["spoke/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag spoke/web.yaml:9:18"], "\(report.findings)")
        let clusters = report.model?.clusters.clusters.map { "\($0.name): \($0.files.count)" } ?? []
        #expect(clusters == ["clusters/hub: 5", "clusters/hub → Secret flux-system/spoke-kubeconfig: 2"], "\(clusters)")
        #expect(report.model?.clusterLines.contains("  applied through the kubeConfig of: flux-system/spoke (clusters/hub/apps.yaml)") == true,
                "\(report.model?.clusterLines ?? [])")
        // without the kubeConfig, one cluster applies both ConfigMaps
        files["clusters/hub/apps.yaml"] = files["clusters/hub/apps.yaml"]!.replacingOccurrences(of: "  kubeConfig:\n    secretRef: {name: spoke-kubeconfig}\n", with: "")
        #expect(try lint(files, asFound: true).map(\.rule).contains("object-duplicate"))
    }

    /// karlsonley/homelab: a cluster applies a ResourceSet whose template makes Flux Kustomizations of
    /// `./infrastructure/homelab/<< inputs.layer >>`; those are not read here, so a file no cluster here reaches may be
    /// built by one, and the premise (and env's list of Kustomizations no cluster applies) says so. A ResourceSet that
    /// makes no Kustomization leaves the premise a fact.
    @Test func aResourceSetThatMakesKustomizationsMakesTheUnreachedPremiseAnAssumption() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.8")
        files["clusters/prod/infrastructure.yaml"] = """
        apiVersion: fluxcd.controlplane.io/v1
        kind: ResourceSet
        metadata: {name: infrastructure, namespace: flux-system}
        spec:
          inputs: [{layer: one}, {layer: two}]
          resourcesTemplate: |
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: infrastructure-<< inputs.layer >>, namespace: flux-system}
            spec: {path: ./infrastructure/<< inputs.layer >>, sourceRef: {kind: GitRepository, name: flux-system}}

        """
        files["clusters/prod/old.yaml"] = fluxKustomization(name: "old", path: "./old")
        files["clusters/prod/kustomization.yaml"] = "resources: [flux-system, infrastructure.yaml]\n"
        files["infrastructure/one/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag infrastructure/one/web.yaml:9:18"])
        #expect(report.findings.first?.message.hasSuffix("(no cluster here is known to apply this file, but the Flux Kustomizations that "
            + "ResourceSets make are not read here: ResourceSet flux-system/infrastructure in clusters/prod/infrastructure.yaml)") == true,
                "\(report.findings)")
        #expect(report.model?.clusterLines.contains("Flux Kustomizations no cluster applies: flux-system/old (clusters/prod/old.yaml) (as far as is "
            + "read here: the Flux Kustomizations that ResourceSets make are not read here: ResourceSet flux-system/infrastructure in "
            + "clusters/prod/infrastructure.yaml)") == true, "\(report.model?.clusterLines ?? [])")
        files["clusters/prod/infrastructure.yaml"] = files["clusters/prod/infrastructure.yaml"]!
            .replacingOccurrences(of: "kustomize.toolkit.fluxcd.io/v1", with: "helm.toolkit.fluxcd.io/v2").replacingOccurrences(of: "kind: Kustomization", with: "kind: HelmRelease")
        #expect(try lintReport(files, asFound: true).findings.first?.message.hasSuffix("(no cluster in this repository applies this file)") == true)
        // one that waits for a Kustomization (`dependsOn` names its API group) but makes none
        files["clusters/prod/infrastructure.yaml"] = files["clusters/prod/infrastructure.yaml"]!
            .replacingOccurrences(of: "spec:\n", with: "spec:\n  dependsOn: [{apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: infra}]\n")
        #expect(try lintReport(files, asFound: true).findings.first?.message.hasSuffix("(no cluster in this repository applies this file)") == true)
    }

    /// microscaler/shared-gitops-k8s-cluster: a cluster applies a GitOpsSet (Weave GitOps', or gitops-tools' sets.gitops.pro)
    /// whose template makes a Flux Kustomization per element of its list; as for a ResourceSet, the premise says so.
    @Test func aGitOpsSetThatMakesKustomizationsMakesTheUnreachedPremiseAnAssumption() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.8")
        for group in ["templates.weave.works", "sets.gitops.pro"] {
            files["clusters/prod/stacks.yaml"] = """
            apiVersion: \(group)/v1alpha1
            kind: GitOpsSet
            metadata: {name: stacks, namespace: flux-system}
            spec:
              generators:
                - list: {elements: [{name: web, path: ./apps/web}]}
              templates:
                - content:
                    apiVersion: kustomize.toolkit.fluxcd.io/v1
                    kind: Kustomization
                    metadata: {name: "stack-{{ .Element.name }}", namespace: flux-system}
                    spec: {path: "{{ .Element.path }}", sourceRef: {kind: GitRepository, name: flux-system}}

            """
            files["apps/web/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
            let findings = try lint(files, asFound: true)
            #expect(findings.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag apps/web/web.yaml:9:18"], "\(findings)")
            #expect(findings.first?.message.hasSuffix("(no cluster here is known to apply this file, but the Flux Kustomizations that "
                + "GitOpsSets make are not read here: GitOpsSet flux-system/stacks in clusters/prod/stacks.yaml)") == true, "\(findings)")
        }
        // one whose templates make other objects only
        files["clusters/prod/stacks.yaml"] = files["clusters/prod/stacks.yaml"]!
            .replacingOccurrences(of: "kustomize.toolkit.fluxcd.io/v1", with: "v1").replacingOccurrences(of: "kind: Kustomization", with: "kind: ConfigMap")
        #expect(try lint(files, asFound: true).first?.message.hasSuffix("(no cluster in this repository applies this file)") == true)
    }

    /// xunholy/k8s-gitops: an ArtifactGenerator of the synced OCIRepository copies each app's directory whole
    /// (`@repo/apps/base/web/app/` to `@artifact/apps/base/web/app/`, which lands in `apps/base/web/app/app/`, as
    /// `cp -r` does); an ExternalArtifact Kustomization of the directory it lands in builds it.
    @Test func anArtifactGeneratorOfTheSyncedArtifactCopiesDirectoriesWhole() throws {
        var files: [String: String] = [:]
        files["kubernetes/clusters/prod/flux-system/values.yaml"] = """
        instance:
          sync: {kind: OCIRepository, url: "oci://ghcr.io/acme/fleet", ref: main, path: ./clusters/prod}

        """
        files["kubernetes/clusters/prod/generator.yaml"] = """
        apiVersion: source.extensions.fluxcd.io/v1beta1
        kind: ArtifactGenerator
        metadata: {name: fleet, namespace: flux-system}
        spec:
          sources:
            - {alias: repo, kind: OCIRepository, name: flux-system}
          artifacts:
            - name: web
              copy:
                - {from: "@repo/apps/base/web/app/", to: "@artifact/apps/base/web/app/"}
            - name: api
              copy:
                - {from: "@repo/apps/base/api/app/", to: "@artifact/apps/base/api/"}
            - name: job
              copy:
                - {from: "@repo/apps/base/job/app/", to: "@artifact/apps/base/job/app/", exclude: ["*.md"]}

        """
        let source = "  sourceRef: {kind: ExternalArtifact, name: %@, namespace: flux-system}\n"
        files["kubernetes/clusters/prod/apps.yaml"] = [
            fluxKustomization(name: "web", path: "./apps/base/web/app", spec: source.replacingOccurrences(of: "%@", with: "web")),
            fluxKustomization(name: "api", path: "./apps/base/api/app", spec: source.replacingOccurrences(of: "%@", with: "api")),
            fluxKustomization(name: "job", path: "./apps/base/job/app", spec: source.replacingOccurrences(of: "%@", with: "job")),
        ].joined(separator: "---\n")
        for app in ["web", "api", "job"] {
            files["kubernetes/apps/base/\(app)/app/kustomization.yaml"] = "resources: [deploy.yaml]\n"
            files["kubernetes/apps/base/\(app)/app/deploy.yaml"] = deployment(name: app, namespace: "apps", image: "nginx:latest")
        }
        let report = try lintReport(files, asFound: true)
        let paths = Dictionary(uniqueKeysWithValues: (report.model?.objects ?? []).filter(\.isFluxKustomization).map { ($0.name ?? "", $0.fluxKustomization?.path ?? "-") })
        // (`job`'s copy leaves files out: what its path holds is not told)
        #expect(paths == ["web": "kubernetes/apps/base/web/app", "api": "kubernetes/apps/base/api/app", "job": "-"])
        #expect(report.model?.clusters.clusters.first?.files.count == 7)
    }
}

@Suite struct InferredClusterTests {
    /// A bootstrapped cluster directory's neighbour whose Kustomizations nothing applies is a cluster bootstrapped
    /// elsewhere (clusters/staging beside clusters/prod); a neighbour of a cluster whose path is its flux-system
    /// directory itself (PHACDataHub/cpho-phase2's `./k8s/flux-system`, beside k8s/cert-manager/sync.yaml applied by
    /// hand) is an application's directory, and its Kustomizations are applied by no cluster here.
    @Test func onlyAClusterDirectorysNeighboursAreClusters() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.8")
        files["clusters/staging/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/web.yaml"] = deployment(namespace: "web", image: "nginx:1.27.0")
        #expect(try lintReport(files, asFound: true).model?.clusters.clusters.map(\.name) == ["clusters/prod", "clusters/staging"])
        var flat: [String: String] = [:]
        for (path, text) in bootstrapFiles("k8s", flux: "v2.8.8") {
            flat[path] = text.replacingOccurrences(of: "path: ./k8s\n", with: "path: ./k8s/flux-system\n")
        }
        flat["k8s/cert-manager/sync.yaml"] = fluxKustomization(path: "./apps")
        flat["apps/web.yaml"] = files["apps/web.yaml"]
        let report = try lintReport(flat, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["k8s/flux-system"], "\(report.model?.clusterLines ?? [])")
        #expect(report.model?.clusterLines.contains { $0.hasPrefix("Flux Kustomizations no cluster applies: flux-system/apps (k8s/cert-manager/sync.yaml)") } == true)
    }

    /// unusualpseudo/homelab: an app's Flux Kustomization that builds its own directory, inside a bootstrapped cluster's
    /// tree whose kustomization lists it only in a comment, is no cluster's sync: what it applies no cluster here applies.
    /// One beside the cluster's tree (a sync of its own in clusters/staging) still is.
    @Test func aSelfBuildingKustomizationInsideAClustersTreeIsNoSync() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.8")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps")
        files["apps/kustomization.yaml"] = "resources: []\n#  - notifications/ks.yaml\n"
        files["apps/notifications/ks.yaml"] = fluxKustomization(name: "notifications", path: "./apps/notifications")
        files["apps/notifications/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        files["clusters/staging/sync.yaml"] = fluxKustomization(name: "staging", path: "./clusters/staging")
        let report = try lintReport(files, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["clusters/prod", "clusters/staging"], "\(report.model?.clusterLines ?? [])")
        let latest = try lint(files).filter { $0.rule == "image-latest-tag" }
        #expect(latest.map { "\($0.severity) \($0.assumption ?? "")" } == ["warning no cluster in this repository applies this file"])
    }

    /// willnotcy/Hephaestus: `metallb/kustomization.yaml` holds two Flux Kustomizations, and its parent lists it as a
    /// resource file: kustomize reads both (`kubectl kustomize`), so what the second builds is applied, and nothing is
    /// skipped. A kustomization file's own later documents are still never read.
    @Test func aFileNamedKustomizationThatHoldsOtherObjectsIsReadWhole() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/infra.yaml"] = fluxKustomization(name: "infra", path: "./infra")
        files["infra/kustomization.yaml"] = "resources: [ctl/kustomization.yaml]\n"
        files["infra/ctl/kustomization.yaml"] = fluxKustomization(name: "ctl-a", path: "./infra/ctl/a") + "---\n"
            + fluxKustomization(name: "ctl-b", path: "./infra/ctl/b")
        files["infra/ctl/b/web.yaml"] = deployment(namespace: "web", image: "nginx:latest")
        files["apps/kustomization.yaml"] = "resources: [web.yaml]\n---\nresources: [other.yaml]\n"
        let found = try lint(files).filter { ["image-latest-tag", "file-skipped"].contains($0.rule) }
        #expect(found.map { "\($0.severity) \($0.rule) \($0.position)" }
                == ["warning file-skipped apps/kustomization.yaml:3:1", "error image-latest-tag infra/ctl/b/web.yaml:9:18"], "\(found.map(\.rendered))")
    }

    /// monosense-io/k8s-gitops: `ipam/kustomization.yaml` takes two Flux Kustomizations of one name, and kustomize
    /// refuses it; but the cluster's build lists one of the two files itself and never that kustomization. The finding
    /// stands on the kustomization's reach, not the file's: a warning that says no cluster here applies it.
    @Test func aBuildThatFailsIsJudgedWhereItsKustomizationStands() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/infra.yaml"] = fluxKustomization(name: "infra", path: "./infra")
        files["infra/kustomization.yaml"] = "resources: [ipam/b/ks.yaml]\n"
        files["infra/ipam/kustomization.yaml"] = "resources: [a/ks.yaml, b/ks.yaml]\n"
        files["infra/ipam/a/ks.yaml"] = fluxKustomization(name: "ipam", path: "./ipam/a")
        files["infra/ipam/b/ks.yaml"] = fluxKustomization(name: "ipam", path: "./ipam/b")
        let found = try lint(files).filter { $0.rule == "kustomization-build-fails" }
        #expect(found.map { "\($0.severity) \($0.position)" } == ["warning infra/ipam/b/ks.yaml:2:7"], "\(found.map(\.position))")
        #expect(found.first?.assumption == "no cluster in this repository applies infra/ipam/kustomization.yaml")
    }

    /// Diixtra/diixtra-forge: Backstage's scaffolder templates under an automation's `update.path` do not parse, and no
    /// cluster applies them. image-automation-controller opens only files that hold the `$imagepolicy` token, so it
    /// never reads these, and the failing line is a template expression: a note, as a template that something renders
    /// first. One with the token is read as it is: an error.
    @Test func anAutomationReadsOnlyFilesWithTheMarkerToken() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/automation.yaml"] = imageUpdateAutomation(name: "apps", path: "./apps")
        files["apps/templates/deployment.yaml"] = "{%- if values.enabled %}\nkind: Deployment\n{%- endif %}\n"
        let template = try lint(files).filter { $0.rule == "yaml-syntax" }
        #expect(template.map { "\($0.severity) \($0.position)" } == ["note apps/templates/deployment.yaml:1:2"])
        #expect(template.first?.message.contains("(a template expression stands on or before this line: the file is taken to be a template "
                                                  + "that a tool renders before anything reads it as YAML)") == true, "\(template)")
        files["apps/templates/deployment.yaml"]! += "# {\"$imagepolicy\": \"flux-system:web\"}\n"
        #expect(try lint(files).filter { $0.rule == "yaml-syntax" }.map { "\($0.severity) \($0.position)" } == ["error apps/templates/deployment.yaml:1:2"])
    }

    /// PaulJequann/the-lab's Ansible role template, JefeDavis/k8s-HomeOps's helmfile.yaml: a line that fails as YAML for its
    /// `{{ … }}` in a file no cluster applies is the template's, which its tool renders first (a note), and so is a parse
    /// error after such a line; a file without one, and a file a cluster applies, fail as themselves.
    @Test func aTemplateExpressionThatFailsInAFileNoClusterAppliesIsANote() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["ansible/roles/tempo/templates/tempo.yaml"] = "storage:\n  wal:\n    path: {{ tempo_data_dir }}/wal\n"
        files["bootstrap/helmfile.yaml"] = "releases:\n  - name: cilium\n    set:\n      - name: cluster.name\n        value: {{ requiredEnv \"CLUSTER\" }}\n"
        files["bootstrap/broken.yaml"] = "key: [a\n"
        files["bootstrap/unclosed.yaml"] = "metadata:\n  name: {{ .name }\n"
        // (GitHub Actions reads its `${{ … }}` after the YAML: xCodeOwl/essl-lab-docs's workflow fails as itself)
        files["ci/workflow.yaml"] = "env:\n  USER: ${{ secrets.USER }}\nkey: [a\n"
        func found() throws -> [String] { try lint(files).filter { $0.rule == "yaml-syntax" }.map { "\($0.severity) \($0.position)" } }
        #expect(try found() == ["note ansible/roles/tempo/templates/tempo.yaml:3:12", "note ansible/roles/tempo/templates/tempo.yaml:3:31",
                                "warning bootstrap/broken.yaml:2:1", "note bootstrap/helmfile.yaml:5:17", "note bootstrap/unclosed.yaml:2:10",
                                "note bootstrap/unclosed.yaml:3:1", "warning ci/workflow.yaml:4:1"])
        files["clusters/prod/kustomization.yaml"] = "resources: [flux-system, ../../bootstrap/helmfile.yaml]\n"
        let applied = try found().filter { $0.contains("helmfile") }
        #expect(applied == ["error bootstrap/helmfile.yaml:5:17"], "\(applied)")
    }

    /// werpo78/videorank-mlops-config: `clusters/dev/kustomization.yaml` lists the Flux Kustomizations of
    /// `clusters/dev/apps/` and `clusters/dev/infrastructure/`, and nothing here applies it (its README bootstraps
    /// `--path=clusters/dev`): one inferred cluster, named after the kustomization, not one per directory.
    @Test func rootsOneKustomizationListsAreOneCluster() throws {
        var files: [String: String] = [:]
        files["clusters/dev/kustomization.yaml"] = "resources: [infrastructure/ns.yaml, apps/web.yaml]\n"
        files["clusters/dev/infrastructure/ns.yaml"] = fluxKustomization(name: "ns", path: "./infrastructure")
        files["clusters/dev/apps/web.yaml"] = fluxKustomization(name: "web", path: "./apps")
        files["infrastructure/ns.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n"
        files["apps/web.yaml"] = deployment(namespace: "web", image: "nginx:1.27.0")
        let report = try lintReport(files, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["clusters/dev"], "\(report.model?.clusterLines ?? [])")
        // a root two kustomizations at the top take (each applied on its own) stays a cluster of its directory
        files["clusters/all/kustomization.yaml"] = "resources: [../dev/apps/web.yaml]\n"
        let two = try lintReport(files, asFound: true).model?.clusters.clusters.map(\.name)
        #expect(two == ["clusters/dev/apps", "clusters/dev"], "\(two ?? [])")
    }

    /// nishioka-shinji/k8s-test, xunholy/k8s-gitops's .archive: `env --applied` names, of the Flux Kustomizations whose
    /// build takes a file, those a cluster applies, not one that no cluster applies (listed as such above).
    @Test func theAppliedLinesNameOnlyTheKustomizationsAClusterApplies() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.8")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps")
        files["archive/apps.yaml"] = fluxKustomization(name: "old-apps", path: "./apps")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:1.27.3")
        let model = try #require(try lintReport(files, asFound: true).model)
        #expect(model.clusterLines.contains { $0.hasPrefix("Flux Kustomizations no cluster applies: flux-system/old-apps (archive/apps.yaml)") })
        #expect(model.appliedLines.contains("apps/web.yaml  cluster clusters/prod by flux-system/apps"), "\(model.appliedLines)")
    }

    /// Smana/cloud-native-ref: the FluxInstance's sync is written in OpenTofu (`clusters/${var.cluster_name}`), so
    /// clusters/mycluster-0's Kustomizations are roots nothing here applies, and so are those of its subdirectories.
    /// Applied with their directory, as Flux's generated kustomization takes it, the directory takes its subdirectories:
    /// one cluster, not one per subdirectory.
    @Test func rootsInADirectoryTheRootsAboveTakeAreOfTheirCluster() throws {
        var files: [String: String] = [:]
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps")
        files["clusters/prod/crds.yaml"] = fluxKustomization(name: "crds", path: "./crds")
        files["clusters/prod/security/zitadel.yaml"] = fluxKustomization(name: "zitadel", path: "./security")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        files["security/idp.yaml"] = deployment(name: "idp", namespace: "security", image: "ghcr.io/zitadel/zitadel:latest")
        let report = try lintReport(files, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["clusters/prod"])
        #expect(report.model?.clusters.clusters.first?.roots.compactMap { report.model?.objects[$0].name } == ["apps", "crds"])
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == [
            "warning image-latest-tag apps/web.yaml:9:18", "warning image-latest-tag security/idp.yaml:9:18",
        ])
        #expect(report.findings.last?.message.hasSuffix("(cluster clusters/prod is taken to be applied from outside this repository (nothing here "
            + "applies clusters/prod/apps.yaml, clusters/prod/crds.yaml); declare it under clusters: in .tagwarden.yaml)") == true, "\(report.findings)")
    }
}

@Suite struct BootstrapSyncTests {
    /// sulibot/home-ops: the production cluster's kustomization does not list `flux-system`, so bootstrap's sync does not
    /// apply itself; bootstrap applied it, and the cluster is its path's, its findings facts.
    @Test func bootstrapsSyncIsTheClustersRootWhereItsKustomizationLeavesItOut() throws {
        var files = bootstrapFiles("clusters/production", flux: "v2.8.8")
        files["clusters/production/kustomization.yaml"] = "resources: [apps.yaml]\n"
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["clusters/production"])
        #expect(report.model?.clusters.clusters.first?.inferred == nil)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/web.yaml:9:18"])
    }

    /// fmind-ai/fgentic: a CI fixture for `flux build kustomization` in scripts/testdata, whose path is the repository's
    /// root: its build takes its own file, and bootstrap's sync of the cluster with it. It is no cluster's sync and
    /// applies none: the cluster stays bootstrap's, its findings facts; the fixture is applied by no cluster.
    @Test func aKustomizationThatBuildsAnotherClustersSyncIsNoSync() throws {
        var files = bootstrapFiles("clusters/production", flux: "v2.8.8")
        files["clusters/production/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        files["scripts/testdata/flux-build-kustomization.yaml"] = fluxKustomization(name: "cluster-overlay-validation", path: "./")
        let report = try lintReport(files, asFound: true)
        let model = try #require(report.model)
        #expect(model.clusters.clusters.map(\.name) == ["clusters/production"])
        #expect(model.clusters.clusters.first?.inferred == nil)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/web.yaml:9:18"], "\(report.findings)")
        let fixture = try #require(model.files.indices.first { model.path($0) == "scripts/testdata/flux-build-kustomization.yaml" })
        #expect(model.clusters.of(fixture).isEmpty)
    }

    /// Boshock/hp-thin: a stale bootstrap at ./clusters above the clusters bootstrapped since, clusters/staging and
    /// clusters/gke. The build Flux generates at ./clusters takes both flux-system directories whole, and with them two
    /// of each of bootstrap's objects: kustomize refuses it (`kubectl kustomize` says "may not add resource with an
    /// already registered id"), so nothing is silently replaced. Staging and gke stay clusters of their own.
    @Test func aStaleBootstrapAboveTheClustersFailsItsBuild() throws {
        var files = bootstrapFiles("clusters", flux: "v2.8.6")
        files.merge(bootstrapFiles("clusters/staging", flux: "v2.8.6")) { a, _ in a }
        files.merge(bootstrapFiles("clusters/gke", flux: "v2.8.6")) { a, _ in a }
        let report = try lintReport(files, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name).sorted() == ["clusters", "clusters/gke", "clusters/staging"])
        let found = report.findings.map { "\($0.severity) \($0.rendered): \($0.message)" }
        let generated = "kustomize refuses the build: the kustomization Flux generates at ./clusters for the Flux Kustomization in "
            + "clusters/flux-system/gotk-sync.yaml takes "
        let consequence = " (may not add resource with an already registered id), so Flux Kustomization flux-system/flux-system "
            + "(clusters/flux-system/gotk-sync.yaml) deploys nothing"
        #expect(found == [
            "error kustomization-build-fails clusters/gke/flux-system/gotk-components.yaml:4:7: " + generated + "Namespace flux-system twice, "
                + "here and in clusters/flux-system/gotk-components.yaml:4, and 1 more of this file's resources that file holds too" + consequence,
            "error kustomization-build-fails clusters/gke/flux-system/gotk-sync.yaml:2:7: " + generated + "GitRepository flux-system/flux-system "
                + "twice, here and in clusters/flux-system/gotk-sync.yaml:2, and 1 more of this file's resources that file holds too" + consequence,
            "error kustomization-build-fails clusters/staging/flux-system/gotk-components.yaml:4:7: " + generated + "Namespace flux-system twice, "
                + "here and in clusters/flux-system/gotk-components.yaml:4, and 1 more of this file's resources that file holds too" + consequence,
            "error kustomization-build-fails clusters/staging/flux-system/gotk-sync.yaml:2:7: " + generated + "GitRepository flux-system/flux-system "
                + "twice, here and in clusters/flux-system/gotk-sync.yaml:2, and 1 more of this file's resources that file holds too" + consequence,
        ], "\(found)")
    }

    /// chandirasoodan/k8s_manifests: the cluster's kustomization.yaml was emptied. Flux uses the file it finds, and an
    /// empty one builds nothing (kustomize-controller's generator adds only build metadata); no kustomization is
    /// generated there, so what lies below is applied by nothing.
    @Test func anEmptyKustomizationFileBuildsNothing() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.6.2")
        files["clusters/prod/kustomization.yaml"] = ""
        files["clusters/prod/blue/kustomization.yaml"] = "resources: [workloads.yaml]\n"
        files["clusters/prod/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        let model = try #require(report.model)
        let web = try #require(model.files.indices.first { model.path($0) == "clusters/prod/web.yaml" })
        #expect(model.clusters.of(web).isEmpty)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["warning kustomization-build-fails clusters/prod/blue/kustomization.yaml:1:13",
                                                                         "warning image-latest-tag clusters/prod/web.yaml:9:18"],
                "\(report.findings.rendered)")
    }
}

@Suite struct SubstitutedPathTests {
    /// joryirving/home-ops: each cluster's `cluster-apps` substitutes from its own ConfigMap `cluster-info`
    /// (`CLUSTER: main`), and the Kustomizations it applies build `./apps/${CLUSTER}/…`: each cluster's own directory.
    @Test func pathsTakeTheValuesOfTheClustersOwnConfigMap() throws {
        var files: [String: String] = [:]
        for c in ["main", "utility"] {
            files.merge(bootstrapFiles("clusters/\(c)", flux: "v2.8.0")) { $1 }
            files["clusters/\(c)/apps.yaml"] = fluxKustomization(name: "cluster-apps", path: "./apps/stack",
                                                                spec: "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: cluster-info}\n")
            files["clusters/\(c)/cluster-info.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-info, namespace: flux-system}\ndata:\n  CLUSTER: \(c)\n"
            files["apps/\(c)/web/deploy.yaml"] = deployment(namespace: c, image: "nginx:\(c == "main" ? "latest" : "1.27.3")")
        }
        files["apps/stack/web.yaml"] = fluxKustomization(name: "web", path: "./apps/${CLUSTER}/web")
        let model = try lintReport(files, asFound: true).model
        let clusters = model?.clusters
        #expect(clusters?.unapplied.isEmpty == true)
        let web = try #require(model?.files.indices.first { model?.files[$0].path == "apps/main/web/deploy.yaml" })
        #expect(clusters?.of(web).map { clusters!.clusters[$0].name } == ["clusters/main"])
        #expect(try lint(files, asFound: true).map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/main/web/deploy.yaml:9:18"])
    }

    /// DEFRA/adp-flux-services: a Kustomization substitutes `TEAM` itself and the environment from a ConfigMap the
    /// platform makes in the cluster; a path with those variables is not known here, not one with them empty
    /// (`./team//`, which would build every team's directory).
    @Test func aVariableASourceNotHeldHereMayDefineIsNotEmpty() throws {
        var files = bootstrapFiles("clusters/dev", flux: "v2.8.0")
        files["clusters/dev/team.yaml"] = fluxKustomization(name: "team-base", path: "./clusters/team",
                                                            spec: "  postBuild:\n    substitute: {TEAM: web}\n    substituteFrom:\n      - {kind: ConfigMap, name: platform-vars}\n")
        files["clusters/team/team.yaml"] = fluxKustomization(name: "team", path: "./team/${ENVIRONMENT}/${ENVIRONMENT_ID}")
        files["team/dev/01/kustomization.yaml"] = "resources: [cm.yaml]\n"
        files["team/dev/01/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: team, namespace: team}\ndata: {a: b}\n"
        files["team/old-app/kustomization.yaml"] = "resources: [deploy.yaml]\n"
        files["team/old-app/deploy.yaml"] = deployment(namespace: "team", image: "nginx:latest")
        let res = try lint(files, asFound: true)
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag team/old-app/deploy.yaml:9:18"], "\(res.map(\.message))")
        #expect(res.first?.message.hasSuffix("(no cluster in this repository applies this file)") == true)
        // a Secret too may define it
        files["clusters/dev/team.yaml"] = files["clusters/dev/team.yaml"]!.replacingOccurrences(of: "kind: ConfigMap, name: platform-vars", with: "kind: Secret, name: platform-vars")
        #expect(try lint(files, asFound: true).map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag team/old-app/deploy.yaml:9:18"])
    }

    /// A variable of an image from each cluster's own `cluster-info` (clusters named main and utility, no environment
    /// tells them apart): each cluster's build substitutes its own value, as its paths do.
    @Test func anImagesVariableTakesTheValueOfTheClustersOwnConfigMap() throws {
        var files: [String: String] = [:]
        for (c, tag) in [("main", "latest"), ("utility", "1.27.3")] {
            files.merge(bootstrapFiles("clusters/\(c)", flux: "v2.8.0")) { $1 }
            files["clusters/\(c)/apps.yaml"] = fluxKustomization(name: "cluster-apps", path: "./apps/stack",
                                                                spec: "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: cluster-info}\n")
            files["clusters/\(c)/cluster-info.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-info, namespace: flux-system}\ndata:\n  TAG: '\(tag)'\n"
        }
        files["apps/stack/web.yaml"] = deployment(namespace: "apps", image: "nginx:${TAG}")
        let res = try lint(files, asFound: true).filter { $0.rule.hasPrefix("image-") }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/stack/web.yaml:9:18"], "\(res)")
    }

    /// angelnu/k8s-gitops: each cluster's `cluster-settings` ConfigMap comes through a Kustomization of its own (`vars`)
    /// that the walk may take after the one that substitutes from it; whatever the order, each cluster applies only
    /// its own `./apps/secret/${CLUSTER_NAME}`, so the two Secrets of one name are not one cluster's duplicate.
    @Test func aConfigMapAppliedByAnotherKustomizationOfTheClusterDecidesItsPaths() throws {
        var files: [String: String] = [:]
        for c in ["prod", "test"] {
            files.merge(bootstrapFiles("clusters/\(c)", flux: "v2.8.0")) { $1 }
            files["clusters/\(c)/apps.yaml"] = fluxKustomization(name: "cluster-apps", path: "./apps/stack",
                                                                spec: "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: cluster-settings}\n")
            files["clusters/\(c)/vars.yaml"] = fluxKustomization(name: "vars", path: "./clusters/\(c)/vars")
            files["clusters/\(c)/vars/settings.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings, namespace: flux-system}\n"
                + "data:\n  CLUSTER_NAME: \(c)\n"
            files["apps/secret/\(c)/secret.yaml"] = "apiVersion: v1\nkind: Secret\nmetadata: {name: airvpn, namespace: vpn}\nstringData: {key: \(c)}\n"
        }
        files["apps/stack/secret.yaml"] = fluxKustomization(name: "secret", path: "./apps/secret/${CLUSTER_NAME}")
        let model = try #require(try lintReport(files, asFound: true).model)
        for c in ["prod", "test"] {
            let secret = try #require(model.files.indices.first { model.files[$0].path == "apps/secret/\(c)/secret.yaml" })
            #expect(model.clusters.of(secret).map { model.clusters.clusters[$0].name } == ["clusters/\(c)"])
        }
        // (each cluster's settings, below its own path, are applied by flux-system's generated build and by `vars` too)
        let duplicates = try lint(files, asFound: true).filter { $0.rule == "object-duplicate" }
        #expect(duplicates.rendered == ["object-duplicate clusters/prod/flux-system/gotk-sync.yaml:16:9",
                                        "object-duplicate clusters/test/flux-system/gotk-sync.yaml:16:9"], "\(duplicates.map(\.message))")
        #expect(duplicates.first?.message == "Flux Kustomization flux-system/flux-system of cluster clusters/prod builds ./clusters/prod, which "
                + "holds the path of flux-system/vars (./clusters/prod/vars): ConfigMap flux-system/cluster-settings in "
                + "clusters/prod/vars/settings.yaml:2 is applied by both, "
                + "as one object: kustomize-controller applies every Kustomization's objects with one field manager, so at each "
                + "reconciliation one silently takes it over from the other, fields, labels and annotations")
        // nothing of the first walk, which took ${CLUSTER_NAME} for empty, stays: the Kustomization does not build its own file
        let stack = try #require(model.files.indices.first { model.files[$0].path == "apps/stack/secret.yaml" })
        #expect(model.clusters.kustomizationsOfFile[stack]?.map { model.objects[$0].name ?? "" } == ["cluster-apps", "cluster-apps"])
    }
}

@Suite struct GeneratorInputTests {
    /// PingCAP-QE/ee-ops, hm-edu: a secretGenerator's values file (fed to a HelmRelease's valuesFrom) and a
    /// replacements: path (joryirving) are read by the build that names them, which the cluster applies.
    @Test func theFilesAGeneratorOrAReplacementReadsAreAppliedWithTheirBuild() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/kustomization.yaml"] = "resources: [release.yaml]\nsecretGenerator:\n  - name: values\n    files: [values.yaml=values-prod.yaml]\n"
            + "replacements:\n  - path: replace.yaml\n"
        files["apps/release.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: apps}\n"
        files["apps/values-prod.yaml"] = "replicas: 2\n# {\"$imagepolicy\": \"flux-system:web\"}\n"
        files["apps/replace.yaml"] = "source: {kind: ConfigMap, name: x}\ntargets: []\n"
        let model = try #require(try lintReport(files, asFound: true).model)
        #expect(model.appliedLines.filter { $0.hasPrefix("apps/") } == [
            "apps/kustomization.yaml  cluster clusters/prod by flux-system/apps", "apps/release.yaml  cluster clusters/prod by flux-system/apps",
            "apps/replace.yaml  read by the build of apps/kustomization.yaml", "apps/values-prod.yaml  read by the build of apps/kustomization.yaml"],
                "\(model.appliedLines)")
    }
}

@Suite struct UnknownPathVariableTests {
    /// A path whose variable comes from a ConfigMap made outside the repository (Terraform's): the cluster applies the
    /// Kustomization, what it builds is not known, and nothing under ./apps is taken for applied; the config's
    /// `substitute:` of the cluster settles it, and the file it then builds is applied (its finding a fact).
    @Test func theConfigsSubstituteDecidesAPathNothingHereGives() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/${CLUSTER}",
                                                             spec: "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: made-by-terraform}\n")
        files["apps/prod/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        let before = try lintReport(files, asFound: true)
        #expect(before.model?.clusters.unapplied.isEmpty == true)
        #expect(before.findings.map { "\($0.severity) \($0.rendered)" } == ["warning image-latest-tag apps/prod/web.yaml:9:18"])
        let config = "clusters:\n  - name: clusters/prod\n    paths: [clusters/prod]\n    substitute: {CLUSTER: prod}\n"
        let after = try lintReport(files, config: config, asFound: true)
        #expect(after.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/prod/web.yaml:9:18"], "\(after.findings)")
    }
}

@Suite struct EmptyFluxPathTests {
    /// ipni/storetheindex: no bootstrap sync; a Kustomization whose path is above its own file says its GitRepository is
    /// this repository, which another repository laid out alike would say too: a path that holds nothing is a warning
    /// that names the premise.
    @Test func aPathOfARepositoryTakenToBeThisOneIsAWarning() throws {
        var files: [String: String] = [:]
        files["deploy/dev/cluster/sync.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: infra, namespace: flux-system}\n"
            + "spec: {url: 'https://github.com/acme/infra'}\n---\n"
            + fluxKustomization(name: "dev", path: "./deploy/dev", spec: "  sourceRef: {kind: GitRepository, name: infra}\n") + "---\n"
            + fluxKustomization(name: "gone", path: "./deploy/gone", spec: "  sourceRef: {kind: GitRepository, name: infra}\n")
        files["deploy/dev/web.yaml"] = deployment(namespace: "apps", image: "nginx:1.27.3")
        let res = try lint(files, asFound: true).filter { $0.rule == "kustomization-build-fails" }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["warning kustomization-build-fails deploy/dev/cluster/sync.yaml:17:9"], "\(res)")
        #expect(res.first?.message.hasSuffix("(assuming GitRepository infra (https://github.com/acme/infra) is this repository, as another Flux "
                                             + "Kustomization whose path is above its own file says; declare the cluster under clusters: in "
                                             + ".tagwarden.yaml if it is not)") == true, "\(res)")
    }

    /// mwdavisii/gitops-service-example: Kustomizations of the cluster's own GitRepository build directories the
    /// repository does not have; one of another GitRepository builds a path of that repository, which says nothing.
    @Test func aPathOfThisRepositoryThatHoldsNothingDeploysNothing() throws {
        var files = bootstrapFiles("clusters/production", flux: "v2.8.0")
        files["clusters/production/install.yaml"] = fluxKustomization(name: "gatekeeper", path: "./infrastructure/gatekeeper/install",
                                                                      spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
            + "---\n" + fluxKustomization(name: "app", path: "./deploy", spec: "  sourceRef: {kind: GitRepository, name: app}\n")
            + "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: app, namespace: flux-system}\n"
            + "spec: {url: 'https://github.com/acme/app'}\n"
        let res = try lint(files, asFound: true)
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error kustomization-build-fails clusters/production/install.yaml:5:9"], "\(res)")
        #expect(res.first?.message == "Flux Kustomization flux-system/gatekeeper builds ./infrastructure/gatekeeper/install, which is not in the "
                + "repository: kustomize-controller fails it with 'kustomization path not found', so it deploys nothing")
        // a directory of other files only (elreydetoda/personal-lab's .gitkeep) builds to nothing since Flux 2.2.3
        files["infrastructure/gatekeeper/install/.gitkeep"] = ""
        #expect(try lint(files, asFound: true).isEmpty)
    }

    /// rejdeboer/mmo-deployment: a shared base's Kustomization has a placeholder path, which the cluster's overlay
    /// replaces by a JSON patch (or a strategic-merge patch file): the placeholder is not what the cluster builds; the
    /// path the patch writes is judged where it is written.
    @Test func aPathAPatchSetsIsJudgedAsThePatchWritesIt() throws {
        var files = bootstrapFiles("clusters/staging", flux: "v2.7.4")
        files["clusters/base/kustomization.yaml"] = "resources: [apps.yaml]\n"
        files["clusters/base/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/replace-me",
                                                             spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/staging/config.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: apps}\ndata: {a: b}\n"
        func overlay(path: String) -> String {
            "resources: [../base, flux-system]\npatches:\n  - target: {kind: Kustomization, name: apps}\n    patch: |\n"
                + "      - op: replace\n        path: /spec/path\n        value: \(path)\n"
        }
        func emptyPaths() throws -> [String] {
            try lint(files, asFound: true).filter { $0.rule == "kustomization-build-fails" }.map { "\($0.severity) \($0.rendered): \($0.message)" }
        }
        files["clusters/staging/kustomization.yaml"] = overlay(path: "./apps/staging")
        #expect(try emptyPaths() == [])
        files["clusters/staging/kustomization.yaml"] = overlay(path: "./apps/stagign")
        #expect(try emptyPaths() == ["error kustomization-build-fails clusters/staging/kustomization.yaml:7:16: Flux Kustomization flux-system/apps "
                                     + "builds ./apps/stagign as this patch sets its path, which is not in the repository: kustomize-controller "
                                     + "fails it with 'kustomization path not found', so it deploys nothing"])
        // a strategic-merge patch file that sets the path
        files["clusters/staging/kustomization.yaml"] = "resources: [../base, flux-system]\npatches:\n  - path: apps-path.yaml\n"
        files["clusters/staging/apps-path.yaml"] = fluxKustomization(name: "apps", path: "./apps/staging")
        #expect(try emptyPaths() == [])
        // without the patch, the placeholder is what the cluster builds
        files["clusters/staging/kustomization.yaml"] = "resources: [../base, flux-system]\n"
        files["clusters/staging/apps-path.yaml"] = nil
        #expect(try emptyPaths() == ["error kustomization-build-fails clusters/base/apps.yaml:5:9: Flux Kustomization flux-system/apps "
                                     + "builds ./apps/replace-me, which is not in the repository: kustomize-controller fails it with "
                                     + "'kustomization path not found', so it deploys nothing"])
    }

    /// JustasStankunas/audi-flux2-multi-tenancy (as flux2-multi-tenancy writes it): a tenant's base sync with
    /// `path: ./`, which the one cluster that deploys it patches (a patch file) to its own directory. The root is built
    /// by no cluster: it does not take every other cluster's files, nor fail on their duplicate Kustomizations.
    @Test func aPathEveryBuildPatchesIsNotBuiltAsWritten() throws {
        var files = bootstrapFiles("clusters/staging", flux: "v2.8.0")
        files["clusters/staging/tenants.yaml"] = fluxKustomization(name: "tenants", path: "./tenants/staging")
        files["clusters/production/tenants.yaml"] = fluxKustomization(name: "tenants", path: "./tenants/production")
        files["tenants/production/config.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: team, namespace: team}\ndata: {a: b}\n"
        files["tenants/base/team/kustomization.yaml"] = "resources: [sync.yaml]\n"
        files["tenants/base/team/sync.yaml"] = fluxKustomization(name: "team", namespace: "team", path: "./",
                                                                 spec: "  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n")
        files["tenants/staging/kustomization.yaml"] = "resources: [../base/team]\npatches:\n  - path: team-patch.yaml\n"
        files["tenants/staging/team-patch.yaml"] = fluxKustomization(name: "team", namespace: "team", path: "./tenants/staging-team")
        files["tenants/staging-team/config.yaml"] = files["tenants/production/config.yaml"]!.replacingOccurrences(of: "a: b", with: "a: c")
        let model = try #require(try lintReport(files).model)
        let clusters = model.clusters.clusters.map { "\($0.name): \($0.files.map { model.path($0) }.sorted())" }
        #expect(clusters == [
            "clusters/staging: [\"clusters/staging/flux-system/gotk-components.yaml\", \"clusters/staging/flux-system/gotk-sync.yaml\", "
                + "\"clusters/staging/flux-system/kustomization.yaml\", \"clusters/staging/tenants.yaml\", \"tenants/base/team/kustomization.yaml\", "
                + "\"tenants/base/team/sync.yaml\", \"tenants/staging-team/config.yaml\", \"tenants/staging/kustomization.yaml\", \"tenants/staging/team-patch.yaml\"]",
            "clusters/production: [\"clusters/production/tenants.yaml\", \"tenants/production/config.yaml\"]",
        ], "\(clusters)")
        #expect(try lint(files, asFound: true).rendered == [])
        // an overlay that takes the base without the patch builds the root as written
        files["tenants/other/kustomization.yaml"] = "resources: [../base/team]\n"
        files["clusters/staging/other.yaml"] = fluxKustomization(name: "other", path: "./tenants/other")
        #expect(try lint(files, asFound: true).rendered.contains { $0.hasPrefix("kustomization-build-fails") })
    }
}

@Suite struct SuspendedKustomizationTests {
    /// kingdon-ci/fleet-infra: a cluster's Kustomization with `suspend: true` applies nothing while suspended, so what
    /// only it builds is judged as a warning that says so; a file another Kustomization of the cluster applies is a fact.
    @Test func whatOnlyASuspendedKustomizationAppliesIsAnAssumption() throws {
        var files = bootstrapFiles("clusters/test", flux: "v2.4.0")
        files["clusters/test/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps") + "---\n"
            + fluxKustomization(name: "wasm", path: "./examples/wasm", spec: "  suspend: true\n")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        files["examples/wasm/spin.yaml"] = deployment(name: "spin", namespace: "apps", image: "kingdonb/spin:latest")
        let report = try lintReport(files, asFound: true)
        let res = report.findings
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/web.yaml:9:18",
                                                              "warning image-latest-tag examples/wasm/spin.yaml:9:18"], "\(res.rendered)")
        #expect(res.last?.message.hasSuffix("(applied only through Flux Kustomization wasm (clusters/test/apps.yaml), which is suspended: "
                                            + "Flux applies no change while spec.suspend is true; declare its path under clusters: in "
                                            + ".tagwarden.yaml if the cluster runs it)") == true, "\(res)")
        // the header and env count it as suspended, not as the file of an inferred cluster
        let model = try #require(report.model)
        #expect(model.appliedHeader(under: nil) == "1 file applied only through suspended Flux Kustomizations, judged as warnings at most "
                + "(declare what the cluster runs under clusters: in .tagwarden.yaml); tagwarden env --applied lists them")
        #expect(model.clusterLines.contains("1 file is applied only through suspended Flux Kustomizations: judged, findings at most "
                                            + "warnings (--applied says which)"), "\(model.clusterLines)")
        // once a Kustomization that is not suspended applies it too, it is a fact
        files["clusters/test/apps.yaml"]! += "---\n" + fluxKustomization(name: "wasm-live", path: "./examples/wasm")
        #expect(try lint(files, asFound: true).map { "\($0.severity) \($0.rendered)" }
                == ["error image-latest-tag apps/web.yaml:9:18", "error image-latest-tag examples/wasm/spin.yaml:9:18"])
    }
}

@Suite struct PinnedRevisionTests {
    /// stuttgart-things/stuttgart-things: GitRepositories of the repository itself at a tag (`ref.tag: crossplane-1.4.5`)
    /// build that tag, where the directory holds other files than the checkout (the duplicate Composition is not in the
    /// tag; `./apps/rancher`, gone from the checkout, is). What only they build, and a path only they read, are
    /// premises, as warnings; what a branch's GitRepository applies too stays a fact.
    @Test func whatOnlyATagOfThisRepositoryBuildsIsAnAssumption() throws {
        var files = bootstrapFiles("clusters/test", flux: "v2.4.0")
        let pinned = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: release, namespace: flux-system}\n"
            + "spec:\n  url: https://github.com/acme/fleet.git\n  ref: {branch: main, tag: v1.2.0}\n"
        files["clusters/test/apps.yaml"] = pinned + "---\n" + fluxKustomization(name: "apps", path: "./apps")
            + "---\n" + fluxKustomization(name: "gone", path: "./apps/gone", spec: "  sourceRef: {kind: GitRepository, name: release}\n")
            + "---\n" + fluxKustomization(name: "tagged", path: "./tagged", spec: "  sourceRef: {kind: GitRepository, name: release}\n")
        files["apps/web.yaml"] = deployment(namespace: "apps", image: "nginx:latest")
        files["tagged/web.yaml"] = deployment(name: "tagged", namespace: "apps", image: "nginx:latest")
        let report = try lintReport(files, asFound: true)
        let res = report.findings.filter { $0.severity != .note }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/web.yaml:9:18",
                                                              "warning kustomization-build-fails clusters/test/apps.yaml:18:9",
                                                              "warning image-latest-tag tagged/web.yaml:9:18"], "\(res.rendered)")
        #expect(res.dropFirst().first?.message.hasSuffix("(assuming tag v1.2.0 of GitRepository release, which it builds, holds this directory as "
                                             + "the checkout does; declare the cluster under clusters: in .tagwarden.yaml if it does not)") == true,
                "\(res)")
        #expect(res.last?.message.hasSuffix("(applied only through Flux Kustomization tagged (clusters/test/apps.yaml), which builds tag "
                                            + "v1.2.0 of GitRepository release, not this checkout: assuming that revision holds this file as it is here)")
                == true, "\(res)")
        let model = try #require(report.model)
        #expect(model.appliedHeader(under: nil) == "1 file applied only through Flux Kustomizations that build another revision of this "
                + "repository (a tag, a commit, another branch), judged as warnings at most (declare what the cluster runs under clusters: in .tagwarden.yaml); "
                + "tagwarden env --applied lists them")
        // a branch of this repository, or a tag of another, is no pinned revision of these files
        files["clusters/test/apps.yaml"] = files["clusters/test/apps.yaml"]!.replacingOccurrences(of: "tag: v1.2.0", with: "tag: ''")
        #expect(try lint(files, asFound: true).filter { $0.severity == .error }.map(\.rendered)
                == ["image-latest-tag apps/web.yaml:9:18", "kustomization-build-fails clusters/test/apps.yaml:18:9",
                    "image-latest-tag tagged/web.yaml:9:18"])
        files["clusters/test/apps.yaml"] = files["clusters/test/apps.yaml"]!.replacingOccurrences(of: "acme/fleet.git", with: "acme/other.git")
            .replacingOccurrences(of: "tag: ''", with: "commit: 0123abc")
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map { "\($0.severity) \($0.rendered)" }
                == ["error image-latest-tag apps/web.yaml:9:18", "warning image-latest-tag tagged/web.yaml:9:18"])
    }
}

@Suite struct FluxReleaseTests {
    /// Where a repository installs Flux from: ipni/storetheindex lists the release's install.yaml (0.28.5, which serves
    /// the v1alpha1 ImagePolicy it writes), allenporter/k8s-gitops applies the OCI artifact of Flux's manifests; a
    /// development build's Namespace label (v0.0.0-dev.0, microsoft/multicluster-gitops) names no release.
    /// A cluster whose files hold no Flux installation runs the repository's Flux where every installation it holds is
    /// of one version; "the only installation" is said only of one (gavinmcfall/home-ops holds two of 2.9.3).
    /// kingdonb/bootstrap-repo: a cluster's kustomization comments its `flux-system` directory out, so its sync does not
    /// apply the components bootstrap installed from there; with another cluster of another version in the repository,
    /// the version in the cluster's own directory is what it runs, not "no version written here".
    @Test func aClustersOwnDirectorysInstallationCountsWhereItsSyncDoesNotApplyIt() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v0.39.0").merging(bootstrapFiles("clusters/staging", flux: "v2.3.0")) { a, _ in a }
        files["clusters/prod/flux-system/kustomization.yaml"] = "resources: [gotk-sync.yaml]\n"
        let model = try #require(try lintReport(files, asFound: true).model)
        let prod = try #require(model.clusters.clusters.first { $0.name == "clusters/prod" })
        #expect(prod.flux?.description == "0.39.0")
        #expect(prod.fluxOrigin == "app.kubernetes.io/version v0.39.0 of Namespace flux-system in clusters/prod/flux-system/gotk-components.yaml, "
                + "in the cluster's directory though its sync does not apply it", "\(prod.fluxOrigin ?? "nil")")
    }

    /// netwerk-digitaal-erfgoed/infrastructure: flux bootstrap's sync builds `./`, which has no kustomization file, and
    /// Helm values files and a chart's Chart.yaml lie under it. kustomize-controller's generator decodes every YAML file
    /// it walks to as Kubernetes objects and fails on the first that is none ("failed to decode Kubernetes YAML from …:
    /// missing Resource metadata"), so the sync applies nothing, and the Flux its components name is only what the
    /// cluster ran before. `.sops.yaml` is not in the artifact; a directory with a kustomization file is not walked.
    @Test func aFileNoKubernetesObjectFailsTheBuildFluxGeneratesAndItsFluxVersionIsAssumed() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v0.17.0")
        files["clusters/prod/helm/values.yaml"] = "replicaCount: 1\nimage:\n  repository: nginx\n"
        files["clusters/prod/helm/Chart.yaml"] = "apiVersion: v2\nname: web\nversion: 1.0.0\n"
        files["clusters/prod/helm/templates/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        // (a chart in a directory with a kustomization file, which the generator does not walk into: not counted)
        files["clusters/prod/kept/chart/Chart.yaml"] = "apiVersion: v2\nname: kept\nversion: 1.0.0\n"
        files["clusters/prod/kept/chart/templates/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        files["clusters/prod/.sops.yaml"] = "creation_rules:\n  - age: abc\n"
        files["clusters/prod/kept/kustomization.yaml"] = "resources: [cm.yaml]\n"
        files["clusters/prod/kept/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n"
        files["clusters/prod/kept/data.yaml"] = "a: 1\n"
        files["clusters/prod/image.yaml"] = """
            apiVersion: image.toolkit.fluxcd.io/v1beta2
            kind: ImageRepository
            metadata:
              name: web
              namespace: flux-system
            spec:
              image: ghcr.io/acme/web
              interval: 5m

            """
        let res = try lint(files, asFound: true).filter { $0.rule == "kustomization-build-fails" || $0.rule == "api-removed" }
        #expect(res.map { "\($0.severity) \($0.rendered)" }
                == ["error kustomization-build-fails clusters/prod/helm/Chart.yaml:1:1", "warning api-removed clusters/prod/image.yaml:1:13"],
                "\(res.map(\.rendered))")
        #expect(res.first?.message == "kustomize-controller cannot generate the kustomization at ./clusters/prod for the Flux Kustomization in "
                + "clusters/prod/flux-system/gotk-sync.yaml: it decodes every YAML file under the path as Kubernetes objects, and this file "
                + "is not one (it has no kind): 'failed to decode Kubernetes YAML from clusters/prod/helm/Chart.yaml: missing kind in object', "
                + "so Flux Kustomization flux-system/flux-system (clusters/prod/flux-system/gotk-sync.yaml) deploys nothing; 1 more file "
                + "under it fails it too (clusters/prod/helm/values.yaml); Flux reads the 1 file under it that is not read here as well "
                + "(file-skipped says which), which may fail it too; give ./clusters/prod a kustomization.yaml that lists its "
                + "manifests, or move the files out of it", "\(res.first?.message ?? "")")
        #expect(res.last?.message.hasSuffix("(assuming cluster clusters/prod still runs the Flux 0.17.0 it applied before: its sync, Flux "
                + "Kustomization flux-system (clusters/prod/flux-system/gotk-sync.yaml), cannot build ./clusters/prod now "
                + "(kustomization-build-fails), so it applies none of this repository's files; set fluxVersion of cluster clusters/prod "
                + "under clusters: in .tagwarden.yaml to name the Flux it runs)") == true, "\(res.last?.message ?? "")")
        // a kustomization at the path: no generated build, nothing refused
        files["clusters/prod/kustomization.yaml"] = "resources: [flux-system, image.yaml]\n"
        #expect(try lint(files, asFound: true).filter { $0.rule == "kustomization-build-fails" || $0.rule == "api-removed" }
                .map { "\($0.severity) \($0.rendered)" } == ["error api-removed clusters/prod/image.yaml:1:13"])
    }

    /// kustomize's resource reader (kyaml's GetValidatedMetadata), as `kubectl kustomize` of a kustomization listing
    /// each text answers: what it refuses and what it passes over.
    @Test func whatKustomizesResourceReaderRefuses() {
        func says(_ text: String) -> String? { Model.refusedAsResources(YAMLFile(parsing: Array(text.utf8)))?.kustomizeSays }
        #expect(says("replicaCount: 1\n") == "missing Resource metadata")
        #expect(says("hello\n") == "missing Resource metadata")
        #expect(says("- a\n- b\n") == "missing Resource metadata")
        #expect(says("apiVersion: v1\nkind: ConfigMap\n") == "missing metadata.name in object")
        #expect(says("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: x-\n") == "missing metadata.name in object")
        #expect(says("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"\"\n") == "missing metadata.name in object")
        // (eknathdj/devops-gitops-flux's chart templates, `name: {{ include "app.fullname" . }}`)
        #expect(says("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"x\" . }}\n") == "missing metadata.name in object")
        #expect(says("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [a]\n") == "missing metadata.name in object")
        #expect(says("apiVersion: v1\nmetadata:\n  name: x\n") == "missing kind in object")
        #expect(says("metadata:\n  name: x\n") == "missing kind in object")
        #expect(says("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\nfoo: bar\n") == "missing Resource metadata")
        #expect(says("kind: List\nitems:\n- foo: bar\n") == "missing Resource metadata")
        for passed in ["# a comment\n", "", "---\n---\n", "null\n", "~\n", "{}\n", "kind: ConfigMap\nmetadata:\n  name: x\n",
                       "apiVersion: v1\nkind: ConfigMapList\nitems: []\n", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 5\n"] {
            #expect(says(passed) == nil, "\(passed)")
        }
    }

    @Test func aClusterWithoutItsOwnInstallationTakesTheRepositorysOneVersion() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0").merging(bootstrapFiles("clusters/test", flux: nil)) { a, _ in a }
        func testFlux() throws -> String? {
            try lintReport(files, asFound: true).model?.clusters.clusters.first { $0.name == "clusters/test" }?.fluxOrigin
        }
        #expect(try testFlux() == "app.kubernetes.io/version v2.4.0 of Namespace flux-system in clusters/prod/flux-system/gotk-components.yaml, "
                + "the repository's only Flux installation")
        // another cluster's installation: an assumption, which the findings that depend on it state
        #expect(try lintReport(files, asFound: true).model?.clusters.clusters.first { $0.name == "clusters/test" }?.fluxPremise
                == "assuming cluster clusters/test runs that Flux, as the repository's other clusters do (nothing here installs its own); "
                + "set fluxVersion of cluster clusters/test under clusters: in .tagwarden.yaml to name the Flux it runs")
        files["base/flux/kustomization.yaml"] = "resources:\n  - https://github.com/fluxcd/flux2/releases/download/v2.4.0/install.yaml\n"
        let both = try testFlux()
        #expect(both == "the Flux release's install.yaml v2.4.0 that base/flux/kustomization.yaml lists, "
                + "the version of each Flux installation the repository holds", "\(both ?? "nil")")
    }

    /// operinko/homeops: the cluster installs Flux with a HelmRelease of flux-operator's flux-instance chart that names
    /// no release (the chart's default, the latest 2.x); an archived gotk-components.yaml that no cluster applies is not
    /// its Flux. Where the cluster has no installation of its own, that archived one's version is an assumption.
    @Test func aClusterRunsItsOwnInstallationOfNoWrittenReleaseNotAnArchivedOne() throws {
        var files = [
            "kubernetes/flux/cluster/ks.yaml": fluxKustomization(name: "cluster-apps", path: "./kubernetes/apps",
                                                                 spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n"),
            "kubernetes/apps/flux-system/flux-instance/helmrelease.yaml": """
                apiVersion: helm.toolkit.fluxcd.io/v2
                kind: HelmRelease
                metadata: {name: flux-instance, namespace: flux-system}
                spec:
                  chartRef: {kind: OCIRepository, name: flux-instance}
                  values:
                    instance:
                      distribution: {artifact: "oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:v0.40.0"}
                      sync: {kind: GitRepository, url: "https://github.com/acme/fleet", ref: refs/heads/main, path: kubernetes/flux/cluster}

                """,
            "kubernetes/apps/default/policy.yaml": "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\n"
                + "metadata: {name: web, namespace: flux-system}\nspec: {image: ghcr.io/acme/web}\n",
            "archive/flux/gotk-components.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n  labels:\n"
                + "    app.kubernetes.io/part-of: flux\n    app.kubernetes.io/version: v2.0.1\n",
        ]
        func removed() throws -> [String] {
            try lint(files, asFound: true).filter { $0.rule == "api-removed" }.map { "\($0.severity) \($0.rendered) \($0.message)" }
        }
        #expect(try lintReport(files, asFound: true).model?.clusters.clusters.map { "\($0.name) \($0.flux.map(\.description) ?? "unknown")" }
                == ["kubernetes/flux/cluster unknown"])
        #expect(try removed() == [])
        // bootstrap's components without a version: the archived installation's, as a premise
        files["kubernetes/apps/flux-system/flux-instance/helmrelease.yaml"] = nil
        files.merge(bootstrapFiles("kubernetes/flux/cluster", flux: nil)) { a, _ in a }
        #expect(try removed() == ["warning api-removed kubernetes/apps/default/policy.yaml:1:13 image.toolkit.fluxcd.io/v1 ImageRepository is not "
                                  + "served by Flux 2.0.1 (app.kubernetes.io/version v2.0.1 of Namespace flux-system in archive/flux/gotk-components.yaml, "
                                  + "the repository's only Flux installation) (v1 came in Flux 2.7): the API server refuses it, and whatever applies it "
                                  + "fails (a Flux Kustomization as a whole); use image.toolkit.fluxcd.io/v1beta2 (assuming cluster kubernetes/flux/cluster runs that "
                                  + "Flux, though no cluster here applies its installation; set fluxVersion of cluster kubernetes/flux/cluster under "
                                  + "clusters: in .tagwarden.yaml to name the Flux it runs)"])
    }

    @Test func theReleaseAClusterInstallsIsReadFromItsInstallationsSource() throws {
        /// The Flux of the one cluster, with where it was read, when its gotk-components.yaml is `components`.
        func flux(components: String) throws -> String? {
            var files = bootstrapFiles("clusters/prod", flux: nil)
            files["clusters/prod/flux-system/gotk-components.yaml"] = components
            let model = try lintReport(files, asFound: true).model
            return model?.clusters.clusters.first.flatMap { c in c.flux.map { "\($0) (\(c.fluxOrigin ?? ""))" } }
        }
        #expect(try flux(components: "apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\n"
                         + "metadata: {name: flux-manifests, namespace: flux-system}\nspec:\n  url: oci://ghcr.io/fluxcd/flux-manifests\n  ref:\n    tag: v2.4.0\n")
                == "2.4.0 (OCIRepository flux-manifests of Flux's manifests in clusters/prod/flux-system/gotk-components.yaml:7, tag v2.4.0)")
        #expect(try flux(components: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n  labels:\n"
                         + "    app.kubernetes.io/part-of: flux\n    app.kubernetes.io/version: v0.0.0-dev.0\n") == nil)
        // Flux 0.8 labels its Namespace with its instance and version, no `part-of` (hackability-dev/env-space-hackabilty-dev)
        #expect(try flux(components: "apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    app.kubernetes.io/instance: flux-system\n"
                         + "    app.kubernetes.io/version: v0.8.2\n  name: flux-system\n")
                == "0.8.2 (app.kubernetes.io/version v0.8.2 of Namespace flux-system in clusters/prod/flux-system/gotk-components.yaml)")
        // another Namespace's version label says nothing of Flux
        #expect(try flux(components: "apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    app.kubernetes.io/instance: web\n"
                         + "    app.kubernetes.io/version: v0.8.2\n  name: web\n") == nil)
        // the install.yaml of a release that a base kustomization lists
        var repo = bootstrapFiles("clusters/prod", flux: nil)
        repo["clusters/prod/flux-system/kustomization.yaml"] = "resources: [gotk-sync.yaml, ../../../base/flux-system]\n"
        repo["base/flux-system/kustomization.yaml"] = "resources:\n  - https://github.com/fluxcd/flux2/releases/download/v0.28.5/install.yaml\n"
        repo["clusters/prod/images.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1alpha1\nkind: ImagePolicy\nmetadata: {name: web, namespace: flux-system}\n"
            + "spec:\n  imageRepositoryRef: {name: web}\n  policy: {semver: {range: '>=1.0.0'}}\n"
        let report = try lintReport(repo, asFound: true)
        #expect(report.model?.clusters.clusters.first?.fluxOrigin == "the Flux release's install.yaml v0.28.5 that base/flux-system/kustomization.yaml lists")
        #expect(report.findings.filter { $0.rule.hasPrefix("api-") }.map { "\($0.rule) \($0.severity)" } == ["api-deprecated note"], "\(report.findings)")
        // kustomize's remote of the manifests, with `//` where the repository ends (milung/ambulance-gitops: v2.0.1)
        repo["base/flux-system/kustomization.yaml"] = "resources:\n  - https://github.com/fluxcd/flux2//manifests/install?ref=v2.0.1\n"
        #expect(try lintReport(repo, asFound: true).model?.clusters.clusters.first?.flux.map(String.init(describing:)) == "2.0.1")
    }

    /// T41-Ch1/mystok-gcp-flux-prod: no version is written, but the cluster's own CRDs (Flux 0.8's) serve v1alpha1: the
    /// deprecation names them, not the current Flux that is assumed.
    @Test func whereOnlyTheComponentsCRDsSayTheMessageNamesThem() throws {
        var files = bootstrapFiles("clusters/prod", flux: nil, crds: """
        ---
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: imagepolicies.image.toolkit.fluxcd.io}
        spec:
          group: image.toolkit.fluxcd.io
          names: {kind: ImagePolicy}
          versions:
            - {name: v1alpha1, served: true, storage: true}

        """)
        files["clusters/prod/policy.yaml"] = imagePolicy(apiVersion: "v1alpha1")
        let res = try lint(files, asFound: true).filter { $0.rule.hasPrefix("api-") }
        #expect(res.map(\.message) == ["image.toolkit.fluxcd.io/v1alpha1 ImagePolicy is removed in Flux 0.37; the Flux components of cluster "
                                       + "clusters/prod (their CustomResourceDefinition) still serve it: no later apiVersion of ImagePolicy is served "
                                       + "there: upgrade Flux first (v1beta1 from Flux 0.16), then move to it"], "\(res)")
    }

    /// The version map, as the controllers' CustomResourceDefinitions at each release have it.
    @Test func whichFluxServesWhichImageAPI() {
        #expect(FluxAPIs.served(by: FluxVersion(0, 12), kind: "ImagePolicy") == ["v1alpha1"])
        #expect(FluxAPIs.served(by: FluxVersion(0, 28, 5), kind: "ImagePolicy") == ["v1beta1", "v1alpha2", "v1alpha1"])
        #expect(FluxAPIs.served(by: FluxVersion(0, 37), kind: "ImagePolicy") == ["v1beta1"])
        #expect(FluxAPIs.served(by: FluxVersion(0, 40), kind: "ImagePolicy") == ["v1beta2", "v1beta1"])
        #expect(FluxAPIs.served(by: FluxVersion(2, 2), kind: "ImageUpdateAutomation") == ["v1beta1"])
        #expect(FluxAPIs.served(by: FluxVersion(2, 3), kind: "ImageUpdateAutomation") == ["v1beta2", "v1beta1"])
        #expect(FluxAPIs.served(by: FluxVersion(2, 8), kind: "ImageRepository") == ["v1", "v1beta2"])
        #expect(FluxAPIs.served(by: FluxVersion(2, 9), kind: "ImageRepository") == ["v1"])
    }
}

@Suite struct RootClusterTests {
    /// tyagi-raj/eks-workshop-migration: a Flux Kustomization at the repository's root names the cluster `.`, as the
    /// messages and `init` write it, and the config's `.` is that cluster.
    @Test func theClusterAtTheRootIsNamedDotInMessagesAndInTheConfig() throws {
        var files: [String: String] = [:]
        files["apps.yaml"] = fluxKustomization(path: "./apps")
        files["apps/policy.yaml"] = imageRepository() + "---\n" + imagePolicy(apiVersion: "v1beta2")
        let assumed = try lint(files).filter { $0.rule == "api-removed" }
        #expect(assumed.count == 1)
        #expect(assumed.first?.message.contains("set fluxVersion of cluster . under clusters: in .tagwarden.yaml") == true, "\(assumed)")
        let declared = try lint(files, config: "clusters:\n  - {name: ., fluxVersion: '2.7'}\n")
        #expect(declared.filter { $0.rule == "api-removed" }.isEmpty, "\(declared.rendered)")
    }
}

@Suite struct FluxComponentsTests {
    /// Kru2003/budget-fluxcd: Flux's components are in the repository, their Namespace labelled without a version. The
    /// installation is here, so a source the repository lacks is not one a platform may make: a fact, not a premise.
    @Test func fluxsComponentsWithoutAVersionAreAnInstallationHere() throws {
        var files: [String: String] = [:]
        files["cluster/flux-system/components.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n"
            + "  labels: {app.kubernetes.io/part-of: flux, app.kubernetes.io/instance: flux-system}\n"
        files["cluster/flux-system/sync.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: primary, namespace: flux-system}\n"
            + "spec: {url: 'ssh://git@github.com/example/repo.git'}\n---\n"
            + fluxKustomization(name: "primary", path: "cluster", spec: "  sourceRef: {kind: GitRepository, name: primary}\n")
        files["cluster/app/auto.yaml"] = imageUpdateAutomation(name: "app", namespace: "app", source: "primary", path: "./cluster/app")
        let res = try lint(files, asFound: true).filter { $0.rule == "automation-unknown-source" }
        #expect(res.map { "\($0.severity) \($0.rendered)" } == ["error automation-unknown-source cluster/app/auto.yaml:5:42"], "\(res.map(\.message))")
        #expect(res.first?.message.contains("no Flux installation here") == false, "\(res.map(\.message))")
    }
}

@Suite struct FluxHeaderTests {
    /// kingdon-ci/fleet-infra: one cluster runs Flux 2.4 (a minor version only), another 2.4.0. They are one version in
    /// order and two in text: the header lists them the same way in every run, not in the order a dictionary hashes.
    @Test func versionsEqualInOrderAreListedByTheirText() throws {
        var files: [String: String] = [:]
        for c in ["a", "b"] { files["\(c)/apps.yaml"] = fluxKustomization(path: "./\(c)") }
        let config = "clusters:\n  - {name: a, paths: ['a/**'], fluxVersion: '2.4.0'}\n  - {name: b, paths: ['b/**'], fluxVersion: '2.4'}\n"
        let model = try #require(try lintReport(files, config: config).model)
        #expect(model.fluxHeader == "2.4 in cluster b; 2.4.0 in cluster a", "\(model.fluxHeader)")
    }
}

@Suite struct VariableImageTests {
    /// The ImageRepository's image comes from a variable nothing here defines (a ConfigMap Terraform makes): a field
    /// of an image it may watch is judged as promoted by assumption, a warning that names the variable and the key
    /// that settles it; the config's value makes it a fact.
    @Test func anImageRepositoryWrittenWithAnUnknownVariableWatchesItsImageByAssumption() throws {
        var files: [String: String] = [:]
        files["clusters/production/apps.yaml"] = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: apps, namespace: flux-system}
        spec:
          path: ./apps/production
          postBuild:
            substituteFrom:
              - {kind: ConfigMap, name: cluster-vars}

        """
        files["apps/production/flux.yaml"] = imageRepository(image: "'${image_registry}/web'") + "---\n" + imagePolicy()
        files["apps/production/web.yaml"] = deployment(namespace: "production", image: "ghcr.io/acme/web:staging-v1.2.3-abc1234-1700000000")
        files["apps/production/auto.yaml"] = imageUpdateAutomation(name: "production", path: "./apps/production")
        files["apps/production/other.yaml"] = deployment(name: "other", namespace: "production", image: "ghcr.io/acme/webhook:staging-v1")
        let config = "clusters:\n  - {name: production, paths: ['**']}\n"
        let all = try lint(files, config: config, profile: "strict")
        let guessed = all.filter { $0.rule == "image-env-prefix" }
        #expect(guessed.map { "\($0.file):\($0.line):\($0.severity.rawValue)" } == ["apps/production/web.yaml:9:warning"])
        #expect(guessed.first?.message == "tag 'staging-v1.2.3-abc1234-1700000000' of promoted image 'ghcr.io/acme/web' lacks the production "
                + "prefix 'production-': it is a staging tag (assuming ImageRepository flux-system/web ('${image_registry}/web') watches it: "
                + "image_registry is not defined here; set it under substitute: of its cluster in .tagwarden.yaml)")
        // the automation's update.path holds the field, which has no marker: Flux leaves it as written
        #expect(all.filter { $0.rule == "marker-missing" }.map { "\($0.file):\($0.line):\($0.severity.rawValue)" } == ["apps/production/web.yaml:9:warning"])
        #expect(all.first { $0.rule == "marker-missing" }?.message.hasSuffix("(assuming ImageRepository flux-system/web ('${image_registry}/web') "
                + "watches it: image_registry is not defined here; set it under substitute: of its cluster in .tagwarden.yaml)") == true)
        let settled = try lint(files, config: config.replacingOccurrences(of: "]}", with: "], substitute: {image_registry: ghcr.io/acme}}"),
                               profile: "strict").filter { ["image-env-prefix", "marker-missing"].contains($0.rule) }
        #expect(settled.map { "\($0.rule) \($0.file):\($0.line):\($0.severity.rawValue)" }
                == ["image-env-prefix apps/production/web.yaml:9:error", "marker-missing apps/production/web.yaml:9:error"])
        // another registry in the config: the field is another image's, and not promoted
        let other = try lint(files, config: config.replacingOccurrences(of: "]}", with: "], substitute: {image_registry: quay.io/acme}}"),
                             profile: "strict")
        #expect(other.filter { ["image-env-prefix", "marker-missing"].contains($0.rule) }.isEmpty)
    }
}

@Suite struct ThisRoundsRepositoriesTests {
    /// dex4er/terraform-eks-flux-demo: an `images:` entry named with the tag (`public.ecr.aws/bitnami/kubectl:latest`)
    /// matches the reference written so (kustomize's IsImageMatched compares the whole reference), and kustomize keeps
    /// the name it splits from it: `kubectl kustomize` makes `public.ecr.aws/bitnami/kubectl:1.31.2`. The base's
    /// `latest` never runs, and the entry's image is that, not `…:latest:1.31.2`.
    @Test func anEntryNamedWithTheTagRetagsTheReferenceWrittenSo() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/app.yaml"] = fluxKustomization(name: "app", path: "./app", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["app/deployment.yaml"] = deployment(namespace: "default", image: "public.ecr.aws/bitnami/kubectl:latest")
        files["app/kustomization.yaml"] = "resources: [deployment.yaml]\nimages:\n  - name: public.ecr.aws/bitnami/kubectl:latest\n    newTag: 1.31.2\n"
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered) == [])
        // an entry named with another tag matches nothing: the base's latest runs
        files["app/kustomization.yaml"] = "resources: [deployment.yaml]\nimages:\n  - name: public.ecr.aws/bitnami/kubectl:1.0\n    newTag: 1.31.2\n"
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered)
                == ["image-latest-tag app/deployment.yaml:9:18", "image-entry-unmatched app/kustomization.yaml:3:11"])
    }

    /// mrwulf/home-cluster: a GitRepository `http://git.home.${SECRET_DOMAIN}/brandon/other.git` names another repository
    /// whatever the variable is, since its path is not this repository's (the FluxInstance syncs acme/fleet): its
    /// Kustomization's `path: ./` applies none of these files. Where a variable stands in the path, the URL may be this
    /// repository's.
    @Test func aURLWithAVariableIsAnotherRepositoryWhereItsLiteralPathIs() throws {
        var files: [String: String] = [:]
        files["clusters/prod/flux-instance.yaml"] = """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata:
              name: flux
              namespace: flux-system
            spec:
              distribution:
                version: "2.x"
                registry: ghcr.io/fluxcd
              sync:
                kind: GitRepository
                url: https://gitlab.com/acme/fleet
                ref: refs/heads/main
                path: ./clusters/prod

            """
        files["clusters/prod/other.yaml"] = """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata:
              name: other-git
              namespace: flux-system
            spec:
              interval: 1h
              url: http://git.home.${SECRET_DOMAIN}/brandon/other.git
              ref:
                branch: main

            """ + "---\n" + fluxKustomization(name: "other-apps", path: "./", spec: "  sourceRef: {kind: GitRepository, name: other-git}\n")
        files["tools/job.yaml"] = deployment(namespace: "default", image: "busybox:latest")
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map { "\($0.severity) \($0.rendered)" }
                == ["warning image-latest-tag tools/job.yaml:9:18"])
        #expect(Model.pointsElsewhere("http://git.home.${SECRET_DOMAIN}/brandon/other.git", here: ["acme/fleet"]))
        #expect(!Model.pointsElsewhere("https://gitlab.com/${ORG}/fleet", here: ["acme/fleet"]))
        #expect(!Model.pointsElsewhere("https://gitlab.com/acme/${REPO}.git", here: ["acme/fleet"]))
        #expect(Model.pointsElsewhere("https://gitlab.com/${ORG}/other", here: ["acme/fleet"]))
    }

    /// The set's smaller causes. stackhpc/fluxcd-demo-apps: `repository: ""` in a release's values leaves the chart's
    /// (slurm's template has `| default`), as `tag: ""` does. USA-RedDragon/home-cluster-flux: a kustomization's
    /// `namespace: mosquitto` renames its Namespace `vaultwarden` (`kubectl kustomize`: `name: mosquitto`), so the build
    /// that takes both apps takes Namespace mosquitto twice, which kustomize refuses (`kubectl kustomize apps`: "may not
    /// add resource with an already registered id: Namespace.v1.[noGrp]/mosquitto"). cryptophys-work/platform-gitops: `v1` and `v1beta2` of one HelmRepository are
    /// two resources to kustomize's ResId (`kubectl kustomize` emits both), and one object to the API server.
    /// ulrikjohansson/flux-homelab-cluster: kustomize
    /// decodes a kustomization as Go's encoding/json does, so `newtag:` sets the tag.
    @Test func anEmptyRepositoryARenamedNamespaceTwoVersionsAndAFieldOfAnotherCase() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/kustomization.yaml"] = "resources: [release.yaml, vaultwarden, mosquitto, web]\n"
        // (a build of their own: what only the refused build of apps takes deploys nothing, and replaces nothing)
        files["clusters/prod/sources.yaml"] = fluxKustomization(name: "sources", path: "./sources", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/release.yaml"] = """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: slurm, namespace: slurm}
            spec:
              chart: {spec: {chart: slurm, version: 0.1.0, sourceRef: {kind: HelmRepository, name: slinky}}}
              values:
                compute:
                  image: {repository: ghcr.io/slinkyproject/slurmd, tag: 24.05-ubuntu-24.04}
                  nodesets:
                    - name: dawn
                      image: {repository: "", tag: ""}

            """
        files["apps/vaultwarden/kustomization.yaml"] = "namespace: mosquitto\nresources: [ns.yaml]\n"
        files["apps/vaultwarden/ns.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: vaultwarden\n"
        files["apps/mosquitto/kustomization.yaml"] = "namespace: mosquitto\nresources: [ns.yaml]\n"
        files["apps/mosquitto/ns.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: mosquitto\n"
        files["sources/kustomization.yaml"] = "resources: [a.yaml, b.yaml]\n"
        for (file, version) in [("a", "v1"), ("b", "v1beta2")] {
            files["sources/\(file).yaml"] = "apiVersion: source.toolkit.fluxcd.io/\(version)\nkind: HelmRepository\n"
                + "metadata: {name: crossplane, namespace: flux-system}\nspec: {url: https://charts.crossplane.io/stable}\n"
        }
        files["apps/web/kustomization.yaml"] = "resources: [../../base]\nimages:\n- name: application\n  newName: ghcr.io/acme/app\n  newtag: \"1.2.3\"\n"
        files["base/kustomization.yaml"] = "resources: [deployment.yaml]\n"
        files["base/deployment.yaml"] = deployment(namespace: "default", image: "application")
        let all = try lint(files, asFound: true).filter { $0.rule != "policy-unused" }
        let found = all.map { "\($0.severity) \($0.rendered)" }
        #expect(found == ["error kustomization-build-fails apps/vaultwarden/ns.yaml:2:7", "note object-duplicate sources/b.yaml:2:7"], "\(found)")
        #expect(all.first?.message.hasPrefix("kustomize refuses the build: the kustomization apps/kustomization.yaml takes Namespace mosquitto "
            + "twice, here and in apps/mosquitto/ns.yaml:2") == true, "\(all.map(\.message))")
    }


    /// 160683231-myseneca/Group10_Project_CLO835: a `kustomization.yaml` that holds a Flux Kustomization is a
    /// kustomization file all the same to Flux's generator, which generates none where a file of that name is: no
    /// generated build takes the directory's files (nor its chart's Chart.yaml); kustomize refuses the file itself.
    @Test func aKustomizationFileHoldingAFluxKustomizationStopsFluxsGenerator() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/app.yaml"] = fluxKustomization(name: "app", path: "./app", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["app/kustomization.yaml"] = fluxKustomization(name: "inner", path: "./app", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["app/Chart.yaml"] = "apiVersion: v2\nname: app\nversion: 0.1.0\n"
        let found = try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered)
        #expect(found == ["kustomization-build-fails app/kustomization.yaml:4:1"], "\(found)")
    }

    /// kustomize applies a kustomization's `images:` entries one after another: a later entry of the same name sets the
    /// tag again (`kubectl kustomize`: `ghcr.io/acme/web:1.2.3`), so the first entry's `latest` never runs.
    @Test func aLaterEntryOfTheSameNameSetsTheTagAgain() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/app.yaml"] = fluxKustomization(name: "app", path: "./overlay", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["base/kustomization.yaml"] = "resources: [deploy.yaml]\n"
        files["base/deploy.yaml"] = deployment(namespace: "default", image: "ghcr.io/acme/web:1.0.0")
        files["overlay/kustomization.yaml"] = "resources: [../base]\nimages:\n- name: ghcr.io/acme/web\n  newTag: latest\n- name: ghcr.io/acme/web\n  newTag: 1.2.3\n"
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered) == [])
        // the other way round, latest runs
        files["overlay/kustomization.yaml"] = "resources: [../base]\nimages:\n- name: ghcr.io/acme/web\n  newTag: 1.2.3\n- name: ghcr.io/acme/web\n  newTag: latest\n"
        let found = try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered)
        #expect(found == ["image-latest-tag overlay/kustomization.yaml:6:11"], "\(found)")
    }

    /// thaynes43/haynes-ops: a component the values turn off (`pgbouncer.enabled: false` in the chart's values.yaml, or
    /// `minio.enabled: false` in the release's) renders no image in the chart (its templates begin `{{- if
    /// .Values.pgbouncer.enabled }}`): its image's findings are notes that say so; an image of a component left on is
    /// judged.
    @Test func anImageOfAComponentTheValuesTurnOffIsANote() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "demo", path: "./apps/demo/app", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/demo/app/helmrelease.yaml"] = """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: demo, namespace: default}
            spec:
              chart: {spec: {chart: ./apps/demo/chart, sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}}}
              values:
                minio: {enabled: false}
                redis: {enabled: "false", image: {repository: redis, tag: latest}}

            """
        files["apps/demo/chart/Chart.yaml"] = "apiVersion: v2\nname: demo\nversion: 0.1.0\n"
        files["apps/demo/chart/values.yaml"] = """
            app: {image: nginx:latest}
            pgbouncer:
              enabled: false
              image: edoburu/pgbouncer:latest
            minio:
              enabled: true
              image: {repository: minio/minio, tag: latest}

            """
        let found = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }.map { "\($0.severity) \($0.rendered)" }
        // (a quoted "false" is a string, which a template's `if` takes as true)
        #expect(found == ["error image-latest-tag apps/demo/app/helmrelease.yaml:8:63", "error image-latest-tag apps/demo/chart/values.yaml:1:14",
                          "note image-latest-tag apps/demo/chart/values.yaml:4:10", "note image-latest-tag apps/demo/chart/values.yaml:7:41"], "\(found)")
    }


    /// huangyingting/flux2-gitops: a base that only an overlay of staging takes, which no cluster applies (the staging
    /// cluster's kustomization does not list it): the image is in staging's builds, not deployed by them.
    @Test func aBaseOnlyAnUnappliedOverlayTakesIsInItsBuildsNotDeployed() throws {
        var files = bootstrapFiles("clusters/staging", flux: "v2.4.0")
        files["system/base/auth/kustomization.yaml"] = "resources: [deployment.yaml]\n"
        files["system/base/auth/deployment.yaml"] = deployment(name: "auth", namespace: "default", image: "thomseddon/traefik-forward-auth:latest")
        files["system/staging/auth/kustomization.yaml"] = "resources: [../../base/auth]\n"
        let found = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(found.map(\.message) == ["image 'thomseddon/traefik-forward-auth:latest' uses the tag 'latest', which moves with every push: "
                                         + "pin a version or a digest (in builds of staging) (no cluster in this repository applies this file)"],
                "\(found.map(\.message))")
    }

    /// huangyingting/flux2-gitops: staging's apps build takes the echo base three ways, as echo and echo-canary (with its
    /// tag) and as echo-mirror (whose images: entry sets another): no other build replaces the tag, the same one does.
    @Test func aBuildThatTakesABaseAsWrittenAndRetaggedSaysSo() throws {
        var files = bootstrapFiles("clusters/staging", flux: "v2.4.0")
        files["clusters/staging/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/staging", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/base/echo/kustomization.yaml"] = "resources: [deployment.yaml]\n"
        files["apps/base/echo/deployment.yaml"] = deployment(name: "echo", namespace: "echo", image: "ghcr.io/acme/echo:latest")
        files["apps/staging/kustomization.yaml"] = "resources: [echo, echo-canary, echo-mirror]\n"
        files["apps/staging/echo/kustomization.yaml"] = "resources: [../../base/echo]\n"
        files["apps/staging/echo-canary/kustomization.yaml"] = "resources: [../../base/echo]\nnameSuffix: -canary\n"
        files["apps/staging/echo-mirror/kustomization.yaml"] = "resources: [../../base/echo]\nnameSuffix: -mirror\nimages:\n- name: ghcr.io/acme/echo\n  newTag: 0.0.4\n"
        let found = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(found.map(\.message) == ["image 'ghcr.io/acme/echo:latest' uses the tag 'latest', which moves with every push: pin a version or "
                                         + "a digest (deployed with this tag by Flux Kustomization apps (clusters/staging/apps.yaml), which also takes "
                                         + "it another way that replaces or drops it)"], "\(found.map(\.message))")
        // a production build that takes only the retagged way: the other builds replace it
        files["clusters/production/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/staging/echo-mirror",
                                                                   spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        let two = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(two.count == 1 && two[0].message.contains("(deployed with this tag by Flux Kustomization apps (clusters/staging/apps.yaml); "
                                                          + "the other builds replace or drop it)"), "\(two.map(\.message))")
    }

    /// H3mul/homelab-k3s-flux: gitea's chart gives `test.image` (`busybox:latest`) to its test-connection Pod, a `helm
    /// test` hook, which Flux runs only where the release sets `spec.test.enable`: the finding is a note that says so, as
    /// for grafana's `testFramework`; where the release runs its tests, an error again. angelnu/k8s-gitops: app-template's
    /// controller named `test` is deployed like any other. abaas-madscience/home-k8s-gitops-flux: qdrant's chart gives
    /// `chartTests.dbInteraction.image` to its test-db-interaction Pod, a `helm test` hook too.
    @Test func anImageOfAChartsTestHooksIsANoteWhereFluxRunsNoTests() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "gitea", path: "./apps/gitea", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/gitea/helmrelease.yaml"] = """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: gitea, namespace: default}
            spec:
              chart: {spec: {chart: gitea, version: 10.1.4, sourceRef: {kind: HelmRepository, name: gitea, namespace: flux-system}}}
              values:
                image: {repository: gitea/gitea, tag: latest}
                test:
                  enabled: true
                  image: {name: busybox, tag: latest}
                testFramework: {image: {repository: bats/bats, tag: latest}}
                controllers:
                  test: {containers: {main: {image: {repository: ghcr.io/angelnu/comics-rss-feed, tag: latest}}}}
                chartTests: {dbInteraction: {image: registry.suse.com/bci/bci-base:latest}}

            """
        let found = try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }
        #expect(found.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/gitea/helmrelease.yaml:7:43",
                                                                  "note image-latest-tag apps/gitea/helmrelease.yaml:10:35",
                                                                  "note image-latest-tag apps/gitea/helmrelease.yaml:11:57",
                                                                  "error image-latest-tag apps/gitea/helmrelease.yaml:13:92",
                                                                  "note image-latest-tag apps/gitea/helmrelease.yaml:14:41"], "\(found)")
        #expect(found[1].message.hasSuffix("(the values under test: give the image of the chart's helm test hooks, assuming the chart "
            + "uses them so, as charts do (gitea's test-connection Pod): Flux runs a release's tests only with spec.test.enable, which "
            + "HelmRelease default/gitea does not set)"), "\(found[1].message)")
        files["apps/gitea/helmrelease.yaml"] = files["apps/gitea/helmrelease.yaml"]!.replacingOccurrences(of: "  values:\n", with: "  test: {enable: true}\n  values:\n")
        #expect(try lint(files, asFound: true).filter { $0.rule == "image-latest-tag" }.map { "\($0.severity) \($0.rendered)" }
                == ["error image-latest-tag apps/gitea/helmrelease.yaml:8:43", "error image-latest-tag apps/gitea/helmrelease.yaml:11:35",
                    "error image-latest-tag apps/gitea/helmrelease.yaml:12:57", "error image-latest-tag apps/gitea/helmrelease.yaml:14:92",
                    "error image-latest-tag apps/gitea/helmrelease.yaml:15:41"])
    }

    /// Jacob-Roberts/homelab: `kubernetes/.sourceignore` names `talos-patch.yaml`; source-controller reads every
    /// `.sourceignore` of the repository, each under its own directory, so the file is not in the artifact and the build
    /// Flux generates never reads it. gadgetmg/home: a `configurations:` file may give kustomize's images transformer a
    /// field of its own (a Provider's `spec/package`), so an entry that matches no container image may match there.
    @Test func aNestedSourceIgnoreAndAConfigurationsFile() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps/web.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\n"
        files["clusters/prod/apps/.sourceignore"] = "# not for Flux\nvalues.yaml\n"
        files["clusters/prod/apps/values.yaml"] = "replicaCount: 2\n"
        files["clusters/prod/app.yaml"] = fluxKustomization(name: "app", path: "./app", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["app/kustomization.yaml"] = "resources: [provider.yaml]\ncomponents: [../comp]\nimages:\n- name: ghcr.io/crossplane-contrib/provider-keycloak\n  newTag: v2.24.0\n"
        files["app/provider.yaml"] = "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: provider-keycloak}\nspec: {package: ghcr.io/crossplane-contrib/provider-keycloak}\n"
        files["comp/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nconfigurations: [images.yaml]\n"
        files["comp/images.yaml"] = "images:\n- path: spec/package\n  kind: Provider\n"
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered) == [])
        // the same file where the nested ignore file names another: the build fails
        files["clusters/prod/apps/.sourceignore"] = "other.yaml\n"
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered)
                == ["kustomization-build-fails clusters/prod/apps/values.yaml:1:1"])
        // a configurations: file of name references only (activescott/home-infra-k8s-flux) leaves the images transformer
        // as it is: the entry matches nothing
        files["comp/images.yaml"] = "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - kind: ImageRepository\n    path: spec/secretRef/name\n"
        let unmatched = try lint(files, asFound: true).filter { $0.severity != .note && $0.rule != "kustomization-build-fails" }.map(\.rendered)
        #expect(unmatched == ["image-entry-unmatched app/kustomization.yaml:4:9"], "\(unmatched)")
        #expect(Model.ignoredBelowRoot("a/b/c.yaml", rootIgnore: nil, read: { $0 == "a/.sourceignore" ? "/b/\n" : nil }))
        #expect(!Model.ignoredBelowRoot("b/c.yaml", rootIgnore: nil, read: { $0 == "a/.sourceignore" ? "/b/\n" : nil }))
    }


    /// jordi-axpo/flux-infra: one base ImagePolicy, whose ImageRepository each cluster's build patches to its own image
    /// (`ghcr.io/example/web-<env>`); in cluster prod the policy reads web-prod, which the prod overlay's `:name` marker
    /// names: what Flux writes is what is written, no mismatch. A field naming another image still is one.
    @Test func aSharedPolicyReadsEachClustersPatchedRepository() throws {
        var files: [String: String] = [:]
        for env in ["dev", "prod"] {
            files["clusters/\(env)/flux-system/gotk-sync.yaml"] = """
                apiVersion: source.toolkit.fluxcd.io/v1
                kind: GitRepository
                metadata: {name: flux-system, namespace: flux-system}
                spec: {interval: 1m0s, ref: {branch: main}, url: ssh://git@github.com/example/fleet}
                ---
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata: {name: flux-system, namespace: flux-system}
                spec: {interval: 10m0s, path: ./clusters/\(env), prune: true, sourceRef: {kind: GitRepository, name: flux-system}}

                """
            files["clusters/\(env)/flux-system/kustomization.yaml"] = "resources: [gotk-sync.yaml]\n"
            files["clusters/\(env)/infra.yaml"] = fluxKustomization(name: "infra", path: "./infra/\(env)", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
            files["infra/\(env)/kustomization.yaml"] = "resources: [../base]\npatches:\n  - path: patch.yaml\n"
            files["infra/\(env)/patch.yaml"] = """
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageRepository
                metadata: {name: web, namespace: flux-system}
                spec: {image: ghcr.io/example/web-\(env)}
                ---
                apiVersion: image.toolkit.fluxcd.io/v1
                kind: ImageUpdateAutomation
                metadata: {name: web, namespace: flux-system}
                spec: {update: {path: ./app/\(env)}}
                ---
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata: {name: web, namespace: flux-system}
                spec: {path: ./app/\(env)}

                """
            files["app/\(env)/kustomization.yaml"] = """
                resources: [../base]
                images:
                  - name: ghcr.io/example/web
                    newName: ghcr.io/example/web-\(env) # {"$imagepolicy": "flux-system:web:name"}
                    newTag: "1.0.7" # {"$imagepolicy": "flux-system:web:tag"}

                """
        }
        files["app/base/kustomization.yaml"] = "resources: [deployment.yaml]\n"
        files["app/base/deployment.yaml"] = deployment(namespace: "default", image: "ghcr.io/example/web:1.0.0")
        files["infra/base/kustomization.yaml"] = "resources: [image.yaml, app.yaml]\n"
        files["infra/base/app.yaml"] = fluxKustomization(name: "web", path: "./app/base", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["infra/base/image.yaml"] = """
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageRepository
            metadata: {name: web, namespace: flux-system}
            spec: {image: ghcr.io/example/web, interval: 5m}
            ---
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImagePolicy
            metadata: {name: web, namespace: flux-system}
            spec:
              imageRepositoryRef: {name: web}
              filterTags: {pattern: '^1\\.0\\.(?P<n>[0-9]+)$', extract: '$n'}
              policy: {numerical: {order: asc}}
            ---
            apiVersion: image.toolkit.fluxcd.io/v1
            kind: ImageUpdateAutomation
            metadata: {name: web, namespace: flux-system}
            spec:
              interval: 5m
              sourceRef: {kind: GitRepository, name: flux-system}
              git: {checkout: {ref: {branch: main}}, commit: {author: {email: bot@example.com, name: bot}}, push: {branch: main}}
              update: {path: ./app/base, strategy: Setters}

            """
        #expect(try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered) == [])
        files["app/prod/kustomization.yaml"] = files["app/prod/kustomization.yaml"]!.replacingOccurrences(of: "newName: ghcr.io/example/web-prod", with: "newName: ghcr.io/example/web-dev")
        let found = try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered)
        #expect(found == ["marker-image-mismatch app/prod/kustomization.yaml:4:38"], "\(found)")
    }


    /// AGarciaRipalda/flux-tyk-gotenberg: the cluster's gotk-components.yaml defines Flux's kinds (its
    /// CustomResourceDefinitions) but none of image automation's: bootstrap ran without `--components-extra`, so no
    /// version of ImageRepository is served there, whatever Flux 2.8 serves with the controller installed.
    @Test func componentsWithoutImageReflectorControllerServeNoImageRepository() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0", crds: fluxCRD("gitrepositories", group: "source", kind: "GitRepository", version: "v1"))
        files["clusters/prod/image.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1beta2\nkind: ImageRepository\n"
            + "metadata: {name: web, namespace: flux-system}\nspec: {image: ghcr.io/acme/web, interval: 5m}\n"
        let found = try lint(files, asFound: true).filter { $0.rule.hasPrefix("api-") }
        #expect(found.map { "\($0.severity) \($0.rendered)" } == ["warning api-removed clusters/prod/image.yaml:1:13"], "\(found.map(\.message))")
        #expect(found.first?.message.contains("(they define no ImageRepository: image-reflector-controller is not among them)") == true)
        #expect(found.first?.message.hasSuffix("(assuming image-reflector-controller is not installed apart from these components, by "
                                               + "something outside this repository)") == true)
    }


    /// renato0307/learning-go-api-iac: components cut short by a YAML error (a stray character in a CRD) define more
    /// kinds than were read: that image-reflector-controller's are not among them is not known, and the apiVersion is
    /// judged by the Flux version alone.
    @Test func componentsCutShortByAYAMLErrorDoNotSayWhatTheyLack() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.8.0", crds: fluxCRD("gitrepositories", group: "source", kind: "GitRepository", version: "v1")
                                   + "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\nspec:\n  a: 1\n 0\n  - b\n")
        files["clusters/prod/image.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\n"
            + "metadata: {name: web, namespace: flux-system}\nspec: {image: ghcr.io/acme/web, interval: 5m}\n"
        let found = try lint(files, asFound: true).filter { $0.severity != .note }
        #expect(found.map { "\($0.severity) \($0.rendered)" } == ["error yaml-syntax clusters/prod/flux-system/gotk-components.yaml:37:2"],
                "\(found.map { "\($0.rendered) \($0.message)" })")
    }

    /// TalhaJuikar/homelab: components without image-automation-controller do not say which one runs an automation, so a
    /// template field Flux 2.7 removed is a premise on one installed apart from them, not a fact of the components' 2.7.3.
    @Test func componentsWithoutImageAutomationControllerDoNotDateItsTemplate() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.3", crds: fluxCRD("gitrepositories", group: "source", kind: "GitRepository", version: "v1"))
        files["clusters/prod/auto.yaml"] = imageUpdateAutomation(name: "auto", path: "./apps")
            .replacingOccurrences(of: "commit: {author: {email: bot@example.com}}",
                                  with: "commit: {author: {email: bot@example.com}, messageTemplate: 'Update {{range .Updated.Images}}{{.}}{{end}}'}")
        let found = try lint(files, asFound: true).filter { $0.rule == "automation-invalid-template" }
        #expect(found.map { "\($0.severity)" } == ["warning"], "\(found.map(\.message))")
        #expect(found.first?.message.hasSuffix("(assuming image-automation-controller, which the Flux components of cluster clusters/prod do not "
                                               + "include, is installed apart from them at Flux 2.7)") == true, "\(found.map(\.message))")
    }

    /// fastlorenzo/d1-fleet: production's Flux Kustomization deletes the image automation its tenant builds (a `$patch:
    /// delete` of everything labelled `toolkit.fluxcd.io/role: automation`), staging's does not: the API is judged in the
    /// cluster that deploys the object, not in production, whose components lack image-automation-controller.
    @Test func anAPIIsJudgedOnlyInTheClustersThatDeployTheObject() throws {
        let crds = fluxCRD("gitrepositories", group: "source", kind: "GitRepository", version: "v1")
        let automationCRD = fluxCRD("imageupdateautomations", group: "image", kind: "ImageUpdateAutomation", version: "v1beta2")
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0", crds: crds)
        files.merge(bootstrapFiles("clusters/staging", flux: "v2.4.0", crds: crds + automationCRD)) { a, _ in a }
        let delete = """
              patches:
                - patch: |
                    $patch: delete
                    apiVersion: all
                    kind: all
                    metadata:
                      name: all
                  target:
                    labelSelector: toolkit.fluxcd.io/role=automation

            """
        files["clusters/prod/tenant.yaml"] = fluxKustomization(name: "tenant", path: "./tenants", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n" + delete)
        files["clusters/staging/tenant.yaml"] = fluxKustomization(name: "tenant", path: "./tenants", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["tenants/update/kustomization.yaml"] = "resources: [automation.yaml]\nlabels:\n  - pairs:\n      toolkit.fluxcd.io/role: automation\n"
        files["tenants/update/automation.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1beta2\nkind: ImageUpdateAutomation\nmetadata: {name: tenant, namespace: flux-system}\n"
            + "spec:\n  interval: 1h\n  sourceRef: {kind: GitRepository, name: flux-system}\n  git: {commit: {author: {name: flux, email: flux@example.com}}}\n"
            + "  update: {path: ./tenants, strategy: Setters}\n"
        let deployed = try lint(files, asFound: true).filter { $0.rule == "api-removed" }
        #expect(deployed.map(\.message) == [], "\(deployed.map(\.rendered))")
        // without the patch, production's Flux is refused it
        files["clusters/prod/tenant.yaml"] = files["clusters/staging/tenant.yaml"]
        let refused = try lint(files, asFound: true).filter { $0.rule == "api-removed" }
        #expect(refused.map(\.rendered) == ["api-removed tenants/update/automation.yaml:1:13"], "\(refused.map(\.message))")
        #expect(refused.first?.message.contains("of cluster clusters/prod") == true, "\(refused.map(\.message))")
    }

    /// tkubica12/gitops-flux-arc: a ring's patch sets only `image.tag` of a HelmRelease whose base writes
    /// `image.repository` (`kubectl kustomize`: `repository: ghcr.io/example/pod_hello`, `tag: 4`): the image is that
    /// repository, not "the chart's own, not read here".
    @Test func aPatchsTagIsOfTheRepositoryItsBaseReleaseWrites() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/ring0.yaml"] = fluxKustomization(name: "ring0", path: "./ring0", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["base/kustomization.yaml"] = "resources: [helm.yaml]\n"
        files["base/helm.yaml"] = """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: app1, namespace: default}
            spec:
              chart: {spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfo}}}
              values:
                image: {repository: ghcr.io/example/pod_hello, tag: "1.0.0"}

            """
        files["ring0/kustomization.yaml"] = "resources: [../base]\npatches:\n  - path: patch.yaml\n"
        files["ring0/patch.yaml"] = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app1, namespace: default}\n"
            + "spec:\n  values:\n    image:\n      tag: \"4\"\n"
        let found = try lint(files, asFound: true).filter { $0.rule == "image-floating-tag" }
        #expect(found.map(\.rendered) == ["image-floating-tag ring0/patch.yaml:7:12"], "\(found.map(\.rendered))")
        #expect(found.first?.message.contains("(the image is ghcr.io/example/pod_hello, which HelmRelease default/app1 (base/helm.yaml) writes "
                                              + "beside the tag this patch replaces)") == true, "\(found.first?.message ?? "")")
        #expect(found.first?.message.contains("chart's own") == false)
    }

    /// gjcourt/homelab: a base's own kustomization and another environment's overlay, which no cluster applies, do not
    /// decide the namespace of what the applied overlays deploy (`kubectl kustomize prod`: `a-prod` and `b-prod`), so
    /// two Secrets of one name in two namespaces are no duplicate.
    @Test func buildsNoClusterAppliesDoNotDecideANamespace() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./prod", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        for app in ["a", "b"] {
            files["base/\(app)/kustomization.yaml"] = "resources: [secret.yaml]\n"
            files["base/\(app)/secret.yaml"] = "apiVersion: v1\nkind: Secret\nmetadata: {name: pull-secret}\nstringData: {k: \(app)}\n"
            files["prod/\(app)/kustomization.yaml"] = "namespace: \(app)-prod\nresources: [../../base/\(app)]\n"
        }
        files["prod/kustomization.yaml"] = "resources: [a, b]\n"
        files["base/kustomization.yaml"] = "resources: [a]\n"
        files["staging/kustomization.yaml"] = "namespace: b-staging\nresources: [../base/b]\n"
        let found = try lint(files, asFound: true).filter { $0.rule == "object-duplicate" }
        #expect(found.isEmpty, "\(found.map(\.message))")
        // the cluster applies the staging overlay too: base/b's Secret is in b-prod and in b-staging, base/a's in a-prod
        var both = files
        both["clusters/prod/staging.yaml"] = fluxKustomization(name: "staging", path: "./staging", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        #expect(try lint(both, asFound: true).filter { $0.rule == "object-duplicate" }.isEmpty)
        // and where the staging overlay moves it into a-prod, the two meet there
        both["staging/kustomization.yaml"] = "namespace: a-prod\nresources: [../base/b]\n"
        let met = try lint(both, asFound: true).filter { $0.rule == "object-duplicate" }
        #expect(met.map { "\($0.severity) \($0.rendered)" } == ["warning object-duplicate base/b/secret.yaml:2:7"], "\(met.map(\.message))")
        // where the second overlay is not applied either, no build that takes base/b decides: they disagree
        files["prod/kustomization.yaml"] = "resources: [a]\n"
        let m = try lintReport(files, asFound: true).model!
        let namespaces = m.objects.indices.filter { m.objects[$0].kind == "Secret" }.map { "\(m.path(m.objects[$0].file)) \(m.objectNamespace[$0] ?? "-")" }
        #expect(namespaces == ["base/a/secret.yaml a-prod", "base/b/secret.yaml -"], "\(namespaces)")
    }

    /// nint8835/ops: each app's kustomization sets its namespace with a builtin NamespaceTransformer written inline under
    /// `transformers:` (`kubectl kustomize apps`: `namespace: a`, `namespace: b`); with `unsetOnly`, an object that
    /// names its own namespace keeps it, and the kustomization's `namespace:` runs before it.
    @Test func anInlineNamespaceTransformerSetsTheNamespace() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["apps/kustomization.yaml"] = "resources: [a, b, c]\n"
        func transformer(_ ns: String, unsetOnly: Bool) -> String {
            "transformers:\n  - |-\n    apiVersion: builtin\n    kind: NamespaceTransformer\n    metadata:\n      name: override\n"
                + "      namespace: \(ns)\n    unsetOnly: \(unsetOnly)\n"
        }
        files["apps/a/kustomization.yaml"] = "resources: [config.yaml]\n" + transformer("a", unsetOnly: true)
        files["apps/b/kustomization.yaml"] = "resources: [config.yaml]\n" + transformer("b", unsetOnly: false)
        files["apps/c/kustomization.yaml"] = "namespace: field\nresources: [config.yaml]\n" + transformer("c", unsetOnly: true)
        for app in ["a", "b", "c"] {
            files["apps/\(app)/config.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: config}\ndata: {who: \(app)}\n---\n"
                + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: own, namespace: mine}\ndata: {who: \(app)}\n"
        }
        let report = try lintReport(files, asFound: true)
        let m = report.model!
        let namespaces = m.objects.indices.filter { m.objects[$0].kind == "ConfigMap" }
            .map { "\(m.path(m.objects[$0].file)) \(m.objects[$0].name ?? "") \(m.objectNamespace[$0] ?? "-")" }
        #expect(namespaces == ["apps/a/config.yaml config a", "apps/a/config.yaml own mine", "apps/b/config.yaml config b",
                               "apps/b/config.yaml own b", "apps/c/config.yaml config field", "apps/c/config.yaml own field"], "\(namespaces)")
        // (the two ConfigMaps `own` that stay in `mine` meet: one replaces the other)
        let found = report.findings.filter { $0.rule == "object-duplicate" }.map(\.rendered)
        #expect(found.isEmpty, "\(found)")
    }

    /// BayajidAlam/node-fleet: the ImageUpdateAutomation is in a file its directory's kustomization leaves out, so no
    /// automation updates the Deployment: a field without a marker is nothing Flux leaves as written.
    @Test func anAutomationThatIsNotDeployedLeavesNoMarkerMissing() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
        files["clusters/prod/kustomization.yaml"] = "resources: [flux-system, apps.yaml]\n"
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/prod", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["clusters/prod/image-automation.yaml"] = imageRepository() + "---\n" + imagePolicy() + "---\n"
            + imageUpdateAutomation(name: "web", path: "./apps/prod")
        files["apps/prod/deployment.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n"
            + "  template:\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/acme/web:1.2.3\n"
        let found = try lint(files, asFound: true).filter { $0.rule == "marker-missing" }
        #expect(found.isEmpty, "\(found.map(\.message))")
        // listed, the automation updates the file, and the field has no marker
        files["clusters/prod/kustomization.yaml"] = "resources: [flux-system, apps.yaml, image-automation.yaml]\n"
        let listed = try lint(files, asFound: true).filter { $0.severity != .note }
        #expect(listed.map(\.rendered) == ["marker-missing apps/prod/deployment.yaml:9:18"], "\(listed.map(\.message))")
    }

    /// tyzbit/fleet-infra's discord-modtools dev release: a development field at a release tag, which the production
    /// policy selects and the development one (of `main-<sha>-<timestamp>` builds) never could, follows production's tags:
    /// no marker of development's is missing there. Where no other policy could select it, the field is a placeholder
    /// nothing updates (cybaxx/web-services-k8s, in the rule's examples): still a finding.
    @Test func aTagOnlyAnotherPolicyCouldSelectHasNoMarkerMissing() throws {
        var files = bootstrapFiles("clusters/main", flux: "v2.7.0")
        files["clusters/main/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["clusters/main/automation.yaml"] = imageUpdateAutomation(name: "web", path: "./apps")
        files["apps/web/dev/policy.yaml"] = imagePolicy(name: "web-dev", repository: "web", pattern: "^main-[a-f0-9]+-(?P<ts>[0-9]+)$",
                                                        extract: "$ts", order: .numerical("asc"))
        func deployment(_ tag: String, marker: String = "") -> String {
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n"
                + "  template:\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/acme/web:\(tag)\(marker)\n"
        }
        files["apps/web/dev/deployment.yaml"] = deployment("v0.3.1")
        files["apps/web/prod/policy.yaml"] = imageRepository() + "---\n" + imagePolicy(name: "web", semver: ">=0.0.0")
        files["apps/web/prod/deployment.yaml"] = deployment("1.2.3", marker: #" # {"$imagepolicy": "flux-system:web"}"#)
        let missing = { try lint(files, asFound: true).filter { $0.rule == "marker-missing" }.map(\.rendered) }
        #expect(try missing().isEmpty)
        files["apps/web/dev/deployment.yaml"] = deployment("main-abc1234-1700000000")
        #expect(try missing() == ["marker-missing apps/web/dev/deployment.yaml:9:18"])
        // no other policy could select the release tag: the development field follows none (a placeholder)
        files["apps/web/dev/deployment.yaml"] = deployment("v0.3.1")
        files["apps/web/prod/policy.yaml"] = imageRepository()
        files["apps/web/prod/deployment.yaml"] = deployment("1.2.3")
        #expect(try missing() == ["marker-missing apps/web/dev/deployment.yaml:9:18"])
    }

    /// tyzbit/fleet-infra's plex: a policy no marker uses, in the directory of one of two releases of its image, is that
    /// release's (the other, upgraded after it, follows no policy): only the field beside it lacks a marker.
    @Test func anUnusedPolicyIsTheFieldsBesideIt() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/media", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["clusters/prod/automation.yaml"] = imageUpdateAutomation(name: "web", path: "./apps/media")
        for side in ["primary", "secondary"] {
            files["apps/media/\(side)/deployment.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-\(side), namespace: default}\n"
                + "spec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/acme/web:1.2.3\n"
        }
        files["apps/media/secondary/policy.yaml"] = imageRepository(name: "web-secondary") + "---\n" + imagePolicy(name: "web-secondary")
        let beside = try lint(files, asFound: true).filter { $0.rule == "marker-missing" }
        #expect(beside.map(\.rendered) == ["marker-missing apps/media/secondary/deployment.yaml:9:18"], "\(beside.map(\.message))")
        // a policy beside neither stands for both
        files["apps/media/policy.yaml"] = files.removeValue(forKey: "apps/media/secondary/policy.yaml")
        #expect(try lint(files, asFound: true).filter { $0.rule == "marker-missing" }.map(\.rendered)
                == ["marker-missing apps/media/primary/deployment.yaml:9:18", "marker-missing apps/media/secondary/deployment.yaml:9:18"])
    }

    /// DecentM/fleet-infra: a Flux Kustomization whose path is not in the repository, which only a build kustomize refuses
    /// takes (it names a second `apps` beside the first in the build Flux generates): nothing applies it now, so its path
    /// fails nothing yet: a warning that says so, beside the refused build's error.
    @Test func aMissingPathOfAKustomizationOnlyARefusedBuildTakesIsAWarning() throws {
        var files = bootstrapFiles("clusters/staging", flux: "v2.7.0")
        let source = "  sourceRef: {kind: GitRepository, name: flux-system}\n"
        files["clusters/staging/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/staging", spec: source)
        files["clusters/staging/infrastructure.yaml"] = fluxKustomization(name: "infrastructure", path: "./infrastructure/staging", spec: source)
            + "---\n" + fluxKustomization(name: "apps", path: "./instances/staging", spec: source)
        for dir in ["apps/staging", "infrastructure/staging"] {
            files["\(dir)/config.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: config, namespace: default}\n"
        }
        let found = try lint(files, asFound: true).filter { $0.rule == "kustomization-build-fails" }
        #expect(found.map { "\($0.severity) \($0.rendered)" } == ["error kustomization-build-fails clusters/staging/infrastructure.yaml:9:7",
                                                                  "warning kustomization-build-fails clusters/staging/infrastructure.yaml:12:9"],
                "\(found.map(\.message))")
        #expect(found.last?.message.contains("so nothing applies it now; once something does, kustomize-controller fails it") == true)
    }

    /// BayajidAlam/node-fleet: a build kustomize refuses for a Secret it takes twice deploys nothing, so the ClusterRole
    /// it holds replaces nothing (`kubectl kustomize` of the generated build: "may not add resource with an already
    /// registered id").
    @Test func anObjectOnlyARefusedBuildTakesIsNoDuplicate() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        for name in ["infra", "monitoring"] {
            files["clusters/prod/\(name).yaml"] = fluxKustomization(name: name, path: "./\(name)", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        }
        let secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: auth, namespace: monitoring}\nstringData: {k: v}\n"
        files["infra/secret.yaml"] = secret
        files["infra/prometheus.yaml"] = secret + "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: prometheus}\n"
            + "rules: [{apiGroups: [\"\"], resources: [pods], verbs: [get]}]\n"
        files["monitoring/rbac.yaml"] = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: prometheus}\n"
            + "rules: [{apiGroups: [\"\"], resources: [nodes], verbs: [list]}]\n"
        let found = try lint(files, asFound: true).filter { $0.severity != .note }.map(\.rendered)
        #expect(found == ["kustomization-build-fails infra/secret.yaml:2:7"], "\(found)")
        // the same two files under a kustomization that a kustomization above passes on unchanged: both builds are refused
        var nested = files
        for name in ["secret.yaml", "prometheus.yaml"] { nested["infra/stack/\(name)"] = nested.removeValue(forKey: "infra/\(name)") }
        nested["infra/stack/kustomization.yaml"] = "resources: [secret.yaml, prometheus.yaml]\n"
        nested["infra/kustomization.yaml"] = "resources: [stack]\n"
        let again = try lint(nested, asFound: true).filter { $0.severity != .note }.map(\.rendered)
        #expect(again == ["kustomization-build-fails infra/stack/secret.yaml:2:7"], "\(again)")
    }

    /// A tenant named dev (`tenants/base/dev`) that the staging and production clusters both deploy, its marker naming
    /// staging's policy.
    static func tenantNamedDev() -> [String: String] {
        var files: [String: String] = [:]
        for env in ["staging", "production"] {
            files.merge(bootstrapFiles("clusters/\(env)", flux: "v2.7.0")) { a, _ in a }
            files["clusters/\(env)/tenants.yaml"] = fluxKustomization(name: "tenants", path: "./tenants/\(env)", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
            files["tenants/\(env)/kustomization.yaml"] = "resources: [../base/dev]\n"
        }
        files["tenants/base/dev/kustomization.yaml"] = "resources: [deploy.yaml]\n"
        files["tenants/base/dev/deploy.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: podinfo, namespace: apps}\nspec:\n"
            + "  template:\n    spec:\n      containers:\n        - name: podinfo\n"
            + "          image: ghcr.io/stefanprodan/podinfo:5.2.1 # {\"$imagepolicy\": \"flux-system:podinfo\"}\n"
        files["clusters/staging/image-automation.yaml"] = imageRepository(name: "podinfo", image: "ghcr.io/stefanprodan/podinfo") + "---\n"
            + imagePolicy(name: "podinfo", semver: ">=5.0.0 <6.0.0")
        return files
    }

    /// abohmeed/fluxmultitenancy: `tenants/base/dev` is a tenant named dev that the staging and production clusters both
    /// deploy; the field's environment is its directory's only by assumption, so the finding says so, as a warning.
    @Test func aFieldsEnvironmentThatItsClustersContradictIsAPremise() throws {
        let files = Self.tenantNamedDev()
        let found = try lint(files, asFound: true).filter { $0.rule == "marker-env-mismatch" }
        #expect(found.map { "\($0.severity) \($0.rendered)" } == ["warning marker-env-mismatch tenants/base/dev/deploy.yaml:9:53"], "\(found.map(\.message))")
        #expect(found.first?.message.hasSuffix("(assuming the field belongs to development, as its directory says, though the clusters that deploy it "
                                               + "(clusters/production, clusters/staging) are of production and staging; say where development is under "
                                               + "environments: in .tagwarden.yaml)") == true, "\(found.first?.message ?? "")")
    }

    /// Syntax3rror404/infra: a cluster's overlay of a shared base replaces a Flux Kustomization's placeholder path with an
    /// inline JSON patch (`kubectl kustomize clusters/prod`: `path: apps`); the cluster applies what that path builds, and
    /// the placeholder, which every build patches, builds nothing. A strategic-merge patch written inline does the same.
    @Test func anInlinePatchOfAFluxKustomizationsPathIsWhatTheClusterBuilds() throws {
        let base: [String: String] = [
            "clusters/prod/flux-instance.yaml": "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux, namespace: flux-system}\n"
                + "spec:\n  distribution: {version: 2.7.x}\n  sync: {kind: GitRepository, url: https://github.com/example/repro.git, ref: refs/heads/main, path: clusters/prod}\n",
            "clusters/base/kustomization.yaml": "resources: [apps.yaml]\n",
            "clusters/base/apps.yaml": fluxKustomization(name: "cluster-apps", path: "clusters/clustername/apps",
                                                         spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n"),
            "clusters/clustername/apps/kustomization.yaml": "resources: [placeholder.yaml]\n",
            "clusters/clustername/apps/placeholder.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: placeholder, namespace: default}\n",
            "apps/kustomization.yaml": "resources: [web/deployment.yaml]\n",
            "apps/web/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  template:\n"
                + "    spec:\n      containers:\n        - name: web\n          image: nginx:latest\n",
        ]
        let json = "resources: [../base, flux-instance.yaml]\npatches:\n  - patch: |\n      - op: replace\n        path: /spec/path\n        value: apps\n"
            + "    target: {kind: Kustomization, name: cluster-apps, namespace: flux-system}\n"
        let merge = "resources: [../base, flux-instance.yaml]\npatches:\n  - patch: |\n      apiVersion: kustomize.toolkit.fluxcd.io/v1\n"
            + "      kind: Kustomization\n      metadata: {name: cluster-apps, namespace: flux-system}\n      spec: {path: ./apps}\n"
        for overlay in [json, merge] {
            var files = base
            files["clusters/prod/kustomization.yaml"] = overlay
            let report = try lintReport(files, asFound: true)
            let found = report.findings.filter { $0.severity != .note }
            #expect(found.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/web/deployment.yaml:9:18"], "\(found.map(\.message))")
            let m = report.model!
            let placeholder = m.files.indices.first { m.path($0) == "clusters/clustername/apps/placeholder.yaml" }!
            #expect(m.clusters.of(placeholder).isEmpty)
        }
        // an overlay between them patches it too: kustomize applies the outer patch last, so its path is the one built
        var nested = base
        nested["clusters/mid/kustomization.yaml"] = json.replacingOccurrences(of: ", flux-instance.yaml", with: "")
            .replacingOccurrences(of: "value: apps", with: "value: clusters/clustername/apps")
        nested["clusters/prod/kustomization.yaml"] = json.replacingOccurrences(of: "../base", with: "../mid")
        let found = try lint(nested, asFound: true).filter { $0.severity != .note }
        #expect(found.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/web/deployment.yaml:9:18"], "\(found.map(\.message))")
    }

    /// Where the config's `environments:` paths place the file, its environment is no assumption, whatever the clusters
    /// that deploy it are named.
    @Test func aFieldsEnvironmentTheConfigPlacesIsAFact() throws {
        var files = Self.tenantNamedDev()
        files[".tagwarden.yaml"] = "environments:\n  - name: development\n    paths: [tenants/base/dev/**]\n  - name: staging\n  - name: production\n"
        let found = try lint(files, asFound: true).filter { $0.rule == "marker-env-mismatch" }
        #expect(found.map { "\($0.severity) \($0.rendered)" } == ["error marker-env-mismatch tenants/base/dev/deploy.yaml:9:53"], "\(found.map(\.message))")
    }

    /// Inline NamespaceTransformers run in order: one with `unsetOnly` after one that sets every namespace changes nothing
    /// (`kubectl kustomize`: both ConfigMaps in `all`).
    @Test func anUnsetOnlyTransformerAfterOneThatSetsAllChangesNothing() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        func transformer(_ ns: String, unsetOnly: Bool) -> String {
            "  - |-\n    apiVersion: builtin\n    kind: NamespaceTransformer\n    metadata: {name: t\(ns), namespace: \(ns)}\n    unsetOnly: \(unsetOnly)\n"
        }
        files["apps/kustomization.yaml"] = "resources: [config.yaml]\ntransformers:\n" + transformer("all", unsetOnly: false) + transformer("later", unsetOnly: true)
        files["apps/config.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: two, namespace: own}\n"
        let m = try lintReport(files, asFound: true).model!
        let namespaces = m.objects.indices.filter { m.objects[$0].kind == "ConfigMap" }.map { m.objectNamespace[$0] ?? "-" }
        #expect(namespaces == ["all", "all"], "\(namespaces)")
    }

    /// A cluster applies a kustomization at its Flux Kustomization's path that a root kustomization nothing applies (kept
    /// for CI) includes with another namespace: the cluster's build starts at the path, so the root does not decide.
    @Test func aBuildRootTheClusterAppliesDecidesUnderAnUnappliedRoot() throws {
        var files = bootstrapFiles("clusters/prod", flux: "v2.4.0")
        files["clusters/prod/apps.yaml"] = fluxKustomization(name: "apps", path: "./apps/prod", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        files["kustomization.yaml"] = "namespace: ci\nresources: [apps/prod]\n"
        files["apps/prod/kustomization.yaml"] = "namespace: prod\nresources: [../base]\n"
        files["apps/base/kustomization.yaml"] = "resources: [config.yaml]\n"
        files["apps/base/config.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
        files["apps/other/kustomization.yaml"] = "namespace: other\nresources: [../base]\n"
        files["clusters/prod/other.yaml"] = fluxKustomization(name: "other", path: "./apps/other", spec: "  sourceRef: {kind: GitRepository, name: flux-system}\n")
        let m = try lintReport(files, asFound: true).model!
        let config = m.objects.indices.first { m.objects[$0].kind == "ConfigMap" }!
        #expect(m.objectNamespace[config] == nil)
        #expect(m.openNamespaces[config] == ["other", "prod"])
    }
}

/// A CustomResourceDefinition of Flux's, as a cluster's gotk-components.yaml holds it: `<plural>.<group>.toolkit.fluxcd.io`,
/// serving `version`.
private func fluxCRD(_ plural: String, group: String, kind: String, version: String) -> String {
    """
    ---
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata: {name: \(plural).\(group).toolkit.fluxcd.io}
    spec:
      group: \(group).toolkit.fluxcd.io
      names: {kind: \(kind)}
      scope: Namespaced
      versions: [{name: \(version), served: true}]

    """
}
