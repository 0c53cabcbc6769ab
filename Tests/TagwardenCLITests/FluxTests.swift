import TagwardenFixtures
import Foundation
import Testing

/// What only the binary shows of the Flux rules: the files its listing reads and passes over (also from a commit),
/// and the remotes of the clone. The rules themselves are tested in-process (FluxRuleTests).
@Suite struct FluxTests {
    @Test func markersInFilesFluxNeverReads() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
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
          git: {checkout: {ref: {branch: main}}, commit: {author: {email: bot@example.com}}, push: {branch: main}}
          update: {path: ./deploy}
        ---
        apiVersion: image.toolkit.fluxcd.io/v1
        kind: ImageUpdateAutomation
        metadata: {name: fleet, namespace: flux-system}
        spec:
          sourceRef: {kind: GitRepository, name: flux-system}
          git: {checkout: {ref: {branch: main}}, commit: {author: {email: bot@example.com}}, push: {branch: main}}
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
        // without remotes nothing tells the repositories apart: paths are read as this repository's, but for the root
        // of a GitRepository defined here other than bootstrap's (web-app's `./` builds nothing here, so the pod is in
        // no namespace of its), and an automation's update.path is judged only where its GitRepository is known to be
        // this one
        var res = try audit()
        #expect(res.findings == ["image-latest-tag apps/cache.yaml:8:14"], "\(res.findings)")
        #expect(res.namespace == nil)
        // a remote that no GitRepository names tells nothing either
        try r.git("remote", "add", "origin", "git@github.com:acme/other.git")
        #expect(try audit().findings.count == 1)
        // through an SSH host alias or a mirror the remote names the same repository as flux-system's: web-app is another
        try r.git("remote", "set-url", "origin", "git@fleet-alias:acme/fleet.git")
        #expect(try audit().findings == ["image-latest-tag apps/cache.yaml:8:14", "automation-missing-path clusters/sources.yaml:25:18"])
        // the remote's URL, spelt another way, is flux-system's: web-app is another repository
        try r.git("remote", "set-url", "origin", "git@github.com:acme/fleet.git")
        res = try audit()
        #expect(res.findings == ["image-latest-tag apps/cache.yaml:8:14", "automation-missing-path clusters/sources.yaml:25:18"], "\(res.findings)")
        #expect(res.namespace == nil)
    }
}
