import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct GitURLTests {
    @Test func oneRepositoryWrittenManyWays() {
        for url in ["https://github.com/acme/fleet", "https://github.com/acme/fleet.git", "https://github.com/acme/fleet/",
                    "ssh://git@github.com/acme/fleet", "ssh://git@github.com:22/acme/fleet.git", "git@github.com:acme/fleet.git",
                    "https://token@GitHub.com/Acme/Fleet"] {
            #expect(Model.gitURLKey(url) == "github.com/acme/fleet", "\(url)")
        }
        #expect(Model.gitURLKey("https://gitlab.example.com/group/sub/app.git") == "gitlab.example.com/group/sub/app")
        #expect(Model.gitURLKey("/opt/mirror/acme/fleet.git") == nil)   // no host: a local path compares as nothing
        #expect(Model.gitURLKey("file:///opt/mirror/acme/fleet.git") == nil)
        #expect(Model.gitURLKey("not a url") == nil)
    }
}
