import TagwardenBasics
import TagwardenHTTP
import TagwardenModel
#if canImport(Glibc)
import Glibc
#endif

/// Where an ImageRepository's `spec.image` lives: the registry's host (Docker Hub's API host for Docker Hub names), the
/// repository path in it (`library/` added for Docker Hub's official images), and whether it speaks plain HTTP.
public struct RegistryRepository: Sendable, Hashable {
    public let host: String
    public let path: String
    public let plainHTTP: Bool

    /// `image` as go-containerregistry reads a repository name; `insecure` (the ImageRepository's `spec.insecure`) or a
    /// loopback host means plain HTTP.
    public init(image: String, insecure: Bool = false) {
        let parts = image.split(separator: "/", maxSplits: 1).map(String.init)
        var host = "docker.io"
        var path = image
        if parts.count == 2, parts[0].contains(".") || parts[0].contains(":") || parts[0] == "localhost" {
            host = parts[0]
            path = parts[1]
        }
        if host == "docker.io" || host == "index.docker.io" {
            host = "registry-1.docker.io"
            if !path.contains("/") { path = "library/" + path }
        }
        self.host = host
        self.path = path
        plainHTTP = insecure || Self.isLoopback(host)
    }

    /// Whether `host` (with or without a port) is this machine: a request to it never crosses a network.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }) + "]" : String(host.prefix { $0 != ":" })
        return bare == "localhost" || bare == "[::1]" || bare.hasPrefix("127.")
    }

    /// Where requests for it go: scheme, host and port, as credentials are scoped.
    var origin: String { RegistryClient.origin(base) }

    var scheme: String { plainHTTP ? "http://" : "https://" }
    var base: String { scheme + host + "/v2/" + path }
}

/// A credential for a registry: a user and password (or token) for Basic auth and token requests, or an identity
/// token (OAuth2 refresh token) for the token service.
public struct RegistryCredential: Sendable {
    public let username: String
    public let password: String
    /// Where it came from, for notes ("docker config auths", "credential helper ecr-login"); never the secret.
    public let origin: String
    /// An OAuth2 refresh token (docker's `identitytoken`), traded at the token service for access tokens.
    public let identityToken: String?

    public init(username: String, password: String, origin: String, identityToken: String? = nil) {
        self.username = username
        self.password = password
        self.origin = origin
        self.identityToken = identityToken
    }
}

/// The OCI distribution API, as image-reflector-controller uses it: tags listed page by page, digests by `HEAD` of the
/// manifest (the registry's digest for the tag: an index's for a multi-arch image). Authentication answers the
/// registry's challenge: Basic with the credential, or a Bearer token from its token service, kept per scope until it
/// expires and fetched again once when the registry says it is invalid.
public final class RegistryClient {
    let http: HTTPClient
    let credential: @Sendable (String) -> RegistryCredential?
    /// Bearer tokens by host and scope, with when they expire (seconds since the epoch).
    var tokens: [String: (token: String, expires: Double)] = [:]
    /// How many requests were sent, for progress and tests.
    public private(set) var requests = 0
    public let pageSize: Int
    public let timeout: Double

    public static let manifestTypes = [
        "application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json",
    ]

    /// The run's rate and time limits, shared with the other connections.
    let limits: RegistryLimits?
    let caFile: String?
    /// What a registry may make a run do.
    public let bounds: RegistryBounds
    /// Whether a credential may go over plain HTTP to a host that is not this machine (`--allow-insecure-credentials`).
    public let allowInsecureCredentials: Bool

    /// `credential` gives the credential for a registry host, if there is one.
    public init(caFile: String? = nil, pageSize: Int = 100, timeout: Double = 30, limits: RegistryLimits? = nil, bounds: RegistryBounds = RegistryBounds(),
                allowInsecureCredentials: Bool = false, credential: @escaping @Sendable (String) -> RegistryCredential? = { _ in nil }) throws {
        http = try HTTPClient(caFile: caFile)
        self.caFile = caFile
        self.limits = limits
        self.bounds = bounds
        self.allowInsecureCredentials = allowInsecureCredentials
        self.credential = credential
        self.pageSize = min(100, max(1, pageSize))
        self.timeout = timeout
    }

    /// How to make a client with the same settings and credentials, and a connection of its own (for another thread).
    public var sibling: @Sendable () throws -> RegistryClient {
        let (caFile, pageSize, timeout, limits, bounds, allow, credential) = (caFile, pageSize, timeout, limits, bounds, allowInsecureCredentials, credential)
        return {
            try RegistryClient(caFile: caFile, pageSize: pageSize, timeout: timeout, limits: limits, bounds: bounds,
                               allowInsecureCredentials: allow, credential: credential)
        }
    }

    /// Every tag of the repository, following the `Link` header from page to page, within `bounds`.
    public func tags(_ repository: RegistryRepository) throws -> [String] {
        var url = repository.base + "/tags/list?n=\(pageSize)"
        var all: [String] = []
        var seen: Set<String> = []
        let what = "listing the tags of \(repository.path)"
        for _ in 0..<bounds.pages {
            let response = try send(HTTPRequest(url: url, headers: [("Accept", "application/json")], timeout: timeout), repository: repository,
                                    scope: "repository:\(repository.path):pull")
            guard response.status == 200 else { throw failure(response, what, repository) }
            do {
                all += try RegistryAnswers.tagList(response.body)
            } catch let e as TagwardenError {
                throw TagwardenError("\(repository.host): \(what): \(e.message)" + (response.header("Content-Type").map { " (Content-Type \($0.prefix(60)))" } ?? ""))
            }
            guard all.count <= bounds.tags else {
                throw TagwardenError("\(repository.host): \(what): more than \(bounds.tags) tags; a registry that lists more is not read (a bound of the run)")
            }
            guard let link = response.header("Link"), let next = RegistryAnswers.nextLink(link, origin: repository.scheme + repository.host) else {
                return all
            }
            // credentials go only where they were asked for: a next page elsewhere is not followed
            guard Self.origin(next) == repository.origin else {
                throw TagwardenError("\(repository.host): \(what): the next page is on another host (\(HTTPClient.host(next))): not followed")
            }
            // a registry that sends the same page again would never end
            guard seen.insert(next).inserted else { return all }
            url = next
        }
        throw TagwardenError("\(repository.host): \(what): more than \(bounds.pages) pages; a registry that pages further is not read (a bound of the run)")
    }

    /// The digest the registry gives for `tag` (a `HEAD` of its manifest, which Docker Hub does not count as a pull),
    /// and its media type; nil when there is no such tag.
    public func digest(_ repository: RegistryRepository, tag: String) throws -> (digest: String, mediaType: String?)? {
        let response = try askManifest(repository, reference: tag, method: "HEAD")
        if response.status == 404 { return nil }
        guard response.status == 200 else { throw failure(response, "reading the digest of \(repository.path):\(tag)", repository) }
        guard let digest = response.header("Docker-Content-Digest") else {
            throw TagwardenError("\(repository.host): reading the digest of \(repository.path):\(tag): the answer names no digest (no Docker-Content-Digest header)")
        }
        return (digest, response.header("Content-Type"))
    }

    /// The manifest `reference` (a tag or a digest) names, byte for byte, with its media type and the registry's digest
    /// of it; nil when there is none. A GET, which Docker Hub counts as a pull: only `promote` asks for one.
    public func manifest(_ repository: RegistryRepository, reference: String) throws -> (bytes: [UInt8], mediaType: String, digest: String)? {
        let response = try askManifest(repository, reference: reference, method: "GET")
        if response.status == 404 { return nil }
        guard response.status == 200, let type = response.header("Content-Type") else {
            throw failure(response, "reading the manifest \(repository.path)@\(reference)", repository)
        }
        let digest = response.header("Docker-Content-Digest") ?? Self.sha256Digest(response.body)
        return (response.body, type, digest)
    }

    /// The digests of the manifests of the index `digest` names (a multi-arch image's platforms); nil when it is none.
    public func platforms(_ repository: RegistryRepository, index digest: String) throws -> [String]? {
        guard let manifest = try manifest(repository, reference: digest) else { return nil }
        return RegistryAnswers.manifestDigests(manifest.bytes)
    }

    /// Why the registry has no manifest under `tag`, as its error code says (`MANIFEST_UNKNOWN`, `NAME_UNKNOWN`): a GET
    /// after a HEAD answered 404 (a HEAD's answer has no body). Nil when the answer has no code; "" when the tag exists.
    public func absence(_ repository: RegistryRepository, tag: String) throws -> String? {
        let response = try askManifest(repository, reference: tag, method: "GET")
        if response.status == 200 { return "" }
        guard response.status == 404 else { throw failure(response, "reading the manifest \(repository.path):\(tag)", repository) }
        return (try? JSON.parse(String(decoding: response.body, as: UTF8.self)))?["errors"]?.arrayValue?.first?["code"]?.stringValue
    }

    /// A HEAD or GET of the manifest `reference` names, accepting every manifest and index type.
    func askManifest(_ repository: RegistryRepository, reference: String, method: String) throws -> HTTPResponse {
        let request = HTTPRequest(method: method, url: repository.base + "/manifests/" + reference,
                                  headers: [("Accept", Self.manifestTypes.joined(separator: ", "))], timeout: timeout)
        return try send(request, repository: repository, scope: "repository:\(repository.path):pull")
    }

    /// Puts `bytes` (a manifest already in the repository, under another reference) under `tag`; returns the digest the
    /// registry gives it. The same bytes make the same digest: a retag, no rebuild.
    public func putManifest(_ repository: RegistryRepository, tag: String, bytes: [UInt8], mediaType: String) throws -> String {
        let request = HTTPRequest(method: "PUT", url: repository.base + "/manifests/" + tag, headers: [("Content-Type", mediaType)],
                                  body: bytes, timeout: timeout)
        let response = try send(request, repository: repository, scope: "repository:\(repository.path):pull,push")
        guard response.status == 201 || response.status == 200 else {
            throw failure(response, "tagging \(repository.path):\(tag)", repository)
        }
        return response.header("Docker-Content-Digest") ?? Self.sha256Digest(bytes)
    }

    /// `sha256:` and the hex SHA-256 of `bytes`, as a registry names content.
    public static func sha256Digest(_ bytes: [UInt8]) -> String { "sha256:" + SHA256.hex(bytes) }

    // MARK: authentication

    func send(_ request: HTTPRequest, repository: RegistryRepository, scope: String) throws -> HTTPResponse {
        var request = request
        request.maxBody = bounds.responseBytes
        // credentials go only to the scheme, host and port they are for (go-containerregistry's rule)
        let own = Self.origin(request.url) == repository.origin
        let key = repository.host + " " + scope
        if own, let cached = tokens[key], cached.expires > Self.now() {
            request.headers.append(("Authorization", "Bearer " + cached.token))
        }
        var response = try sendPolitely(request)
        guard response.status == 401, own else { return response }
        // the registry's challenge says how to authenticate
        guard let challenge = response.header("WWW-Authenticate") else { return response }
        let (scheme, params) = RegistryAnswers.challenge(challenge)
        var retry = request
        retry.headers.removeAll { $0.name == "Authorization" }
        switch scheme.lowercased() {
        case "basic":
            guard let c = credential(repository.host) else { return response }
            try refuseInClear(request.url, c, repository)
            retry.headers.append(("Authorization", "Basic " + Base64.encode(Array("\(c.username):\(c.password)".utf8))))
        case "bearer":
            guard let realm = params["realm"] else { return response }
            if let c = credential(repository.host) { try refuseInClear(request.url, c, repository) }
            let token = try bearerToken(realm: realm, service: params["service"], scope: params["scope"] ?? scope, repository: repository)
            tokens[key] = token
            retry.headers.append(("Authorization", "Bearer " + token.token))
        default:
            return response
        }
        response = try sendPolitely(retry)
        return response
    }

    /// Refuses to send `credential` (or what is traded for it) to `url` over plain HTTP, unless the host is this machine or
    /// `--allow-insecure-credentials` allows it.
    func refuseInClear(_ url: String, _ credential: RegistryCredential, _ repository: RegistryRepository) throws {
        guard url.hasPrefix("http://"), !allowInsecureCredentials else { return }
        let host = String(HTTPClient.host(url).dropFirst("http://".count))
        guard !RegistryRepository.isLoopback(host) else { return }
        throw TagwardenError("\(repository.host): the credential (\(credential.origin)) would go to \(host) over plain HTTP: not sent "
                             + "(an ImageRepository with insecure: true, or a token service at http://); --allow-insecure-credentials sends it")
    }

    /// How many times a request that the registry refused with 429 or 503 was sent again.
    public private(set) var retries = 0
    /// The most tries of one request, and the most seconds to wait between two.
    public var maxTries = 5
    public var maxWait = 30.0

    /// Sends a request; on `429 Too Many Requests` or `503`, waits as `Retry-After` says (else 0.5 s, doubling, with
    /// jitter) and tries again, a bounded number of times.
    func sendPolitely(_ request: HTTPRequest) throws -> HTTPResponse {
        var delay = 0.5
        for attempt in 1...maxTries {
            if let limits {
                let wait = try limits.reserve(HTTPClient.host(request.url), now: Self.now())
                if wait > 0 { Self.sleep(wait) }
            }
            requests += 1
            let response = try http.send(request)
            guard response.status == 429 || response.status == 503, attempt < maxTries else { return response }
            var wait = delay * (0.75 + Double(UInt8.random(in: 0...100)) / 200)
            if let seconds = response.header("Retry-After").flatMap(RegistryAnswers.retryAfter) { wait = seconds }
            wait = min(wait, maxWait)
            retries += 1
            Self.sleep(wait)
            delay *= 2
        }
        return try http.send(request)
    }

    static func sleep(_ seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        let seconds = min(seconds, 86_400)
        var t = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&t, &left) != 0, errno == EINTR { t = left }
    }

    func bearerToken(realm: String, service: String?, scope: String, repository: RegistryRepository) throws -> (token: String, expires: Double) {
        let host = repository.host
        guard realm.hasPrefix("https://") || realm.hasPrefix("http://") else {
            throw TagwardenError("\(host): the token service is not an HTTP address (realm \(realm.prefix(80)))")
        }
        if let c = credential(host) { try refuseInClear(realm, c, repository) }
        var request: HTTPRequest
        if let c = credential(host), let refresh = c.identityToken {
            // an identity token is an OAuth2 refresh token, traded by POST
            var form = "grant_type=refresh_token&client_id=tagwarden&scope=" + percentEncoded(scope) + "&refresh_token=" + percentEncoded(refresh)
            if let service { form += "&service=" + percentEncoded(service) }
            request = HTTPRequest(method: "POST", url: realm, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                  body: Array(form.utf8), timeout: timeout)
        } else {
            var url = realm + (realm.contains("?") ? "&" : "?") + "scope=" + percentEncoded(scope)
            if let service { url += "&service=" + percentEncoded(service) }
            var headers: [(name: String, value: String)] = []
            if let c = credential(host) {
                headers.append(("Authorization", "Basic " + Base64.encode(Array("\(c.username):\(c.password)".utf8))))
            }
            request = HTTPRequest(url: url, headers: headers, timeout: timeout)
        }
        request.maxBody = bounds.responseBytes
        let response = try sendPolitely(request)
        guard response.status == 200 else {
            throw TagwardenError("the token service of \(host) (\(HTTPClient.host(realm))) refused: HTTP \(response.status)")
        }
        guard let json = try? JSON.parse(String(decoding: response.body, as: UTF8.self)) else {
            throw TagwardenError("the token service of \(host) (\(HTTPClient.host(realm))) gave no JSON")
        }
        guard let token = json["token"]?.stringValue ?? json["access_token"]?.stringValue else {
            throw TagwardenError("the token service of \(host) gave no token")
        }
        // a token without expires_in lasts 60 seconds (the distribution spec's default)
        let lifetime = json["expires_in"]?.doubleValue.flatMap { $0.isFinite ? min(max($0, 0), 86_400) : nil } ?? 60
        return (token, Self.now() + lifetime - 5)
    }

    func failure(_ response: HTTPResponse, _ what: String, _ repository: RegistryRepository) -> TagwardenError {
        var why = "HTTP \(response.status)"
        if let body = try? JSON.parse(String(decoding: response.body, as: UTF8.self)), let errors = body["errors"]?.arrayValue,
           let first = errors.first, let code = first["code"]?.stringValue {
            why += " \(code)" + (first["message"]?.stringValue.map { ": \($0)" } ?? "")
        }
        if response.status == 401 { why += credential(repository.host) == nil ? " (no credential for \(repository.host))" : " (credential refused)" }
        return TagwardenError("\(repository.host): \(what): \(why)")
    }

    /// A URL's scheme, host and port (the default port written out), lower-cased: where a credential may go.
    static func origin(_ url: String) -> String {
        let https = url.lowercased().hasPrefix("https://")
        let authority = HTTPClient.host(url).lowercased()
        let scheme = https ? "https://" : "http://"
        guard authority.hasPrefix(scheme) else { return authority }
        var hostPort = String(authority.dropFirst(scheme.count))
        let hasPort = hostPort.hasPrefix("[") ? hostPort.contains("]:") : hostPort.contains(":")
        if !hasPort { hostPort += https ? ":443" : ":80" }
        return scheme + hostPort
    }

    public static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

/// Base64, for Basic authentication.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        if i < bytes.count {
            let rest = bytes.count - i
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
            out += rest == 2 ? [alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")] : [UInt8(ascii: "="), UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What one registry may make a run do: each bound is far above what a real registry needs, and reaching one is an
/// error for that repository alone.
public struct RegistryBounds: Sendable {
    /// The largest answer read (a page of tags, a manifest, a token): 32 MiB.
    public var responseBytes = 32 << 20
    /// The most pages of one repository's tags: 10,000.
    public var pages = 10_000
    /// The most tags of one repository: 500,000.
    public var tags = 500_000

    public init() {}
}

/// Limits shared by every connection of a run: at most `rate` requests a second to one host, and a time limit for all
/// registry work of the run.
public final class RegistryLimits: Sendable {
    let interval: Double
    let deadline: Double?
    let limit: Double?
    /// When each host may next be asked.
    let next = Locked<[String: Double]>([:])

    /// `rate` requests a second per host (0: no limit); `timeLimit` seconds for the run (nil: none).
    public init(rate: Double = 0, timeLimit: Double? = nil, now: Double = RegistryClient.now()) {
        interval = rate > 0 ? 1 / rate : 0
        limit = timeLimit
        deadline = timeLimit.map { now + $0 }
    }

    /// How long to wait before asking `host` at `now`; the slot is taken. Throws when the run's time is up.
    func reserve(_ host: String, now: Double) throws -> Double {
        if let deadline, now >= deadline {
            throw TagwardenError("the registry time limit of the run (\(Int(limit ?? 0)) s) ran out; give more with --registry-time-limit")
        }
        return next.withLock { next in
            let at = max(now, next[host] ?? 0)
            next[host] = at + interval
            return at - now
        }
    }
}
