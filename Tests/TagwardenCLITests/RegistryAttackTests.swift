import TagwardenFixtures
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `update`, `audit --registry` and `policy eval --registry` against registries that misbehave on purpose (a fake
/// registry answering as each test says), with credentials in play: where credentials may go, what bounds a registry
/// meets, and how each failure is reported.
@Suite(.serialized) struct RegistryAttackTests {
    static let secret = "pa55-\(UUID().uuidString.prefix(8))"
    static let marker = #"# {"$imagepolicy": "flux-system:web"}"#

    /// A repository with one ImageRepository for `image` (`repository`, when given, is its text; and `more` objects), its
    /// policy, an automation, a marked field.
    func fleet(image: String, repository: String? = nil, more: String = "") throws -> TempRepo {
        let r = try TempRepo()
        try r.write([
            "flux/images.yaml": [repository ?? imageRepository(image: image), imagePolicy(), imageUpdateAutomation(name: "apps", path: "./apps")]
                .joined(separator: "---\n") + more,
            "apps/web.yaml": "image: \(image):1.0.0 \(Self.marker)\n",
        ])
        try r.commitAll("fleet")
        return r
    }

    /// docker's config.json with a Basic credential for `host`, in the repository's git directory; its directory.
    func dockerConfig(_ r: TempRepo, host: String, extra: String = "") throws -> String {
        let dir = r.path + "/.git/docker"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let auth = Data("bot:\(Self.secret)".utf8).base64EncodedString()
        try #"{"auths": {"\#(host)": {"auth": "\#(auth)"}}\#(extra)}"#.write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        return dir
    }

    func tw(_ r: TempRepo, _ args: [String], config: String? = nil, env: [String: String] = [:],
            sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        var environment = ["XDG_CACHE_HOME": r.path + "/.git/cache", "DOCKER_CONFIG": config ?? r.path + "/.git/none"]
        for (k, v) in env { environment[k] = v }
        let res = try tagwarden(args, in: r.path, env: environment, sourceLocation: sourceLocation)
        #expect(!res.stdout.contains(Self.secret) && !res.stderr.contains(Self.secret), "the secret was printed", sourceLocation: sourceLocation)
        return res
    }

    static let basicSecret = "Basic " + Data("bot:\(secret)".utf8).base64EncodedString()

    /// A fake registry's behaviour: Basic authentication asked for, then `tags` (and a `Link` header, when given).
    static func behindBasic(_ tags: [String], link: String? = nil) -> String {
        FakeRegistry.tagsHelper + "def respond(req):\n    denied = needs_basic(req)\n    if denied: return denied\n"
            + "    return tags_page(req, [\(tags.map { "'\($0)'" }.joined(separator: ", "))]\(link.map { ", '\($0)'" } ?? ""))\n"
    }

    // MARK: where credentials go

    @Test func aNextPageOnAnotherHostIsNotFollowedAndGetsNoCredential() throws {
        let other = try FakeRegistry(FakeRegistry.tagsHelper + "def respond(req): return tags_page(req, ['9.9.9'])\n")
        let registry = try FakeRegistry(Self.behindBasic(["1.0.0", "1.1.0"], link: "<http://\(other.host)/v2/acme/web/tags/list?last=1.1.0>; rel=\"next\""))
        let r = try fleet(image: "\(registry.host)/acme/web")
        let res = try tw(r, ["update", "--registry"], config: try dockerConfig(r, host: registry.host))
        #expect(res.code == 1, "\(res.described)")
        #expect(res.stderr.contains("\(registry.host): listing the tags of acme/web: the next page is on another host (http://\(other.host)): not followed"),
                "\(res.described)")
        #expect(try other.log().isEmpty)
        #expect(try registry.log().map(\.authorization) == ["", Self.basicSecret])
    }

    @Test func oneImageRepositorysInsecureNeverTurnsTheCredentialToPlainHTTP() throws {
        guard let address = LocalRegistry.nonLoopbackAddress() else { Issue.record("no address but loopback"); return }
        let registry = try FakeRegistry(address: address, Self.behindBasic(["1.0.0", "1.2.0"]))
        let image = "\(registry.host)/acme/web"
        let tenant = "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: mine, namespace: team}\n"
            + "spec: {image: \(image), insecure: true}\n"
        // the platform's ImageRepository (HTTPS) and a tenant's for the same image with insecure: true
        let both = try fleet(image: image, more: tenant)
        let config = try dockerConfig(both, host: registry.host)
        let res = try tw(both, ["update", "--registry"], config: config)
        #expect(res.code == 1, "\(res.described)")
        #expect(res.stderr.contains("some ImageRepositories of \(image) set insecure: true and others do not: it is listed over HTTPS"),
                "\(res.described)")
        #expect(try registry.log().allSatisfy { $0.authorization.isEmpty }, "a credential went over plain HTTP")

        // one that says insecure alone: plain HTTP, but the credential only with --allow-insecure-credentials
        let alone = try fleet(image: image, repository: String(tenant.replacingOccurrences(of: "name: mine, namespace: team", with: "name: web, namespace: flux-system")
            .dropFirst("---\n".count)))
        let aloneConfig = try dockerConfig(alone, host: registry.host)
        let refused = try tw(alone, ["update", "--registry"], config: aloneConfig)
        #expect(refused.code == 1, "\(refused.described)")
        #expect(refused.stderr.contains("the credential (\(aloneConfig)/config.json auths) would go to \(registry.host) over plain HTTP: not sent"),
                "\(refused.described)")
        #expect(try registry.log().allSatisfy { $0.authorization.isEmpty }, "a credential went over plain HTTP")
        let allowed = try tw(alone, ["update", "--registry", "--allow-insecure-credentials"], config: aloneConfig)
        #expect(allowed.code == 3 && allowed.stdout.contains(":1.2.0"), "\(allowed.described)")
        #expect(try registry.log().last?.authorization == Self.basicSecret)
    }

    // MARK: bounds

    @Test func endlessPagesOfDistinctTagsStopAtTheTagBoundWithoutCrashing() throws {
        let registry = try FakeRegistry(FakeRegistry.tagsHelper + """
            def respond(req):
                n = int(req.query.get('page', ['0'])[0])
                return tags_page(req, [f'1.{n}.{i}' for i in range(1000)], f'</v2/acme/web/tags/list?page={n + 1}>; rel="next"')
            """)
        let r = try fleet(image: "\(registry.host)/acme/web")
        let res = try bounded(["update", "--registry", "--no-cache"], in: r.path, seconds: 60, rssMB: 400,
                              env: ["DOCKER_CONFIG": r.path + "/.git/none"])
        #expect(res.code == 1, "\(res.described)")
        #expect(res.stderr.contains("\(registry.host): listing the tags of acme/web: more than 500000 tags; a registry that lists more is not read"),
                "\(res.described)")
        #expect(try registry.log().count == 501)
        // audit --registry on a pull request that names this registry: the same bound, a note, no crash
        let audit = try bounded(["audit", "--registry", "--format", "json"], in: r.path, seconds: 60, rssMB: 400,
                                env: ["DOCKER_CONFIG": r.path + "/.git/none", "XDG_CACHE_HOME": r.path + "/.git/cache"])
        #expect(audit.code == 0, "\(audit.described)")
        // a tag list not given is registry-unreachable: the marker was not judged against its policy
        let unreachable = audit.findingObjects.filter { $0["rule"] as? String == "registry-unreachable" }
        #expect(unreachable.map { "\($0["file"]!):\($0["line"]!)" } == ["apps/web.yaml:1"], "\(audit.described)")
        #expect(unreachable.first?["message"] as? String == "\(registry.host)/acme/web could not be asked about its tag and its tag list "
                + "(\(registry.host): reading the digest of acme/web:1.0.0: the answer names no digest (no Docker-Content-Digest header)): "
                + "whether it exists and what it names, and which tag its policies select were not checked "
                + "(image-tag-missing, image-digest-mismatch, marker-behind, promotion-overwritten) (no cluster in this repository applies this file)",
                "\(audit.described)")
        #expect(audit.stderr.contains("more than 500000 tags; a registry that lists more is not read"), "\(audit.described)")
    }

    @Test func aPageLargerThanTheResponseBoundIsAnErrorForThatRegistry() throws {
        let registry = try FakeRegistry(FakeRegistry.tagsHelper + """
            big = json.dumps({'name': 'acme/web', 'tags': [f't{i:09d}' for i in range(3000000)]}).encode()
            def respond(req): return (200, [('Content-Type', 'application/json')], big)
            """)
        let r = try fleet(image: "\(registry.host)/acme/web")
        let res = try bounded(["update", "--registry", "--no-cache"], in: r.path, seconds: 60, rssMB: 300,
                              env: ["DOCKER_CONFIG": r.path + "/.git/none"])
        #expect(res.code == 1, "\(res.described)")
        #expect(res.stderr.contains("http://\(registry.host) answered with more than 32 MiB: not read"), "\(res.described)")
    }

    @Test func retryAfterThatIsNoNumberOfSecondsIsIgnored() throws {
        let registry = try FakeRegistry(FakeRegistry.tagsHelper + """
            def respond(req):
                n = int(req.state.get('n', '0')); req.state['n'] = str(n + 1)
                if n < 3: return (429, [('Retry-After', ['nan', '-inf', '1e999'][n])], b'{"errors":[{"code":"TOOMANYREQUESTS"}]}')
                return tags_page(req, ['1.0.0', '1.5.0'])
            """)
        let r = try fleet(image: "\(registry.host)/acme/web")
        let res = try tw(r, ["update", "--registry", "--no-cache"])
        #expect(res.code == 3 && res.stdout.contains(":1.5.0"), "\(res.described)")
        #expect(res.stderr.contains("4 requests, 3 retried"), "\(res.described)")
    }

    @Test func aListingAnsweredWithHTMLNamesTheRegistryAndFallsBackToTheCache() throws {
        let registry = try FakeRegistry(FakeRegistry.tagsHelper + """
            def respond(req):
                if req.state.get('html'): return (200, [('Content-Type', 'text/html')], b'<html><body>Sign in</body></html>')
                return tags_page(req, ['1.0.0', '1.5.0'])
            """)
        let r = try fleet(image: "\(registry.host)/acme/web")
        #expect(try tw(r, ["update", "--registry"]).code == 3)
        try registry.set("html", "1")
        let stale = try tw(r, ["update", "--registry", "--cache-ttl", "0s"])
        #expect(stale.code == 3 && stale.stdout.contains(":1.5.0"), "\(stale.described)")
        #expect(stale.stderr.contains("from the cache: \(registry.host): listing the tags of acme/web: the answer is not a JSON tag list (Content-Type text/html)"),
                "\(stale.described)")
        let none = try tw(r, ["update", "--registry", "--no-cache"])
        #expect(none.code == 1 && none.stderr.contains("the answer is not a JSON tag list"), "\(none.described)")
        #expect(none.stderr.hasSuffix("tagwarden: no change, and 1 error above: not known to be up to date\n"), "\(none.described)")
    }

    @Test func policyEvalKeepsToTheRegistryTimeLimit() throws {
        let registry = try FakeRegistry(FakeRegistry.tagsHelper + """
            import time
            def respond(req):
                time.sleep(0.05)
                n = int(req.query.get('page', ['0'])[0])
                return tags_page(req, [f'1.{n}.0'], f'</v2/acme/web/tags/list?page={n + 1}>; rel="next"')
            """)
        let r = try fleet(image: "\(registry.host)/acme/web")
        let start = Date()
        let res = try tw(r, ["policy", "eval", "--policy", "flux-system/web", "--registry", "--registry-time-limit", "2s"])
        #expect(Date().timeIntervalSince(start) < 15)
        #expect(res.code != 0 && res.stderr.contains("the registry time limit of the run (2 s) ran out"), "\(res.described)")
    }

    @Test func aCredentialHelperThatNeverAnswersIsStoppedAtTheTimeLimit() throws {
        let registry = try FakeRegistry(Self.behindBasic(["1.0.0"]))
        let r = try fleet(image: "\(registry.host)/acme/web")
        let config = r.path + "/.git/docker"
        try FileManager.default.createDirectory(atPath: config + "/bin", withIntermediateDirectories: true)
        try #"{"credsStore": "hang"}"#.write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
        try "#!/bin/sh\nsleep 600\n".write(toFile: config + "/bin/docker-credential-hang", atomically: true, encoding: .utf8)
        chmod(config + "/bin/docker-credential-hang", 0o755)
        let start = Date()
        let res = try tw(r, ["update", "--registry", "--registry-time-limit", "3s"], config: config,
                         env: ["PATH": config + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "")])
        #expect(Date().timeIntervalSince(start) < 15)
        #expect(res.code == 1, "\(res.described)")
        #expect(res.stderr.contains("docker-credential-hang gave no credential for \(registry.host) (stopped: it did not finish within 3 s)"),
                "\(res.described)")
    }

    // MARK: the cache

    @Test func withoutAHomeNothingIsCachedAndAnotherUsersCacheIsNotRead() throws {
        let registry = try FakeRegistry(FakeRegistry.tagsHelper + "def respond(req): return tags_page(req, ['1.0.0', '1.5.0'])\n")
        let r = try fleet(image: "\(registry.host)/acme/web")
        for _ in 0..<2 {
            let res = try tw(r, ["update", "--registry"], env: ["HOME": "", "XDG_CACHE_HOME": ""])
            #expect(res.code == 3, "\(res.described)")
        }
        #expect(try registry.log().count == 2, "a listing was cached without a home")
        guard geteuid() == 0 else { return }
        // a cache directory another user owns (as one planted under a shared directory would be)
        let cache = r.path + "/.git/cache/tagwarden/registry"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        chown(r.path + "/.git/cache/tagwarden", 65534, 65534)
        chown(cache, 65534, 65534)
        for _ in 0..<2 {
            let res = try tw(r, ["update", "--registry"])
            #expect(res.code == 3 && res.stderr.contains("the tag cache \(r.path)/.git/cache/tagwarden is another user's or writable by others: "
                                                         + "it is neither read nor written"), "\(res.described)")
        }
        #expect(try registry.log().count == 4, "another user's cache was read")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
    }

    // MARK: reports

    @Test func aRegistrysErrorMessageIsTextInEveryFormat() throws {
        let registry = try FakeRegistry(#"""
            import json
            def respond(req):
                return (403, [('Content-Type', 'application/json')], json.dumps({'errors': [{'code': 'DENIED',
                        'message': 'no\n::error file=README.md,line=1::FORGED\u001b[2J<img src=x onerror=alert(1)>'}]}).encode())
            """#)
        let r = try fleet(image: "\(registry.host)/acme/web")
        for format in ["markdown", "text", "json"] {
            let res = try tw(r, ["update", "--registry", "--format", format])
            #expect(res.code == 1, "\(res.described)")
            for line in (res.stdout + res.stderr).split(separator: "\n") {
                #expect(!line.hasPrefix("::") && !line.contains("\u{1B}"), "\(format): \(line)")
                if format == "markdown" { #expect(!line.contains("<img"), "\(line)") }
            }
        }
        let markdown = try tw(r, ["update", "--registry", "--format", "markdown"])
        #expect(markdown.stdout.contains("HTTP 403 DENIED: no ::error file=README.md,line=1::FORGED \\[2J&lt;img src=x onerror=alert(1)&gt;"),
                "\(markdown.described)")
    }

    @Test func anUnreachableRegistryIsAFindingInEveryFormat() throws {
        let port = try LocalRegistry.freePort()   // nothing listens there
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/web.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: apps}\nspec:\n  containers:\n"
                    + "    - {name: web, image: 127.0.0.1:\(port)/acme/web:1.0.0}\n")
        try r.commitAll("pod")
        let json = try tw(r, ["audit", "--registry", "--format", "json"])
        #expect(json.code == 0, "\(json.described)")
        let unreachable = json.findingObjects.filter { $0["rule"] as? String == "registry-unreachable" }
        #expect(unreachable.map { "\($0["file"]!):\($0["line"]!) \($0["severity"]!)" } == ["apps/web.yaml:6 warning"], "\(json.described)")
        #expect((unreachable.first?["message"] as? String)?.hasPrefix("127.0.0.1:\(port)/acme/web could not be asked about its tag (request to http://127.0.0.1:\(port) failed") == true,
                "\(unreachable)")
        let sarif = try tw(r, ["audit", "--registry", "--format", "sarif"])
        #expect(sarif.stdout.contains("\"ruleId\" : \"registry-unreachable\"") || sarif.stdout.contains("\"ruleId\": \"registry-unreachable\""),
                "\(sarif.described)")
        #expect(try tw(r, ["audit", "--registry", "--fail-on", "warning"]).code == 1)
        let required = try tw(r, ["audit", "--registry", "--registry-required", "--format", "json", "-q"])
        #expect(required.code == 1, "\(required.described)")
        #expect(required.findingObjects.map { "\($0["rule"]!) \($0["severity"]!)" } == ["registry-unreachable error"], "\(required.described)")
    }

    /// libcurl is loaded when a registry is first asked, not when Tagwarden starts: with a broken libcurl.so.4 first on
    /// the library path, an audit that asks no registry runs as ever, and one that does stops with what to install.
    @Test func libcurlIsLoadedOnlyWhenARegistryIsAsked() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/web.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: apps}\nspec:\n  containers:\n"
                    + "    - {name: web, image: 127.0.0.1:1/acme/web:1.0.0}\n")
        try r.commitAll("pod")
        let broken = r.path + "/.git/broken-libcurl"
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        try r.write(".git/broken-libcurl/libcurl.so.4", "not a shared library\n")
        let env = ["LD_LIBRARY_PATH": broken]
        let offline = try tw(r, ["audit", "--format", "json"], env: env)
        #expect(offline.code == 0 && offline.findingObjects.isEmpty, "\(offline.described)")
        let asked = try tw(r, ["audit", "--registry", "--format", "json"], env: env)
        #expect(asked.code == 2, "\(asked.described)")
        #expect(asked.stderr.hasPrefix("tagwarden: error: cannot load libcurl, which registry access needs: \(broken)/libcurl.so.4: ")
                && asked.stderr.contains("(Debian: apt install libcurl4)"), "\(asked.described)")
    }

    /// On a terminal (a pty from `script`), the progress line is cleared before the summary, also when a repository
    /// failed and the count never reached the total.
    @Test func theProgressLineEndsBeforeTheSummary() throws {
        let registry = try FakeRegistry(FakeRegistry.tagsHelper + """
            def respond(req):
                if 'acme/web' in req.path: return tags_page(req, ['1.0.0', '1.5.0'])
                return (500, [], b'down')
            """)
        let r = try fleet(image: "\(registry.host)/acme/web", more: "---\n" + imageRepository(name: "api", image: "\(registry.host)/acme/api"))
        let command = "env XDG_CACHE_HOME=\(r.path)/.git/cache DOCKER_CONFIG=\(r.path)/.git/none \(binary) update --registry --no-color > /dev/null"
        let res = try run("/usr/bin/script", ["-qec", command, "/dev/null"], cwd: r.path)
        #expect(res.stdout.contains("tagwarden: registries: 1/2 repositories"), "\(res.described)")
        #expect(res.stdout.contains("\r\u{1B}[Ktagwarden: "), "the progress line runs into the summary: \(res.stdout.debugDescription)")
    }
}
