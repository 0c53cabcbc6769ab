import Testing
@testable import TagwardenLint
@testable import TagwardenModel

/// Which patches make kustomize refuse a build, as `kubectl kustomize` (kustomize v5.5) answered each case on
/// 2026-11-25: one JSON operation on a Deployment with one container and no `replicas`.
@Suite struct PatchTargetTests {
    static let base = """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          template:
            spec:
              containers:
                - name: a
                  image: nginx:1.27.0

        """

    /// The `kustomization-build-fails` findings of a build that applies one JSON operation to the Deployment.
    func failures(_ op: String, _ path: String, value: String = "x") throws -> [String] {
        let files = ["kustomization.yaml": """
            resources: [web.yaml]
            patches:
              - target: {kind: Deployment, name: web}
                patch: |-
                  - op: \(op)
                    path: \(path)
                    value: \(value)

            """, "web.yaml": Self.base]
        return try lint(files).filter { $0.rule == "kustomization-build-fails" }.map { "\($0.position) \($0.message)" }
    }

    static let refused: [(op: String, path: String, says: String)] = [
        ("replace", "/spec/missing/deep", "cannot replace /spec/missing/deep: the object has no /spec/missing (replace operation does not apply: doc is missing path)"),
        ("remove", "/spec/nothere", "cannot remove /spec/nothere: the object has no such field (Unable to remove nonexistent key)"),
        ("remove", "/spec/missing/deep", "cannot remove /spec/missing/deep: the object has no /spec/missing (remove operation does not apply: doc is missing path)"),
        ("add", "/spec/missing/deep", "cannot add /spec/missing/deep: the object has no /spec/missing (add operation does not apply: doc is missing path)"),
        ("replace", "/spec/template/spec/containers/3", "cannot replace /spec/template/spec/containers/3: the list has no such item (replace operation does not apply: doc is missing key)"),
        ("remove", "/spec/template/spec/containers/3", "cannot remove /spec/template/spec/containers/3: the object has no such item (Unable to access invalid index)"),
        ("add", "/spec/template/spec/containers/5", "cannot add /spec/template/spec/containers/5: the list is shorter (Unable to access invalid index)"),
        ("add", "/spec/template/spec/containers/0/image/x", "cannot add /spec/template/spec/containers/0/image/x: the object has no /spec/template/spec/containers/0/image (add operation does not apply: doc is missing path)"),
        ("replace", "/spec/template/spec/containers/-", "cannot replace /spec/template/spec/containers/-: the list has no such item (replace operation does not apply: doc is missing key)"),
    ]

    @Test(arguments: refused.indices)
    func kustomizeRefuses(_ n: Int) throws {
        let c = Self.refused[n]
        #expect(try failures(c.op, c.path) == ["kustomization.yaml:6:15 kustomize cannot build kustomization.yaml: its JSON patch \(c.says) of Deployment web, so nothing that builds . deploys anything"])
    }

    /// kustomize applies these: `replace` of a missing key adds it; a negative index counts from the end (not judged).
    @Test(arguments: [("replace", "/spec/nothere"), ("replace", "/spec/template/spec/containers/0/nothere"),
                      ("remove", "/spec/template/spec/containers/-1"), ("remove", "/spec/template/spec/containers/0/image")])
    func kustomizeApplies(_ op: String, _ path: String) throws {
        #expect(try failures(op, path) == [])
    }

    /// `add` takes an index up to the list's length, and `-` for its end.
    @Test(arguments: ["/spec/template/spec/containers/1", "/spec/template/spec/containers/-"])
    func addAppends(_ path: String) throws {
        #expect(try failures("add", path, value: "{name: b, image: nginx:1.27.0}") == [])
    }

    /// Operations apply in order: a field added first may be removed; removed first, it is gone.
    @Test func operationsApplyInOrder() throws {
        let files = ["kustomization.yaml": """
            resources: [web.yaml]
            patches:
              - target: {kind: Deployment, name: web}
                patch: |-
                  - op: add
                    path: /spec/strategy
                    value: {type: Recreate}
                  - op: remove
                    path: /spec/strategy/type
                  - op: remove
                    path: /spec/strategy/type

            """, "web.yaml": Self.base]
        #expect(try lint(files).filter { $0.rule == "kustomization-build-fails" }.map(\.position) == ["kustomization.yaml:11:15"])
    }

    /// Not judged: a patch before it that may select the target, a transformer plugin below, a path through metadata.
    @Test func whatMayChangeTheTargetFirstIsNotJudged() throws {
        let patch = """
              - target: {kind: Deployment, name: web}
                patch: |-
                  - op: remove
                    path: /spec/nothere

            """
        let earlier = ["kustomization.yaml": "resources: [web.yaml]\npatches:\n  - target: {kind: Deployment}\n    path: p.yaml\n" + patch,
                       "p.yaml": "- {op: add, path: /spec/nothere, value: 1}\n", "web.yaml": Self.base]
        #expect(try lint(earlier).filter { $0.rule == "kustomization-build-fails" }.isEmpty)
        let below = ["kustomization.yaml": "resources: [base]\npatches:\n" + patch,
                     "base/kustomization.yaml": "resources: [web.yaml]\ntransformers: [t.yaml]\n", "base/t.yaml": "kind: X\n",
                     "base/web.yaml": Self.base]
        #expect(try lint(below).filter { $0.rule == "kustomization-build-fails" }.isEmpty)
        let metadata = ["kustomization.yaml": "resources: [web.yaml]\npatches:\n" + patch.replacingOccurrences(of: "/spec/nothere", with: "/metadata/labels/x"),
                        "web.yaml": Self.base]
        #expect(try lint(metadata).filter { $0.rule == "kustomization-build-fails" }.isEmpty)
    }

    /// david-driscoll/home-operations: the Flux Kustomization adds a Component (`spec.components`, which Flux appends to
    /// the kustomization's `components:`) whose patch gives every HelmRelease the values the kustomization's JSON patch
    /// then removes: kustomize runs the Component first, and the build holds (`kubectl kustomize` with the Component
    /// added). Without the Component it fails.
    @Test func aComponentAFluxKustomizationAddsPatchesFirst() throws {
        var files = ["apps/web/kustomization.yaml": "resources: [release.yaml]\npatches:\n  - target: {kind: HelmRelease, name: web}\n"
                        + "    patch: |-\n      - op: remove\n        path: /spec/values/defaultPodOptions\n",
                     "apps/web/release.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: default}\n"
                        + "spec:\n  chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: charts}}}\n",
                     "components/tolerate/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n"
                        + "  - target: {kind: HelmRelease}\n    patch: |-\n      apiVersion: helm.toolkit.fluxcd.io/v2\n      kind: HelmRelease\n"
                        + "      metadata: {name: any}\n      spec: {values: {defaultPodOptions: {tolerations: []}}}\n",
                     "clusters/web.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: web, namespace: flux-system}\n"
                        + "spec:\n  path: ./apps/web\n  components: [../../components/tolerate]\n"]
        #expect(try lint(files).filter { $0.rule == "kustomization-build-fails" }.isEmpty)
        files["clusters/web.yaml"] = files["clusters/web.yaml"]!.replacingOccurrences(of: "  components: [../../components/tolerate]\n", with: "")
        #expect(try lint(files).filter { $0.rule == "kustomization-build-fails" }.map(\.position) == ["apps/web/kustomization.yaml:6:15"])
    }

    /// autoscripter293/k3s: two kustomizations of one build take PersistentVolume `data`, one under `namespace:`, which
    /// kustomize does not give a PersistentVolume: the ids are one, and kustomize refuses the build (as
    /// `kubectl kustomize` does). A kind kustomize does not know (a ClusterIssuer) takes the namespace: two ids.
    @Test func aNamespaceDoesNotSeparateWhatKustomizeTakesForClusterScoped() throws {
        func files(_ api: String, _ kind: String) -> [String: String] {
            ["apps/kustomization.yaml": "resources: [a, b]\n", "apps/a/kustomization.yaml": "namespace: x\nresources: [r.yaml]\n",
             "apps/b/kustomization.yaml": "resources: [r.yaml]\n",
             "apps/a/r.yaml": "apiVersion: \(api)\nkind: \(kind)\nmetadata:\n  name: data\nspec: {storageClassName: a}\n",
             "apps/b/r.yaml": "apiVersion: \(api)\nkind: \(kind)\nmetadata:\n  name: data\nspec: {storageClassName: b}\n"]
        }
        let pv = try lint(files("v1", "PersistentVolume")).filter { $0.rule.hasPrefix("kustomization-build-fails") || $0.rule == "object-duplicate" }
        #expect(pv.map { "\($0.rule) \($0.position)" } == ["kustomization-build-fails apps/b/r.yaml:2:7"], "\(pv.map(\.rule))")
        #expect(pv.first?.message.hasPrefix("kustomize refuses the build: the kustomization apps/kustomization.yaml takes PersistentVolume data twice") == true)
        let issuer = try lint(files("cert-manager.io/v1", "ClusterIssuer")).filter { $0.rule == "kustomization-build-fails" }
        #expect(issuer.isEmpty)
    }

    /// A strategic-merge patch without a target: the build must hold its object, of its apiVersion and kind, by the
    /// name written or one a `namePrefix` below gives; a generated ConfigMap counts (as kustomize v5.5 answered).
    @Test func aStrategicMergePatchNeedsItsObject() throws {
        func smp(_ api: String, _ kind: String, _ name: String) throws -> [String] {
            let files = ["kustomization.yaml": """
                resources: [base]
                configMapGenerator:
                  - {name: settings, literals: [a=b]}
                patches:
                  - path: p.yaml

                """, "base/kustomization.yaml": "namePrefix: acme-\nresources: [web.yaml]\n", "base/web.yaml": Self.base,
                "p.yaml": "apiVersion: \(api)\nkind: \(kind)\nmetadata:\n  name: \(name)\n"]
            return try lint(files).filter { $0.rule == "kustomization-build-fails" }.map { "\($0.position) \($0.message)" }
        }
        #expect(try smp("apps/v1", "Deployment", "web") == [])
        #expect(try smp("apps/v1", "Deployment", "acme-web") == [])
        #expect(try smp("v1", "ConfigMap", "settings") == [])
        #expect(try smp("apps/v1", "Deployment", "api") == ["p.yaml:4:9 kustomize cannot build kustomization.yaml: its strategic-merge patch is for apps/v1 Deployment api, "
                                                            + "which no resource of the build is (no resource matches strategic merge patch), so nothing that builds . deploys anything"])
        // kustomize compares the version too
        #expect(try smp("apps/v1beta1", "Deployment", "web").count == 1)
        #expect(try smp("v1", "Service", "web").count == 1)
    }
}
