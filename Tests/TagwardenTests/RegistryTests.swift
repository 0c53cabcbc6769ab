import Testing
import Foundation
import TagwardenFixtures
@testable import TagwardenHTTP
@testable import TagwardenBasics
@testable import TagwardenUpdate

@Suite(.serialized) struct RegistryTests {
    @Test func tagsArePagedAndDigestsAreTheRegistrysIndexDigestForAMultiArchImage() throws {
        let registry = try LocalRegistry()
        let tags = (0..<250).map { String(format: "1.%d.0", $0) }
        let single = try registry.push("acme/web", tags: tags)
        let index = try registry.push("acme/multi", tags: ["1.0.0"], platforms: 2)
        // Debian's registry (distribution 2.8) lists all tags at once; the proxy pages them as Docker Hub and GHCR do
        let proxy = try RegistryProxy(upstream: registry.host, maxPage: 100)
        let client = try RegistryClient(pageSize: 100)
        let web = RegistryRepository(image: "\(proxy.host)/acme/web")
        #expect(web.plainHTTP && web.path == "acme/web")
        let listed = try client.tags(web)
        #expect(listed.sorted() == tags.sorted())
        // three pages: the Link header followed, never one page assumed
        #expect(client.requests == 3)
        #expect(try proxy.count() == 3)
        #expect(try client.digest(web, tag: "1.7.0")?.digest == single)
        let multi = try client.digest(RegistryRepository(image: "\(registry.host)/acme/multi"), tag: "1.0.0")
        #expect(multi?.digest == index)
        #expect(multi?.mediaType == "application/vnd.oci.image.index.v1+json")
        #expect(try client.digest(web, tag: "9.9.9") == nil)
    }

    @Test func basicAuthenticationUsesTheCredentialAndARefusalSaysWhy() throws {
        let registry = try LocalRegistry(users: [("bot", "s3cret")])
        try registry.push("acme/web", tags: ["1.0.0", "1.1.0"], auth: ("bot", "s3cret"))
        let repository = RegistryRepository(image: "\(registry.host)/acme/web")
        let anonymous = try RegistryClient()
        #expect(throws: TagwardenError("\(registry.host): listing the tags of acme/web: HTTP 401 UNAUTHORIZED: authentication required "
                                       + "(no credential for \(registry.host))")) { try anonymous.tags(repository) }
        let client = try RegistryClient { host in host == registry.host ? RegistryCredential(username: "bot", password: "s3cret", origin: "test") : nil }
        #expect(try client.tags(repository).sorted() == ["1.0.0", "1.1.0"])
        let wrong = try RegistryClient { _ in RegistryCredential(username: "bot", password: "nope", origin: "test") }
        let error = #expect(throws: TagwardenError.self) { try wrong.tags(repository) }
        #expect(error?.message.contains("credential refused") == true)
        #expect(error?.message.contains("nope") == false)
    }

    @Test func namesMapAsGoContainerRegistryMapsThem() {
        #expect(RegistryRepository(image: "nginx") == RegistryRepository(image: "docker.io/library/nginx"))
        #expect(RegistryRepository(image: "nginx").host == "registry-1.docker.io")
        #expect(RegistryRepository(image: "nginx").path == "library/nginx")
        #expect(RegistryRepository(image: "acme/web").path == "acme/web")
        #expect(RegistryRepository(image: "ghcr.io/acme/web").host == "ghcr.io")
        #expect(!RegistryRepository(image: "ghcr.io/acme/web").plainHTTP)
        #expect(RegistryRepository(image: "localhost:5000/web").plainHTTP)
        #expect(RegistryRepository(image: "registry.internal/web", insecure: true).plainHTTP)
    }

    @Test func challengesAndLinksParse() throws {
        let (scheme, params) = RegistryAnswers.challenge(#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull""#)
        #expect(scheme == "Bearer")
        #expect(params == ["realm": "https://auth.example/token", "service": "registry.example", "scope": "repository:a/b:pull"])
        #expect(RegistryAnswers.nextLink(#"</v2/acme/web/tags/list?n=100&last=1.9>; rel="next""#, origin: "https://ghcr.io")
                == "https://ghcr.io/v2/acme/web/tags/list?n=100&last=1.9")
        #expect(RegistryAnswers.retryAfter(" 2.5 ") == 2.5)
        #expect(["nan", "-inf", "inf", "1e999", "-1", "Wed, 21 Oct 2026 07:28:00 GMT", ""].allSatisfy { RegistryAnswers.retryAfter($0) == nil })
        #expect(throws: TagwardenError.self) { try RegistryAnswers.tagList(Array("<html>sign in</html>".utf8)) }
        #expect(try RegistryAnswers.tagList(Array(#"{"name": "a", "tags": null}"#.utf8)) == [])
        #expect(Base64.encode(Array("bot:s3cret".utf8)) == "Ym90OnMzY3JldA==")
    }
}

extension RegistryTests {
    @Test func bearerTokensFromTheTokenServiceAreKeptPerScope() throws {
        let registry = try LocalRegistry(users: [("bot", "t0ken-pass")], tokenService: true)
        try registry.push("acme/web", tags: ["1.0.0", "1.1.0"], auth: ("bot", "t0ken-pass"))
        let repository = RegistryRepository(image: "\(registry.host)/acme/web")
        let issuedBefore = try registry.tokensIssued()
        let client = try RegistryClient { _ in RegistryCredential(username: "bot", password: "t0ken-pass", origin: "test") }
        #expect(try client.tags(repository).sorted() == ["1.0.0", "1.1.0"])
        #expect(try client.digest(repository, tag: "1.1.0") != nil)
        #expect(try client.tags(repository).count == 2)
        // one token for the scope, reused: the challenge once, then the token on every request
        #expect(try registry.tokensIssued() == issuedBefore + 1)
        // no credential: the token service refuses, and the message says where
        let anonymous = try RegistryClient()
        let error = #expect(throws: TagwardenError.self) { try anonymous.tags(repository) }
        #expect(error?.message.contains("the token service of \(registry.host)") == true, "\(String(describing: error))")
    }
}

extension RegistryTests {
    @Test func limitsSpaceRequestsPerHostAndEndTheRun() throws {
        let limits = RegistryLimits(rate: 2, timeLimit: 5, now: 100)
        #expect(try limits.reserve("a", now: 100) == 0)
        #expect(try limits.reserve("a", now: 100) == 0.5)
        #expect(try limits.reserve("a", now: 100.25) == 0.75)
        #expect(try limits.reserve("b", now: 100.25) == 0)
        #expect(throws: TagwardenError("the registry time limit of the run (5 s) ran out; give more with --registry-time-limit")) {
            try limits.reserve("a", now: 105)
        }
    }
}

extension RegistryTests {
    @Test func anIdentityTokenIsTradedForAccessTokens() throws {
        let registry = try LocalRegistry(users: [("bot", "idpass")], tokenService: true)
        try registry.push("acme/web", tags: ["1.0.0"], auth: ("bot", "idpass"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tw-docker-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"auths": {"\#(registry.host)": {"auth": "", "identitytoken": "refresh-idpass"}}}"#
            .write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        let credentials = try DockerCredentials.load(path: dir + "/config.json")
        #expect(credentials.credential(for: registry.host)?.identityToken == "refresh-idpass")
        let client = try RegistryClient { credentials.credential(for: $0) }
        #expect(try client.tags(RegistryRepository(image: "\(registry.host)/acme/web")) == ["1.0.0"])
    }
}

extension RegistryTests {
    @Test func httpsWithTheRegistrysCertificateGivenAndRefusedWithout() throws {
        let registry = try LocalRegistry(tls: true)
        try registry.push("acme/web", tags: ["1.0.0"])
        let repository = RegistryRepository(image: "\(registry.host)/acme/web")
        #expect(!repository.plainHTTP)
        let trusting = try RegistryClient(caFile: registry.certificate)
        #expect(try trusting.tags(repository) == ["1.0.0"])
        let strict = try RegistryClient()
        let error = #expect(throws: TagwardenError.self) { try strict.tags(repository) }
        #expect(error?.message.hasPrefix("request to https://\(registry.host) failed: ") == true, "\(String(describing: error))")
    }
}
