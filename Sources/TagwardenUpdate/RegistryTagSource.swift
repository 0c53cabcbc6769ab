import TagwardenBasics
import TagwardenModel
#if canImport(Glibc)
import Glibc
#endif

/// Registry credentials as docker finds them: `config.json` in `DOCKER_CONFIG` (else `~/.docker`), or the file given;
/// `auths` entries with `auth` (base64 `user:password`), `credHelpers` per registry and a `credsStore` for the rest, run
/// as `docker-credential-NAME get`. Secrets are kept in memory only and never shown.
public struct DockerCredentials: Sendable {
    let auths: [String: (username: String, password: String)]
    let helpers: [String: String]
    let store: String?
    public let path: String?

    /// The configuration at `path`, or docker's default; none is no error (anonymous access).
    public static func load(path: String? = nil) throws -> DockerCredentials {
        let file = path ?? ((getenv("DOCKER_CONFIG").map { String(cString: $0) } ?? ((getenv("HOME").map { String(cString: $0) } ?? "") + "/.docker"))
                            + "/config.json")
        guard case .success(let bytes) = FileSystem.readFile(file, limit: 4 << 20) else {
            if path != nil { throw TagwardenError("\(file): cannot be read") }
            return DockerCredentials(auths: [:], helpers: [:], store: nil, path: nil)
        }
        let json: JSON
        do { json = try JSON.parse(String(decoding: bytes, as: UTF8.self)) } catch {
            throw TagwardenError("\(file): not JSON: \(error.message)")
        }
        var auths: [String: (String, String)] = [:]
        if case .object(let entries)? = json["auths"] {
            for (host, entry) in entries {
                guard let encoded = entry["auth"]?.stringValue, let decoded = Base64.decode(encoded),
                      let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { continue }
                auths[Self.key(host)] = (String(decoding: decoded[..<colon], as: UTF8.self), String(decoding: decoded[(colon + 1)...], as: UTF8.self))
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
        if let a = auths[k] { return RegistryCredential(username: a.username, password: a.password, origin: "\(path ?? "docker config") auths") }
        guard let helper = helpers[k] ?? store else { return nil }
        let server = k == "docker.io" ? "https://index.docker.io/v1/" : k
        guard let out = try? Subprocess.run("docker-credential-" + helper, ["get"], input: Array(server.utf8)), out.status == 0,
              let json = try? JSON.parse(out.stdoutText), let secret = json["Secret"]?.stringValue else { return nil }
        return RegistryCredential(username: json["Username"]?.stringValue ?? "", password: secret, origin: "credential helper docker-credential-\(helper)")
    }
}

/// Tags and digests from the registries the ImageRepositories name, as image-reflector-controller scans them.
public final class RegistryTagSource: TagSource {
    let client: RegistryClient
    let insecure: [String: Bool]
    var listed: [String: [TagRecord]] = [:]
    /// What a user should know: which credential each registry got, and the ImageRepositories whose cluster credentials
    /// (secretRef, provider) cannot be read here.
    public private(set) var notes: [String] = []
    var noted: Set<String> = []

    public init(model: Model, client: RegistryClient, credentials: DockerCredentials) {
        self.client = client
        var insecure: [String: Bool] = [:]
        for r in model.flux.repositories {
            guard let image = r.spec.image?.value else { continue }
            insecure[image] = (insecure[image] ?? false) || r.spec.insecure
            if let secret = r.spec.secretRef ?? r.spec.provider.flatMap({ $0 == "generic" ? nil : $0 }) {
                let host = RegistryRepository(image: image).host
                notes.append("ImageRepository for \(image) reads credentials from \(r.spec.secretRef != nil ? "secret \(secret)" : "provider \(secret)") "
                             + "in the cluster; here " + (credentials.credential(for: host).map { "\($0.origin) is used" } ?? "access is anonymous"))
            }
        }
        self.insecure = insecure
    }

    public func tags(of image: String) throws -> [TagRecord]? {
        if let known = listed[image] { return known }
        let repository = RegistryRepository(image: image, insecure: insecure[image] ?? false)
        let records = try client.tags(repository).map { TagRecord(tag: $0) }
        listed[image] = records
        return records
    }

    public func digest(of image: String, tag: String) throws -> String? {
        try client.digest(RegistryRepository(image: image, insecure: insecure[image] ?? false), tag: tag)?.digest
    }

    public var requests: Int { client.requests }
    public var retries: Int { client.retries }
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
