import TagwardenBasics
import TagwardenModel
#if canImport(Glibc)
import Glibc
#endif

/// Registry credentials as docker finds them: `config.json` in `DOCKER_CONFIG` (else `~/.docker`), or the file given;
/// `auths` entries with `auth` (base64 `user:password`), `credHelpers` per registry and a `credsStore` for the rest, run
/// as `docker-credential-NAME get`, at most `helperTimeout` seconds, once per registry a run. Secrets are kept in memory
/// only and never shown.
public struct DockerCredentials: Sendable {
    let auths: [String: (username: String, password: String, identityToken: String?)]
    let helpers: [String: String]
    let store: String?
    public let path: String?
    /// How long a credential helper may take before it is killed (and the registry asked anonymously, with a note): 20
    /// seconds, or less when the run's registry time limit is shorter.
    public var helperTimeout = 20.0
    /// What the helpers answered, by registry, and why one failed: a helper runs once a run.
    final class Answers: Sendable {
        let known = Locked<[String: RegistryCredential?]>([:])
        let problems = Locked<[String]>([])
    }
    let answers = Answers()

    init(auths: [String: (username: String, password: String, identityToken: String?)], helpers: [String: String], store: String?, path: String?) {
        self.auths = auths
        self.helpers = helpers
        self.store = store
        self.path = path
    }

    /// The credential helpers that failed or were stopped, one line each (for the run's notes).
    public var problems: [String] { answers.problems.withLock { $0 } }

    /// The configuration at `path`, or docker's default; none is no error (anonymous access).
    public static func load(path: String? = nil) throws -> DockerCredentials {
        let file = path ?? ((getenv("DOCKER_CONFIG").map { String(cString: $0) } ?? ((getenv("HOME").map { String(cString: $0) } ?? "") + "/.docker"))
                            + "/config.json")
        guard case .success(let bytes) = FileSystem.readFile(file, limit: 4 << 20) else {
            if path != nil { throw TagwardenError("\(file): cannot be read") }
            return DockerCredentials(auths: [:], helpers: [:], store: nil, path: nil)
        }
        return try parse(bytes, file: file)
    }

    /// docker's configuration read from `bytes` (the file named `file` in messages).
    static func parse(_ bytes: [UInt8], file: String) throws -> DockerCredentials {
        let json: JSON
        do { json = try JSON.parse(String(decoding: bytes, as: UTF8.self)) } catch {
            throw TagwardenError("\(file): not JSON: \(error.message)")
        }
        var auths: [String: (String, String, String?)] = [:]
        if case .object(let entries)? = json["auths"] {
            for (host, entry) in entries {
                // `identitytoken` (an OAuth2 refresh token, as `docker login` stores for some registries) or `auth`
                if let token = entry["identitytoken"]?.stringValue, !token.isEmpty {
                    auths[Self.key(host)] = ("<token>", "", token)
                    continue
                }
                guard let encoded = entry["auth"]?.stringValue, let decoded = Base64.decode(encoded),
                      let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { continue }
                auths[Self.key(host)] = (String(decoding: decoded[..<colon], as: UTF8.self), String(decoding: decoded[(colon + 1)...], as: UTF8.self), nil)
            }
        }
        var helpers: [String: String] = [:]
        if case .object(let entries)? = json["credHelpers"] {
            for (host, name) in entries { if let n = name.stringValue { helpers[Self.key(host)] = n } }
        }
        return DockerCredentials(auths: auths, helpers: helpers, store: json["credsStore"]?.stringValue, path: file)
    }

    /// A registry as docker's configuration names it: Docker Hub's hosts all as `docker.io`, others without scheme or path.
    static func key(_ host: String) -> String {
        var h = host
        for prefix in ["https://", "http://"] where h.hasPrefix(prefix) { h = String(h.dropFirst(prefix.count)) }
        h = String(h.prefix { $0 != "/" })
        return ["index.docker.io", "registry-1.docker.io", "docker.io"].contains(h) ? "docker.io" : h
    }

    /// The credential for a registry host: its `auths` entry, else its helper, else the store.
    public func credential(for host: String) -> RegistryCredential? {
        let k = Self.key(host)
        if let a = auths[k] {
            return RegistryCredential(username: a.username, password: a.password, origin: "\(path ?? "docker config") auths", identityToken: a.identityToken)
        }
        guard let helper = helpers[k] ?? store else { return nil }
        if let known = answers.known.withLock({ $0[k] }) { return known }
        let answer = ask(helper, k)
        answers.known.withLock { $0[k] = .some(answer) }
        return answer
    }

    /// Runs `docker-credential-HELPER get` for registry `k`, bounded in time and output.
    func ask(_ helper: String, _ k: String) -> RegistryCredential? {
        let server = k == "docker.io" ? "https://index.docker.io/v1/" : k
        let program = "docker-credential-" + helper
        func failed(_ why: String) -> RegistryCredential? {
            answers.problems.withLock { $0.append("\(program) gave no credential for \(k) (\(why)): it is asked anonymously") }
            return nil
        }
        guard let out = try? Subprocess.run(program, ["get"], input: Array(server.utf8), timeout: helperTimeout, maxOutput: 1 << 20) else {
            return failed("it cannot be run")
        }
        if let stopped = out.stopped { return failed("stopped: \(stopped)") }
        guard out.status == 0 else { return nil }   // "credentials not found in native keychain": no credential, as docker reads it
        guard let json = try? JSON.parse(out.stdoutText), let secret = json["Secret"]?.stringValue else { return failed("its answer is not docker's JSON") }
        // a helper's user `<token>` means the secret is an identity token
        let user = json["Username"]?.stringValue ?? ""
        return RegistryCredential(username: user, password: user == "<token>" ? "" : secret, origin: "credential helper \(program)",
                                  identityToken: user == "<token>" ? secret : nil)
    }
}

/// Tags and digests from the registries the ImageRepositories name, as image-reflector-controller scans them, kept in
/// a `TagCache` for `ttl` seconds. `offline` reads the cache only; when a registry cannot be read, a cached listing
/// however old is used, and a note says so.
public final class RegistryTagSource: TagSource {
    let client: RegistryClient
    let credentials: DockerCredentials
    let insecure: [String: Bool]
    let cache: TagCache?
    let ttl: Double
    let offline: Bool
    var entries: [String: (key: String, entry: TagCache.Entry)] = [:]
    var identities: [String: String] = [:]
    /// What a user should know: which credential each registry got, the ImageRepositories whose cluster credentials
    /// (secretRef, provider) cannot be read here, and listings served stale from the cache.
    public var notes: [String] { said + credentials.problems }
    var said: [String] = []
    /// Listings served from the cache, and asked of registries.
    public private(set) var cached = 0
    public private(set) var listed = 0
    /// How many images there are to list, and a callback after each (for a progress line).
    public let images: Int
    public var progress: ((_ done: Int, _ tags: Int) -> Void)?
    var tagCount = 0

    /// How many repositories are listed at once (each worker with its own connection), and with what.
    public let concurrency: Int
    var failures: [String: TagwardenError] = [:]
    var workerRequests = 0, workerRetries = 0

    public init(model: Model, client: RegistryClient, credentials: DockerCredentials, cache: TagCache? = TagCache.user(),
                ttl: Double = 1800, offline: Bool = false, concurrency: Int = 5) {
        self.client = client
        self.concurrency = max(1, concurrency)
        self.credentials = credentials
        self.cache = cache
        self.ttl = ttl
        self.offline = offline
        // an image is listed over plain HTTP only when every ImageRepository of it says insecure: one object's setting
        // never turns another's requests (and credential) to plain HTTP
        var insecure: [String: Bool] = [:]
        var anyInsecure: Set<String> = []
        for r in model.flux.repositories {
            guard let image = r.spec.image?.value else { continue }
            insecure[image] = (insecure[image] ?? true) && r.spec.insecure
            if r.spec.insecure { anyInsecure.insert(image) }
            if let secret = r.spec.secretRef ?? r.spec.provider.flatMap({ $0 == "generic" ? nil : $0 }) {
                let host = RegistryRepository(image: image).host
                said.append("ImageRepository for \(image) reads credentials from \(r.spec.secretRef != nil ? "secret \(secret)" : "provider \(secret)") "
                             + "in the cluster; here " + (credentials.credential(for: host).map { "\($0.origin) is used" } ?? "access is anonymous"))
            }
        }
        for (image, plain) in insecure.sorted(by: { $0.key < $1.key }) where !plain && anyInsecure.contains(image) {
            said.append("some ImageRepositories of \(image) set insecure: true and others do not: it is listed over HTTPS, as the others are")
        }
        if let why = cache?.refusal() { said.append(why) }
        self.insecure = insecure
        images = insecure.count
    }

    func repository(_ image: String) -> RegistryRepository { RegistryRepository(image: image, insecure: insecure[image] ?? false) }

    /// The cache key of a repository: where it is and who asks (a credential's origin and user, never its secret).
    func key(_ repository: RegistryRepository) -> String {
        if identities[repository.host] == nil {
            identities[repository.host] = credentials.credential(for: repository.host).map { "\($0.origin) \($0.username)" } ?? "anonymous"
        }
        return "\(repository.plainHTTP ? "http" : "https")://\(repository.host)/\(repository.path) as \(identities[repository.host]!)"
    }

    static func age(_ seconds: Double) -> String {
        seconds < 120 ? "\(Int(seconds)) s" : seconds < 7200 ? "\(Int(seconds / 60)) min" : "\(Int(seconds / 3600)) h"
    }

    /// Lists, `concurrency` at once, the repositories whose listing the cache does not hold fresh.
    public func prefetch(_ images: [String]) {
        guard !offline else { return }
        let now = RegistryClient.now()
        var jobs: [(image: String, repository: RegistryRepository, key: String)] = []
        for image in images where entries[image] == nil {
            let repository = repository(image)
            let key = key(repository)
            if let saved = cache?.load(key), now - saved.listed < ttl { continue }   // tags(of:) serves it
            jobs.append((image, repository, key))
        }
        guard jobs.count > 1 else { return }
        let sibling = client.sibling
        let work = jobs.map { ($0.repository) }
        let results = concurrentWaiting(work.count, width: concurrency, make: { () -> RegistryClient? in try? sibling() }) { client, i -> (Result<[String], TagwardenError>, Int, Int) in
            guard let client else { return (.failure(TagwardenError("cannot start libcurl")), 0, 0) }
            let before = (client.requests, client.retries)
            let result: Result<[String], TagwardenError>
            do {
                result = .success(try client.tags(work[i]))
            } catch let e as TagwardenError {
                result = .failure(e)
            } catch {
                result = .failure(TagwardenError("\(error)"))
            }
            return (result, client.requests - before.0, client.retries - before.1)
        }
        for (job, (result, requests, retries)) in zip(jobs, results) {
            workerRequests += requests
            workerRetries += retries
            switch result {
            case .success(let tags):
                let entry = TagCache.Entry(tags: tags, digests: [:], listed: now)
                cache?.store(job.key, entry)
                entries[job.image] = (job.key, entry)
                listed += 1
                tagCount += tags.count
                progress?(entries.count, tagCount)
            case .failure(let e):
                failures[job.image] = e
            }
        }
    }

    /// Asks the registries for these digests, `concurrency` at once, keeping them with the listings (and in the cache).
    public func prefetchDigests(_ wanted: [(image: String, tag: String)]) {
        guard !offline else { return }
        let jobs = wanted.filter { entries[$0.image] != nil && entries[$0.image]!.entry.digests[$0.tag] == nil }
        guard jobs.count > 1 else { return }
        let sibling = client.sibling
        let work = jobs.map { (repository($0.image), $0.tag) }
        let results = concurrentWaiting(work.count, width: concurrency, make: { () -> RegistryClient? in try? sibling() }) { client, i -> (String?, Int, Int) in
            guard let client else { return (nil, 0, 0) }
            let before = (client.requests, client.retries)
            let digest = (try? client.digest(work[i].0, tag: work[i].1))??.digest
            return (digest, client.requests - before.0, client.retries - before.1)
        }
        var changed: Set<String> = []
        for (job, (digest, requests, retries)) in zip(jobs, results) {
            workerRequests += requests
            workerRetries += retries
            // one that failed is asked again, alone, by digest(of:tag:), which says why
            guard let digest, var known = entries[job.image] else { continue }
            known.entry.digests[job.tag] = digest
            entries[job.image] = known
            changed.insert(job.image)
        }
        for image in changed { if let known = entries[image] { cache?.store(known.key, known.entry) } }
    }

    public func tags(of image: String) throws -> [TagRecord]? {
        if let known = entries[image] { return known.entry.tags.map { TagRecord(tag: $0, digest: known.entry.digests[$0]) } }
        if let failed = failures.removeValue(forKey: image) {
            // a listing that failed: the cache, however old, else the error
            let key = key(repository(image))
            guard let saved = cache?.load(key) else { throw failed }
            said.append("the tags of \(image) are \(Self.age(RegistryClient.now() - saved.listed)) old, from the cache: \(failed.message)")
            entries[image] = (key, saved)
            cached += 1
            tagCount += saved.tags.count
            progress?(entries.count, tagCount)
            return saved.tags.map { TagRecord(tag: $0, digest: saved.digests[$0]) }
        }
        let repository = repository(image)
        let key = key(repository)
        let saved = cache?.load(key)
        let now = RegistryClient.now()
        var entry: TagCache.Entry
        if let saved, offline || now - saved.listed < ttl {
            entry = saved
            cached += 1
        } else if offline {
            throw TagwardenError("no cached tags of \(image) (--offline reads the cache only)")
        } else {
            do {
                entry = TagCache.Entry(tags: try client.tags(repository), digests: [:], listed: now)
                listed += 1
                cache?.store(key, entry)
            } catch let e as TagwardenError {
                guard let saved else { throw e }
                said.append("the tags of \(image) are \(Self.age(now - saved.listed)) old, from the cache: \(e.message)")
                entry = saved
                cached += 1
            }
        }
        entries[image] = (key, entry)
        tagCount += entry.tags.count
        progress?(entries.count, tagCount)
        return entry.tags.map { TagRecord(tag: $0, digest: entry.digests[$0]) }
    }

    public func digest(of image: String, tag: String) throws -> String? {
        if let known = entries[image], let d = known.entry.digests[tag] { return d }
        if offline { return nil }
        guard let d = try client.digest(repository(image), tag: tag)?.digest else { return nil }
        if var known = entries[image] {
            known.entry.digests[tag] = d
            entries[image] = known
            cache?.store(known.key, known.entry)
        }
        return d
    }

    /// Asks the registries, `concurrency` at once, what each tag names (a HEAD of its manifest). A registry that refuses
    /// or fails leaves its tags out, with a note: only its answer "no such manifest" makes a tag missing.
    public func lookup(_ wanted: [(image: String, tag: String)], unanswered: inout [Int: String]) -> [Int: RegistryFacts.Tag] {
        guard !wanted.isEmpty else { return [:] }
        let sibling = client.sibling, credentials = self.credentials
        let work = wanted.map { (repository($0.image), $0.tag) }
        let results = concurrentWaiting(work.count, width: concurrency, make: { () -> RegistryClient? in try? sibling() }) { client, i -> (Result<RegistryFacts.Tag, TagwardenError>, Int, Int) in
            guard let client else { return (.failure(TagwardenError("cannot start libcurl")), 0, 0) }
            let before = (client.requests, client.retries)
            let result: Result<RegistryFacts.Tag, TagwardenError>
            do {
                if let found = try client.digest(work[i].0, tag: work[i].1) {
                    result = .success(.present(digest: found.digest, mediaType: found.mediaType, platforms: []))
                } else {
                    // a 404 is "missing" only when the registry says which thing is unknown, or when it was asked with a
                    // credential: some registries answer 404 to an anonymous request for a private repository
                    let code = try client.absence(work[i].0, tag: work[i].1)
                    let asked = credentials.credential(for: work[i].0.host) != nil
                    switch code {
                    case "": result = .failure(TagwardenError("the tag appeared while it was checked"))
                    case "MANIFEST_UNKNOWN"?, "TAG_UNKNOWN"?: result = .success(.missing)
                    case "NAME_UNKNOWN"? where asked, nil where asked: result = .success(.missing)
                    default: result = .failure(TagwardenError("the registry answered 404 (\(code ?? "no reason given")) to an anonymous request: "
                                                              + "the repository may be private"))
                    }
                }
            } catch let e as TagwardenError {
                result = .failure(e)
            } catch {
                result = .failure(TagwardenError("\(error)"))
            }
            return (result, client.requests - before.0, client.retries - before.1)
        }
        var out: [Int: RegistryFacts.Tag] = [:]
        for (k, (result, requests, retries)) in results.enumerated() {
            workerRequests += requests
            workerRetries += retries
            switch result {
            case .success(let state): out[k] = state
            case .failure(let e): unanswered[k] = e.message
            }
        }
        return out
    }

    public func platforms(of image: String, digest: String) -> [String]? {
        (try? client.platforms(repository(image), index: digest)) ?? nil
    }

    public var requests: Int { client.requests + workerRequests }
    public var retries: Int { client.retries + workerRetries }
}

extension Base64 {
    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for c in text.utf8 where c != UInt8(ascii: "=") && c != 10 && c != 13 {
            guard let v = alphabet.firstIndex(of: c) ?? (c == UInt8(ascii: "-") ? 62 : c == UInt8(ascii: "_") ? 63 : nil) else { return nil }
            values.append(UInt8(v))
        }
        var out: [UInt8] = []
        var i = 0
        while i + 1 < values.count {
            let n = (UInt32(values[i]) << 18) | (UInt32(values[i + 1]) << 12)
                | (i + 2 < values.count ? UInt32(values[i + 2]) << 6 : 0) | (i + 3 < values.count ? UInt32(values[i + 3]) : 0)
            out.append(UInt8(n >> 16 & 255))
            if i + 2 < values.count { out.append(UInt8(n >> 8 & 255)) }
            if i + 3 < values.count { out.append(UInt8(n & 255)) }
            i += 4
        }
        return out
    }
}
