import TagwardenFixtures
import Foundation
import Testing

/// `update --push --pull-request` against a fake of the few GitHub and GitLab API calls it makes (find the open one for
/// the branch, create, update), with refusals and a rate limit; the token is never printed.
@Suite(.serialized) struct PullRequestTests {
    static let token = "tok-\(UUID().uuidString.prefix(8))"
    static let marker = #"# {"$imagepolicy": "flux-system:web"}"#

    /// A clone whose origin is a local bare repository (CI names the forge's repository: GITHUB_REPOSITORY,
    /// CI_PROJECT_PATH); an automation that commits on `image-updates` from `main`.
    func clone() throws -> (remote: TempRepo, clone: TempRepo) {
        let remote = try TempRepo(git: false)
        try run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", remote.path], cwd: remote.path)
        let r = try TempRepo()
        let automation = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: apps, namespace: flux-system}\n"
            + "spec:\n  sourceRef: {kind: GitRepository, name: flux-system}\n  git:\n    checkout: {ref: {branch: main}}\n"
            + "    commit:\n      author: {email: bot@example.com}\n      messageTemplate: \"Update web\\n\\nThe body\"\n"
            + "    push: {branch: image-updates}\n  update: {path: ./apps}\n"
        try r.write([
            "flux/images.yaml": [imageRepository(), imagePolicy(), automation].joined(separator: "---\n"),
            "apps/web.yaml": "image: ghcr.io/acme/web:1.0.0 \(Self.marker)\n",
            ".git/tags.yaml": "ghcr.io/acme/web: ['1.1.0']\n",
        ])
        try r.commitAll("fleet")
        try r.git("remote", "add", "origin", remote.path)
        try r.git("push", "-q", "origin", "main")
        return (remote, r)
    }

    func update(_ r: TempRepo, env: [String: String]) throws -> RunResult {
        let res = try tagwarden(["update", "--tags", ".git/tags.yaml", "--commit", "--push", "--pull-request", "--format", "json"], in: r.path, env: env)
        #expect(!res.stdout.contains(Self.token) && !res.stderr.contains(Self.token), "the token was printed")
        return res
    }

    /// The report's pull requests: branch, address, created or updated.
    func pullRequests(_ res: RunResult) -> [String] {
        let report = (try? JSONSerialization.jsonObject(with: Data(res.stdout.utf8))) as? [String: Any]
        return (report?["pullRequests"] as? [[String: Any]] ?? []).map { "\($0["branch"]!) \($0["url"]!) \(($0["created"] as? Bool) == true ? "created" : "updated")" }
    }

    @Test func gitHubOpensThenUpdatesThePullRequestOfTheBranch() throws {
        let api = try FakeRegistry("""
            import json
            def respond(req):
                if req.headers.get('Authorization') != 'Bearer \(Self.token)': return (401, [], b'{"message": "Bad credentials"}')
                if req.method == 'GET' and req.path == '/repos/acme/fleet/pulls':
                    assert req.query['head'] == ['acme:image-updates'] and req.query['base'] == ['main'] and req.query['state'] == ['open']
                    return (200, [], json.dumps([{'number': 7}] if req.state.get('open') else []).encode())
                if req.method == 'POST' and req.path == '/repos/acme/fleet/pulls':
                    req.state['open'] = '1'
                    return (201, [], b'{"number": 7, "html_url": "https://github.example/acme/fleet/pull/7"}')
                if req.method == 'PATCH' and req.path == '/repos/acme/fleet/pulls/7':
                    return (200, [], b'{"number": 7, "html_url": "https://github.example/acme/fleet/pull/7"}')
                return (404, [], b'{"message": "Not Found"}')
            """)
        let (remote, r) = try clone()
        defer { withExtendedLifetime(remote) {} }
        let env = ["GITHUB_TOKEN": Self.token, "GITHUB_API_URL": "http://\(api.host)", "GITHUB_REPOSITORY": "acme/fleet"]
        let first = try update(r, env: env)
        #expect(first.code == 0, "\(first.described)")
        #expect(pullRequests(first) == ["image-updates https://github.example/acme/fleet/pull/7 created"], "\(first.described)")
        let made = try api.bodies().filter { $0.method == "POST" }
        #expect(made.count == 1)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data((made.first?.body ?? "").utf8)) as? [String: String])
        #expect(fields == ["title": "Update web", "head": "image-updates", "base": "main", "body": "The body"], "\(fields)")

        // a new tag: the branch moves on, and the open pull request is updated, not opened twice
        try r.write(".git/tags.yaml", "ghcr.io/acme/web: ['1.1.0', '1.2.0']\n")
        let second = try update(r, env: env)
        #expect(second.code == 0 && pullRequests(second) == ["image-updates https://github.example/acme/fleet/pull/7 updated"], "\(second.described)")
        #expect(try api.bodies().map { "\($0.method) \($0.path.prefix { $0 != "?" })" }
                == ["GET /repos/acme/fleet/pulls", "POST /repos/acme/fleet/pulls", "GET /repos/acme/fleet/pulls", "PATCH /repos/acme/fleet/pulls/7"])
    }

    @Test func gitLabOpensAMergeRequest() throws {
        let api = try FakeRegistry("""
            import json
            def respond(req):
                if req.headers.get('PRIVATE-TOKEN') != '\(Self.token)': return (401, [], b'{"message": "401 Unauthorized"}')
                if req.method == 'GET' and req.path == '/api/v4/projects/group%2Fsub%2Ffleet/merge_requests': return (200, [], b'[]')
                if req.method == 'POST' and req.path == '/api/v4/projects/group%2Fsub%2Ffleet/merge_requests':
                    b = json.loads(req.body)
                    assert b == {'source_branch': 'image-updates', 'target_branch': 'main', 'title': 'Update web', 'description': 'The body'}, b
                    return (201, [], b'{"iid": 3, "web_url": "https://gitlab.example/group/sub/fleet/-/merge_requests/3"}')
                return (404, [], b'{"message": "404 Not Found"}')
            """)
        let (remote, r) = try clone()
        defer { withExtendedLifetime(remote) {} }
        let res = try update(r, env: ["GITLAB_TOKEN": Self.token, "CI_API_V4_URL": "http://\(api.host)/api/v4", "CI_PROJECT_PATH": "group/sub/fleet"])
        #expect(res.code == 0 && pullRequests(res) == ["image-updates https://gitlab.example/group/sub/fleet/-/merge_requests/3 created"],
                "\(res.described)")
        // the API's encoded project path, as the fake saw it
        #expect(try api.log().contains { $0.path.hasPrefix("/api/v4/projects/group%2Fsub%2Ffleet/merge_requests") })
    }

    @Test func refusalsAndRateLimitsAreSaidAndTheTokenIsKept() throws {
        let api = try FakeRegistry("""
            def respond(req):
                n = int(req.state.get('n', '0')); req.state['n'] = str(n + 1)
                if n == 0: return (429, [('Retry-After', '1')], b'{"message": "slow down"}')
                if req.method == 'GET': return (200, [], b'[]')
                return (403, [], b'{"message": "Resource not accessible by integration"}')
            """)
        let (remote, r) = try clone()
        let refused = try update(r, env: ["GITHUB_TOKEN": Self.token, "GITHUB_API_URL": "http://\(api.host)", "GITHUB_REPOSITORY": "acme/fleet"])
        #expect(refused.code == 2, "\(refused.described)")
        #expect(refused.stderr.contains("GitHub: POST /repos/acme/fleet/pulls: HTTP 403 Resource not accessible by integration (the token was refused, "
                                        + "or may not open pull requests on acme/fleet); image-updates is pushed, without its pull request"), "\(refused.described)")
        // the rate limit was waited out once; the push before the refusal stands
        #expect(try api.log().map(\.method) == ["GET", "GET", "POST"])
        #expect(try run("/usr/bin/git", ["--git-dir", remote.path, "rev-parse", "-q", "--verify", "image-updates"], cwd: remote.path).code == 0)

        // the token and the API are checked before anything is committed
        try r.write(".git/tags.yaml", "ghcr.io/acme/web: ['1.1.0', '1.3.0']\n")
        let before = try r.git("rev-parse", "image-updates").stdout
        let none = try update(r, env: [:])
        #expect(none.code == 2 && none.stderr.contains("--pull-request needs a token: GITHUB_TOKEN for GitHub, GITLAB_TOKEN for GitLab"), "\(none.described)")
        let clear = try update(r, env: ["GITHUB_TOKEN": Self.token, "GITHUB_API_URL": "http://api.example", "GITHUB_REPOSITORY": "acme/fleet"])
        #expect(clear.code == 2 && clear.stderr.contains("the API http://api.example is plain HTTP: the token is not sent there"), "\(clear.described)")
        #expect(try r.git("rev-parse", "image-updates").stdout == before, "a commit was made although no pull request could be")
        #expect(try tagwarden(["update", "--tags", ".git/tags.yaml", "--pull-request"], in: r.path).stderr.contains("--pull-request goes with --push"))
    }
}

extension PromoteTests {
    /// `promote --push --pull-request`: the pull request into the branch HEAD is on, the promotion's message (with its
    /// review checklist) as its text.
    @Test func promoteOpensThePullRequestWithItsChecklist() throws {
        let registry = try LocalRegistry(users: [("bot", Self.secret)], tokenService: true)
        let digest = try registry.push("acme/web", tags: [Self.stagingTag], platforms: 1, auth: ("bot", Self.secret), seed: "v1.4.0")
        let image = "\(registry.host)/acme/web"
        let (remote, r) = try repository(image: image, stagingDigest: digest)
        defer { withExtendedLifetime(remote) {} }
        let config = try dockerConfig(r, host: registry.host)
        let api = try FakeRegistry("""
            def respond(req):
                if req.method == 'GET': return (200, [], b'[]')
                return (201, [], b'{"number": 12, "html_url": "https://github.example/acme/fleet/pull/12"}')
            """)
        let token = "tok-\(UUID().uuidString.prefix(8))"
        let res = try tagwarden(["promote", image, "--from", "staging", "--to", "production", "--push", "--pull-request"], in: r.path,
                                env: ["DOCKER_CONFIG": config, "GITHUB_TOKEN": token, "GITHUB_API_URL": "http://\(api.host)", "GITHUB_REPOSITORY": "acme/fleet"])
        #expect(res.code == 0 && res.stderr.contains("tagwarden: pull request opened: https://github.example/acme/fleet/pull/12"), "\(res.described)")
        #expect(!res.stdout.contains(token) && !res.stderr.contains(token))
        let made = try #require(try api.bodies().first { $0.method == "POST" })
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(made.body.utf8)) as? [String: String])
        #expect(fields["head"] == "tagwarden/promote-web-\(Self.productionTag)" && fields["base"] == "main", "\(fields)")
        #expect(fields["title"] == "Promote web v1.4.0-3f2a9c1-1732300000 from staging to production", "\(fields)")
        #expect(fields["body"]?.contains("- [ ] Confirm staging:") == true && fields["body"]?.contains("- [ ] Prepare the rollback:") == true,
                "\(fields)")
        #expect(try tagwarden(["promote", image, "--from", "staging", "--to", "production", "--pull-request"], in: r.path)
            .stderr.contains("--pull-request goes with --push"))
    }
}
