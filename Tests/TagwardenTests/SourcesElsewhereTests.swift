import Testing
@testable import TagwardenModel
@testable import TagwardenLint

/// Which GitRepositories are this repository, as its own syncs say when the checkout's remotes do not (a clone of a
/// mirror, a CI checkout): a Flux Kustomization of another repository builds none of these files.
@Suite struct SourcesElsewhereTests {
    func gitRepository(_ name: String, _ url: String) -> String {
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: \(name), namespace: flux-system}\n"
            + "spec: {interval: 1m, url: '\(url)', ref: {branch: main}}\n"
    }
    func kustomization(_ name: String, source: String, path: String) -> String {
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: \(name), namespace: flux-system}\n"
            + "spec: {interval: 10m, path: '\(path)', prune: true, sourceRef: {kind: GitRepository, name: \(source)}}\n"
    }
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        + "spec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:latest\n"

    /// The paths of the Flux Kustomizations, by name, as the Model keeps them (nil: another repository's).
    func paths(_ report: AuditReport) -> [String: String] {
        var out: [String: String] = [:]
        for o in report.model?.objects ?? [] where o.isFluxKustomization { out[o.name ?? ""] = o.fluxKustomization?.path ?? "(elsewhere)" }
        return out
    }

    @Test func bootstrapsSyncSaysWhichRepositoryThisIsAndAnotherRepositorysRootBuildsNothingHere() throws {
        // dudo/turing-pi: a file nothing applies points a Kustomization at another repository's root
        let report = try lintReport([
            "clusters/local/flux-system/gotk-sync.yaml": gitRepository("flux-system", "ssh://git@github.com/me/fleet")
                + "---\n" + kustomization("flux-system", source: "flux-system", path: "./clusters/local"),
            "clusters/local/apps.yaml": kustomization("apps", source: "flux-system", path: "./apps"),
            "apps/deploy.yaml": deployment,
            "infra/suc/source.yaml": gitRepository("other", "https://github.com/rancher/system-upgrade-controller")
                + "---\n" + kustomization("other", source: "other", path: "./"),
        ], asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["clusters/local"])
        #expect(paths(report) == ["flux-system": "clusters/local", "apps": "apps", "other": "(elsewhere)"])
        // the cluster's image is judged as a fact
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/deploy.yaml:9:18"])
    }

    @Test func aBootstrapOfItsOwnInAFluxSystemDirectoryOutranksAnotherRepositoryLaidOutAlike() throws {
        // ipni/storetheindex: the dev cluster's sync is in its flux-system directory; index-observer's repository has
        // the same layout, so its path is above its Kustomization's file here too
        let report = try lintReport([
            "deploy/dev/cluster/flux-system/cluster-cd.yaml": gitRepository("storetheindex", "https://github.com/ipni/storetheindex.git")
                + "---\n" + kustomization("cluster", source: "storetheindex", path: "./deploy/dev/cluster"),
            "deploy/dev/cluster/index-observer/flux-cd.yaml": gitRepository("index-observer", "https://github.com/ipni/index-observer.git")
                + "---\n" + kustomization("index-observer", source: "index-observer", path: "./deploy/dev"),
            "deploy/dev/cluster/web/deploy.yaml": deployment,
        ], asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["deploy/dev/cluster"])
        #expect(paths(report)["index-observer"] == "(elsewhere)")
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag deploy/dev/cluster/web/deploy.yaml:9:18"])
    }

    /// d4rkfella/home-ops: its FluxInstance syncs this repository; keycloak-operator's `path: ./kubernetes` of keycloak's
    /// repository is above its own file by chance, which does not make keycloak's repository this one.
    @Test func aFluxInstanceSyncOutranksAnotherRepositorysPathAboveItsFile() throws {
        let instance = "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux, namespace: flux-system}\n"
            + "spec:\n  sync: {kind: GitRepository, url: 'https://github.com/me/home-ops', ref: refs/heads/main, path: kubernetes/flux/cluster}\n"
        let report = try lintReport([
            "kubernetes/flux/cluster/instance.yaml": instance,
            "kubernetes/apps/keycloak/ks.yaml": gitRepository("keycloak", "https://github.com/keycloak/keycloak-k8s-resources")
                + "---\n" + kustomization("keycloak-operator", source: "keycloak", path: "./kubernetes"),
        ], asFound: true)
        #expect(paths(report)["keycloak-operator"] == "(elsewhere)")
    }

    @Test func syncsThatNameSeveralRepositoriesWithoutABootstrapTellNothing() throws {
        // two Kustomizations above their own files, of two repositories, neither flux bootstrap's: either may be this one
        let report = try lintReport([
            "team-a/sync.yaml": gitRepository("a", "https://github.com/acme/a") + "---\n" + kustomization("a", source: "a", path: "./team-a"),
            "team-b/sync.yaml": gitRepository("b", "https://github.com/acme/b") + "---\n" + kustomization("b", source: "b", path: "./team-b"),
        ], asFound: true)
        #expect(paths(report) == ["a": "team-a", "b": "team-b"])
        // one repository named by such syncs is this one's: another GitRepository's Kustomization builds nothing here
        let one = try lintReport([
            "team-a/sync.yaml": gitRepository("a", "https://github.com/acme/a") + "---\n" + kustomization("a", source: "a", path: "./team-a"),
            "team-a/vendor.yaml": gitRepository("v", "https://github.com/vendor/v") + "---\n" + kustomization("v", source: "v", path: "./"),
        ], asFound: true)
        #expect(paths(one) == ["a": "team-a", "v": "(elsewhere)"])
    }

    /// devantler-tech/platform: nothing says which repository this is, and an app applies the root of a GitRepository it
    /// defines (`path: ./` of devantler-tech/unifi). That root is not this repository's: taken so, it made this whole
    /// repository one cluster, as a fact, and its tests a build kustomize refuses. A root synced from `flux-system/`,
    /// or of a GitRepository named `flux-system`, stays this repository's.
    @Test func withoutKnowingWhichRepositoryThisIsARootOfAnotherGitRepositoryBuildsNothingHere() throws {
        let report = try lintReport([
            "k8s/apps/unifi/sync.yaml": gitRepository("unifi", "https://github.com/acme/unifi") + "---\n" + kustomization("unifi", source: "unifi", path: "./"),
            "tests/a/deploy.yaml": deployment,
            "tests/b/deploy.yaml": deployment.replacingOccurrences(of: "name: web,", with: "name: api,"),
        ], asFound: true)
        #expect(paths(report) == ["unifi": "(elsewhere)"])
        #expect(report.model?.clusters.clusters.isEmpty == true)
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == [
            "warning image-latest-tag tests/a/deploy.yaml:9:18", "warning image-latest-tag tests/b/deploy.yaml:9:18",
        ])
        let bootstrapped = try lintReport([
            "flux-system/sync.yaml": gitRepository("fleet", "https://github.com/acme/fleet") + "---\n" + kustomization("fleet", source: "fleet", path: "./"),
            "apps/deploy.yaml": deployment,
        ], asFound: true)
        #expect(paths(bootstrapped) == ["fleet": ""])
        #expect(bootstrapped.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/deploy.yaml:9:18"])
    }

    /// fluxcd/flux2-kustomize-helm-example (Flux 2.7's ArtifactGenerator): each cluster copies `apps/<env>/**` of this
    /// repository into its artifact `apps`, and its Kustomization builds `./<env>` of that artifact: `apps/<env>` here,
    /// for that cluster only.
    @Test func anExternalArtifactCopiedFromThisRepositoryBuildsTheDirectoryItCopies() throws {
        var files: [String: String] = [:]
        for env in ["staging", "production"] {
            files["clusters/\(env)/flux-system/gotk-sync.yaml"] = gitRepository("flux-system", "ssh://git@github.com/acme/fleet")
                + "---\n" + kustomization("flux-system", source: "flux-system", path: "./clusters/\(env)")
            files["clusters/\(env)/artifacts.yaml"] = """
            apiVersion: source.extensions.fluxcd.io/v1beta1
            kind: ArtifactGenerator
            metadata: {name: flux-system, namespace: flux-system}
            spec:
              sources:
                - {alias: monorepo, kind: GitRepository, name: flux-system}
              artifacts:
                - name: apps
                  copy:
                    - {from: "@monorepo/apps/base/**", to: "@artifact/base/"}
                    - {from: "@monorepo/apps/\(env)/**", to: "@artifact/\(env)/"}

            """
            files["clusters/\(env)/apps.yaml"] = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n"
                + "spec: {interval: 10m, path: ./\(env), prune: true, sourceRef: {kind: ExternalArtifact, name: apps}}\n"
            files["apps/\(env)/kustomization.yaml"] = "resources: [../base]\n" + (env == "staging" ? "images:\n  - {name: nginx, newTag: latest}\n" : "")
        }
        files["apps/base/kustomization.yaml"] = "resources: [deploy.yaml]\n"
        files["apps/base/deploy.yaml"] = deployment.replacingOccurrences(of: "nginx:latest", with: "nginx:1.27.3")
        let report = try lintReport(files, asFound: true)
        #expect(report.model?.clusters.clusters.map(\.name) == ["clusters/production", "clusters/staging"])
        #expect(report.findings.map { "\($0.severity) \($0.rendered)" } == ["error image-latest-tag apps/staging/kustomization.yaml:3:27"], "\(report.findings)")
    }
}
