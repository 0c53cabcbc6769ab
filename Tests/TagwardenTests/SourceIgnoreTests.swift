import Testing
@testable import TagwardenModel

/// What source-controller leaves out of an artifact, as go-git's gitignore matcher decides it (fluxcd/pkg/sourceignore
/// puts its defaults first, then the repository's `.sourceignore`, then `spec.ignore`; the last pattern that matches wins).
@Suite struct SourceIgnoreTests {
    func ignore(_ text: String) -> SourceIgnore {
        var own = SourceIgnore()
        own.add(text: text, origin: ".sourceignore")
        return SourceIgnore.defaults.then(own)
    }

    @Test func theDefaultsLeaveOutVCSAndCIFilesImagesAndSopsConfig() {
        let d = SourceIgnore.defaults
        #expect(d.excluding(".github/workflows/ci.yaml") == "source-controller's default exclusions '.github/'")
        #expect(d.excluding("docs/diagram.png") == "source-controller's default exclusions '*.png'")
        #expect(d.excluding("clusters/prod/.sops.yaml") == "source-controller's default exclusions '**/.sops.yaml'")
        #expect(d.excluding(".gitlab-ci.yml") != nil)
        #expect(d.excluding("apps/web.yaml") == nil)
        #expect(d.excluding("apps/github/web.yaml") == nil)
    }

    @Test func excludeEverythingButOneDirectory() {
        // xunholy/k8s-gitops, Azure's and compose-ai's `.sourceignore`
        let s = ignore("# Exclude all by default\n/*\n\n# Include the following explicit folder(s)\n!/kubernetes\n")
        #expect(s.excluding(".archive/kubernetes/apps/web.yaml") == ".sourceignore:2 '/*'")
        #expect(s.excluding("README.md") == ".sourceignore:2 '/*'")
        #expect(s.excluding("kubernetes/apps/web.yaml") == nil)
        // a name below the root is not the anchored one
        #expect(s.excluding("other/kubernetes/web.yaml") == ".sourceignore:2 '/*'")
        let helm = ignore("/*\n!/helm/**\n!/flux/**\n")
        #expect(helm.excluding("helm/templates/deploy.yaml") == nil)
        #expect(helm.excluding("flux/sync.yaml") == nil)
        #expect(helm.excluding("apps/web.yaml") == ".sourceignore:1 '/*'")
    }

    @Test func namesMatchAtAnyDepthAndDirectoriesOnlyAsDirectories() {
        let s = ignore("docs/\n*.md\nscripts\n/apps/*/test\n")
        #expect(s.excluding("docs/a.yaml") == ".sourceignore:1 'docs/'")
        #expect(s.excluding("apps/docs/a.yaml") == ".sourceignore:1 'docs/'")
        #expect(s.excluding("apps/docs") == nil)   // a file named docs is no directory
        #expect(s.excluding("apps/web/README.md") == ".sourceignore:2 '*.md'")
        #expect(s.excluding("scripts") == ".sourceignore:3 'scripts'")
        #expect(s.excluding("apps/web/test/job.yaml") == ".sourceignore:4 '/apps/*/test'")
        #expect(s.excluding("apps/web/prod/job.yaml") == nil)
        #expect(s.excluding("other/apps/web/test/job.yaml") == nil)
    }

    @Test func suffixesAndOtherGlobsOfOneComponent() {
        let s = ignore("*.tar.gz\n*-secret.yaml\n*yml\nweb-?\n*\n!apps\n!*.yaml\n")
        #expect(s.excluding("a/db-secret.yaml") == nil)   // `!*.yaml` is the last word
        #expect(s.excluding("a/backup.tar.gz") == ".sourceignore:5 '*'")
        #expect(s.excluding("a/kustomization.yml") == ".sourceignore:5 '*'")
        #expect(s.excluding("apps/backup.tar.gz") == nil)   // `!apps` matches its directory, after `*`
        let t = ignore("*.tar.gz\n*-secret.yaml\n*yml\nweb-?/\n")
        #expect(t.excluding("a/backup.tar.gz") == ".sourceignore:1 '*.tar.gz'")
        #expect(t.excluding("a/db-secret.yaml") == ".sourceignore:2 '*-secret.yaml'")
        #expect(t.excluding("a/kustomization.yml") == ".sourceignore:3 '*yml'")
        #expect(t.excluding("a/xyml") == ".sourceignore:3 '*yml'")
        #expect(t.excluding("web-1/deploy.yaml") == ".sourceignore:4 'web-?/'")
        #expect(t.excluding("a/web-1") == nil)   // a file, not the directory
        #expect(t.excluding("a/db.yaml") == nil)
    }

    /// One path segment by Go's `filepath.Match`, as `.sourceignore` patterns and the config's globs match it.
    func fnmatch(_ pattern: String, _ name: String) -> Bool { Glob.segmentMatches(Array(pattern.utf8)[...], Array(name.utf8)) }

    @Test func componentsMatchAsGosFilepathMatch() {
        #expect(fnmatch("*.y?ml", "web.yaml") && fnmatch("*.y?ml", "web.yml") == false)
        #expect(fnmatch("[a-c]pp", "bpp") && !fnmatch("[^a-c]pp", "bpp") && fnmatch("[^a-c]pp", "xpp"))
        #expect(fnmatch("a\\*", "a*") && !fnmatch("a\\*", "ab"))
        #expect(!fnmatch("[ab", "a"))   // malformed: nothing
        #expect(fnmatch("*", ".archive") && fnmatch("*web*", "my-web-app"))
        // one character, not one byte; and a repository's pattern cannot make it backtrack without end
        #expect(fnmatch("?", "é") && fnmatch("[é-ë]x", "êx") && !fnmatch("??", "é"))
        #expect(!fnmatch(String(repeating: "*a", count: 300) + "b", String(repeating: "a", count: 20_000)))
    }
}
