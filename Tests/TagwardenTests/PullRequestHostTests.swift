import Testing
@testable import TagwardenUpdate

/// Which repository a remote names, for its pull requests: the URL forms git takes.
@Suite struct PullRequestHostTests {
    @Test(arguments: [
        ("https://github.com/acme/fleet.git", "github.com", "acme/fleet"),
        ("https://x-access-token:secret@github.com/acme/fleet", "github.com", "acme/fleet"),
        ("git@github.com:acme/fleet.git", "github.com", "acme/fleet"),
        ("ssh://git@gitlab.example:2222/group/sub/fleet.git", "gitlab.example", "group/sub/fleet"),
        ("https://GitLab.Example/group/fleet/", "gitlab.example", "group/fleet"),
    ])
    func aRemoteNamesItsHostAndRepository(url: String, host: String, path: String) throws {
        let named = try #require(PullRequests.hostAndPath(url))
        #expect(named.host == host && named.path == path)
    }

    @Test func aPathOrABareHostNamesNoRepository() {
        #expect(PullRequests.hostAndPath("/srv/git/fleet.git") == nil)
        #expect(PullRequests.hostAndPath("https://github.com/fleet") == nil)
    }

    @Test func aMessageIsATitleAndABody() {
        #expect(PullRequests.titleAndBody("Update web\n\nThe body\n") == ("Update web", "The body"))
        #expect(PullRequests.titleAndBody("\n") == ("Image updates", ""))
    }
}
