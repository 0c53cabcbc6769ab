import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A test service that did not start or answer.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A real registry: Debian's `docker-registry` (distribution) on a free loopback port, with its storage in a temporary
/// directory, stopped when the value goes. With `htpasswd`, it asks for Basic authentication.
public final class LocalRegistry: @unchecked Sendable {
    let dir: String
    public let port: Int
    let process: Process
    let address: String
    let tls: Bool
    public internal(set) var tokenPort = 0
    /// The certificate of a TLS registry.
    public var certificate: String { dir + "/tls.pem" }

    /// The first IPv4 address of this machine that is not a loopback one.
    public static func nonLoopbackAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var p = list
        while let a = p {
            defer { p = a.pointee.ifa_next }
            guard let sa = a.pointee.ifa_addr, sa.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            let addr = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var copy = addr
            inet_ntop(AF_INET, &copy, &buffer, socklen_t(INET_ADDRSTRLEN))
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }
    var tokenProcess: Process?

    /// Tokens the token service has issued.
    public func tokensIssued() throws -> Int { try HTTPClientForTests.body("http://127.0.0.1:\(tokenPort)/__issued").flatMap(Int.init) ?? -1 }
    public var host: String { "\(address):\(port)" }

    /// With `tokenService`, the registry asks for Bearer tokens from a token service the harness runs (distribution's
    /// `auth: token`, tokens signed with a certificate made here), which grants them to `users` only.
    /// With `tls`, the registry speaks HTTPS on the machine's first address that is not a loopback one (a loopback
    /// registry is spoken to over HTTP, as go-containerregistry does), with a certificate made here: `certificate`.
    public init(users: [(String, String)] = [], tokenService: Bool = false, tls: Bool = false) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("tw-registry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/storage", withIntermediateDirectories: true)
        port = try LocalRegistry.freePort()
        var address = "127.0.0.1"
        var tlsConfig = ""
        if tls {
            guard let a = LocalRegistry.nonLoopbackAddress() else { throw HarnessError("this machine has no address but loopback to serve TLS on") }
            address = a
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/tls.key", "-out", dir + "/tls.pem",
                                 "-subj", "/CN=registry", "-days", "1", "-addext", "subjectAltName=IP:\(a)"]
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            tlsConfig = ", tls: {certificate: \(dir)/tls.pem, key: \(dir)/tls.key}"
        }
        self.address = address
        self.tls = tls
        var config = "version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: \(dir)/storage}, delete: {enabled: true}}\n"
            + "http: {addr: \"\(address):\(port)\"\(tlsConfig)}\n"
        if tokenService {
            tokenPort = try LocalRegistry.freePort()
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/token.key", "-out", dir + "/token.pem",
                                 "-subj", "/CN=token", "-days", "1"]
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            let script = #"""
            import base64, http.server, json, subprocess, sys, time, urllib.parse
            port, key, cert, users = int(sys.argv[1]), sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
            der = subprocess.run(["openssl", "x509", "-in", cert, "-outform", "DER"], capture_output=True).stdout
            b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
            state = {"issued": 0}
            class H(http.server.BaseHTTPRequestHandler):
                def log_message(self, *a): pass
                def do_POST(self):
                    # an OAuth2 refresh token: "refresh-" and a user's password
                    form = urllib.parse.parse_qs(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
                    refresh = form.get("refresh_token", [""])[0]
                    user = next((u for u, p in users.items() if refresh == "refresh-" + p), None)
                    if form.get("grant_type", [""])[0] != "refresh_token" or user is None:
                        self.send_response(401); self.send_header("Content-Length", "0"); self.end_headers(); return
                    self.path = "/token?" + urllib.parse.urlencode({"scope": form.get("scope", [""])[0], "service": form.get("service", [""])[0]})
                    self.issue(user, access_token=True)
                def do_GET(self):
                    if self.path == "/__issued":
                        body = str(state["issued"]).encode(); self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body); return
                    auth = self.headers.get("Authorization", "")
                    user = None
                    if auth.startswith("Basic "):
                        u, _, p = base64.b64decode(auth[6:]).decode().partition(":")
                        if users.get(u) == p: user = u
                    if user is None:
                        self.send_response(401); self.send_header("Content-Length", "0"); self.end_headers(); return
                    self.issue(user)
                def issue(self, user, access_token=False):
                    q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
                    access = []
                    for scope in q.get("scope", []):
                        kind, name, actions = scope.split(":")
                        access.append({"type": kind, "name": name, "actions": actions.split(",")})
                    now = int(time.time())
                    header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "x5c": [base64.b64encode(der).decode()]}).encode())
                    claims = b64(json.dumps({"iss": "test-issuer", "sub": user, "aud": q.get("service", [""])[0], "exp": now + 300, "nbf": now - 10,
                                             "iat": now, "jti": str(now) + str(state["issued"]), "access": access}).encode())
                    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=(header + "." + claims).encode(), capture_output=True).stdout
                    state["issued"] += 1
                    jwt = header + "." + claims + "." + b64(signature)
                    body = json.dumps({"access_token": jwt, "expires_in": 300} if access_token else {"token": jwt, "expires_in": 300}).encode()
                    self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
            http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
            """#
            let service = Process()
            service.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            service.arguments = ["-c", script, String(tokenPort), dir + "/token.key", dir + "/token.pem",
                                 "{" + users.map { "\"\($0.0)\": \"\($0.1)\"" }.joined(separator: ", ") + "}"]
            service.standardOutput = FileHandle.nullDevice
            service.standardError = FileHandle.nullDevice
            try service.run()
            tokenProcess = service
            // ready when it answers (a `for … where` would ask a hundred times, ready or not)
            for _ in 0..<100 {
                if (try? HTTPClientForTests.body("http://127.0.0.1:\(tokenPort)/__issued")) != nil { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            config += "auth: {token: {realm: \"http://127.0.0.1:\(tokenPort)/token\", service: test-registry, issuer: test-issuer, rootcertbundle: \(dir)/token.pem}}\n"
        } else if !users.isEmpty {
            var lines = ""
            for (user, password) in users {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/htpasswd")
                p.arguments = ["-Bbn", user, password]
                let out = Pipe()
                p.standardOutput = out
                try p.run()
                lines += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
                p.waitUntilExit()
            }
            try lines.write(toFile: dir + "/htpasswd", atomically: true, encoding: .utf8)
            config += "auth: {htpasswd: {realm: test, path: \(dir)/htpasswd}}\n"
        }
        try config.write(toFile: dir + "/config.yml", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/docker-registry")
        process.arguments = ["serve", dir + "/config.yml"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // ready when /v2/ answers
        for _ in 0..<100 {
            if let r = try? HTTPClientForTests.get("\(tls ? "https" : "http")://\(host)/v2/"), r > 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessError("docker-registry did not start on \(host)")
    }

    /// Stops the registry (a registry that went away).
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if let t = tokenProcess {
            kill(t.processIdentifier, SIGKILL)
            t.waitUntilExit()
            tokenProcess = nil
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// What the registry holds under `reference` (a tag or a digest) of `repository`, asked with urllib (the client
    /// under test out of the way), as Basic user `auth` when given: the digest it names and the manifest; nil when there
    /// is none.
    public func manifest(_ repository: String, _ reference: String, auth: (String, String)? = nil) throws -> (digest: String, body: String)? {
        let script = #"""
        import base64, json, ssl, sys, urllib.request, urllib.error
        url, repo, user, password, realm = sys.argv[1:6]
        headers = {"Accept": "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json"}
        basic = "Basic " + base64.b64encode((user + ":" + password).encode()).decode()
        if realm:
            t = urllib.request.Request(realm + "?service=test-registry&scope=repository:" + repo + ":pull", headers={"Authorization": basic})
            headers["Authorization"] = "Bearer " + json.loads(urllib.request.urlopen(t).read())["token"]
        elif user:
            headers["Authorization"] = basic
        try:
            r = urllib.request.urlopen(urllib.request.Request(url, headers=headers), context=ssl._create_unverified_context())
            print(r.headers["Docker-Content-Digest"]); print(r.read().decode())
        except urllib.error.HTTPError as e:
            if e.code != 404: raise
        """#
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script, "\(tls ? "https" : "http")://\(host)/v2/\(repository)/manifests/\(reference)", repository,
                       auth?.0 ?? "", auth?.1 ?? "", tokenPort > 0 ? "http://127.0.0.1:\(tokenPort)/token" : ""]
        let output = Pipe(), errors = Pipe()
        p.standardOutput = output
        p.standardError = errors
        try p.run()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("reading the test registry failed: \(problem)") }
        guard let newline = out.firstIndex(of: "\n") else { return nil }
        return (String(out[..<newline]), String(out[out.index(after: newline)...]))
    }

    /// The digests of the manifests of the index `digest` names.
    public func platforms(_ repository: String, index digest: String) throws -> [String] {
        guard let body = try manifest(repository, digest)?.body,
              let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return [] }
        return (json["manifests"] as? [[String: Any]] ?? []).compactMap { $0["digest"] as? String }
    }

    /// Pushes one small image (a config and a layer) under each of `tags` of `repository`, as user `auth` when given;
    /// returns the manifest's digest. `platforms` > 0 pushes a multi-arch index of that many images instead, and returns
    /// the index's digest. The content is a function of `seed` (and each image's architecture): the same seed, the same
    /// digest.
    ///
    /// The image is written as an OCI image layout and copied into the registry by `skopeo copy --all
    /// --preserve-digests` under the first tag, as a release pipeline fills a registry; the other tags are retags, the
    /// same manifest bytes PUT under each through the distribution API (hundreds of tags would take a skopeo run each).
    @discardableResult
    public func push(_ repository: String, tags: [String], platforms: Int = 0, auth: (String, String)? = nil, seed: String = "") throws -> String {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tw-push-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work + "/home", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let layout = work + "/layout"
        let digest = try LocalRegistry.run("/usr/bin/python3", ["-c", LocalRegistry.layoutScript, layout, seed, String(platforms)], in: work,
                                           doing: "writing the OCI layout").trimmingCharacters(in: .whitespacesAndNewlines)
        // skopeo with nothing of the user's: no auth file, registries.conf, certificates or signature storage read or
        // written (a private HOME and XDG directories, an empty registries.conf, a policy that accepts anything), and no
        // proxy from the environment
        try #"{"default": [{"type": "insecureAcceptAnything"}]}"#.write(toFile: work + "/policy.json", atomically: true, encoding: .utf8)
        try "".write(toFile: work + "/registries.conf", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: work + "/registries.d", withIntermediateDirectories: true)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": work + "/home", "XDG_RUNTIME_DIR": work + "/home", "XDG_CONFIG_HOME": work + "/home",
                           "DOCKER_CONFIG": work + "/home", "REGISTRY_AUTH_FILE": work + "/auth.json",
                           "CONTAINERS_REGISTRIES_CONF": work + "/registries.conf", "TMPDIR": work]
        // a plain-HTTP registry, or one whose certificate was made here: skopeo tries HTTPS, then HTTP, verifying nothing
        let destination = "docker://\(host)/\(repository)" + (tags.first.map { ":" + $0 } ?? "@" + digest)
        try LocalRegistry.run("/usr/bin/skopeo", ["--policy", work + "/policy.json", "--registries.d", work + "/registries.d", "--tmpdir", work,
                                                  "copy", "--quiet", "--all", "--preserve-digests", "--dest-tls-verify=false",
                                                  "--authfile", work + "/auth.json"]
                                                 + (auth.map { ["--dest-creds", $0.0 + ":" + $0.1] } ?? ["--dest-no-creds"])
                                                 + ["oci:\(layout):push", destination],
                              environment: environment, in: work, doing: "skopeo copy to \(destination)")
        try tags.joined(separator: "\n").write(toFile: work + "/tags", atomically: true, encoding: .utf8)
        try LocalRegistry.run("/usr/bin/python3", ["-c", LocalRegistry.retagScript, host, repository, layout, work + "/tags", auth?.0 ?? "", auth?.1 ?? "",
                                                   tokenPort > 0 ? "http://127.0.0.1:\(tokenPort)/token" : "", tls ? "https" : "http"],
                              in: work, doing: "tagging in the test registry")
        return digest
    }

    /// Writes an OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/`) of one image, or of an index of
    /// `platforms` images, under the reference `push`; prints the digest of the image or index. Every byte is a function of
    /// the seed and the architecture (the layer a tar with fixed times and owners).
    static let layoutScript = #"""
    import hashlib, io, json, os, sys, tarfile
    out, seed, platforms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(out + "/blobs/sha256")
    def blob(data, media_type):
        h = hashlib.sha256(data).hexdigest()
        with open(out + "/blobs/sha256/" + h, "wb") as f: f.write(data)
        return {"mediaType": media_type, "digest": "sha256:" + h, "size": len(data)}
    def layer(text):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            data = text.encode()
            info = tarfile.TarInfo("layer.txt"); info.size = len(data); info.mtime = 0; info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        return buf.getvalue()
    def image(arch):
        l = layer("layer " + seed + arch)
        config = json.dumps({"architecture": arch, "os": "linux", "config": {"Labels": {"seed": seed}},
                             "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(l).hexdigest()]}}).encode()
        m = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                        "config": blob(config, "application/vnd.oci.image.config.v1+json"),
                        "layers": [blob(l, "application/vnd.oci.image.layer.v1.tar")]}).encode()
        return blob(m, "application/vnd.oci.image.manifest.v1+json")
    if platforms == 0:
        top = image("amd64")
    else:
        manifests = []
        for arch in ["amd64", "arm64", "ppc64le", "s390x"][:platforms]:
            d = image(arch); d["platform"] = {"architecture": arch, "os": "linux"}; manifests.append(d)
        top = blob(json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": manifests}).encode(),
                   "application/vnd.oci.image.index.v1+json")
    with open(out + "/oci-layout", "w") as f: f.write('{"imageLayoutVersion":"1.0.0"}')
    with open(out + "/index.json", "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [dict(top, annotations={"org.opencontainers.image.ref.name": "push"})]}, f)
    print(top["digest"])
    """#

    /// Checks that the registry's digest for the first tag is the layout's, then PUTs the layout's top manifest, byte for
    /// byte, under each of the other tags: as Basic user when given, or with a Bearer token from `realm`.
    static let retagScript = #"""
    import base64, json, ssl, sys, urllib.request
    host, repo, layout, tagfile, user, password, realm, scheme = sys.argv[1:9]
    context = ssl._create_unverified_context()
    tags = open(tagfile).read().split()
    top = json.load(open(layout + "/index.json"))["manifests"][0]
    digest, ctype = top["digest"], top["mediaType"]
    body = open(layout + "/blobs/sha256/" + digest.split(":")[1], "rb").read()
    basic = "Basic " + base64.b64encode((user + ":" + password).encode()).decode()
    authorization = basic
    if realm:
        t = urllib.request.Request(realm + "?service=test-registry&scope=repository:" + repo + ":pull,push")
        t.add_header("Authorization", basic)
        authorization = "Bearer " + json.loads(urllib.request.urlopen(t).read())["token"]
    def req(method, url, data=None, headers={}):
        r = urllib.request.Request(url, data=data, method=method)
        for k, v in headers.items(): r.add_header(k, v)
        if user: r.add_header("Authorization", authorization)
        return urllib.request.urlopen(r, context=context)
    accept = "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json"
    first = tags[0] if tags else digest
    found = req("HEAD", f"{scheme}://{host}/v2/{repo}/manifests/{first}", headers={"Accept": accept}).headers.get("Docker-Content-Digest")
    if found != digest:
        sys.exit(f"the registry has {found} for {repo}:{first}, the layout {digest}: skopeo did not preserve the digest")
    for t in tags[1:]:
        req("PUT", f"{scheme}://{host}/v2/{repo}/manifests/{t}", body, {"Content-Type": ctype})
    """#

    /// Runs a tool to its end with its output in files (no pipe to fill); its standard output, or a HarnessError with its
    /// standard error.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil, in work: String, doing what: String) throws -> String {
        let out = work + "/stdout", err = work + "/stderr"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        if let environment { p.environment = environment }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle(forWritingAtPath: out)
        p.standardError = FileHandle(forWritingAtPath: err)
        try p.run()
        p.waitUntilExit()
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let problem = ((try? String(contentsOfFile: err, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard p.terminationStatus == 0 else {
            throw HarnessError("\(what) failed (\(URL(fileURLWithPath: tool).lastPathComponent) exited \(p.terminationStatus)): \(problem)")
        }
        return output
    }
}

/// A proxy in front of a registry, as a busy public registry behaves: tag lists in pages of at most `n` (never more than
/// `maxPage`) with a `Link` to the next, the first `refusals` requests answered `429` with `Retry-After`, and every request
/// counted (GET /__count).
public final class RegistryProxy: @unchecked Sendable {
    let process: Process
    public let port: Int
    public var host: String { "127.0.0.1:\(port)" }

    public init(upstream: String, maxPage: Int = 100, refusals: Int = 0, retryAfter: Int = 1) throws {
        port = try LocalRegistry.freePort()
        let script = #"""
        import http.server, json, sys, urllib.request, urllib.parse
        upstream, port, max_page, refusals, retry_after = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        state = {"count": 0, "refused": 0}
        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def reply(self, status, headers, body):
                self.send_response(status)
                for k, v in headers: self.send_header(k, v)
                self.send_header("Content-Length", str(len(body))); self.end_headers()
                if self.command != "HEAD": self.wfile.write(body)
            def handle_any(self):
                if self.path == "/__count":
                    return self.reply(200, [], str(state["count"]).encode())
                state["count"] += 1
                if state["refused"] < refusals:
                    state["refused"] += 1
                    return self.reply(429, [("Retry-After", retry_after)], b'{"errors":[{"code":"TOOMANYREQUESTS"}]}')
                url = urllib.parse.urlparse(self.path)
                q = urllib.parse.parse_qs(url.query)
                paged = url.path.endswith("/tags/list")
                target = "http://" + upstream + (url.path if paged else self.path)
                r = urllib.request.Request(target, method=self.command)
                for k in ("Accept", "Authorization"):
                    if self.headers.get(k): r.add_header(k, self.headers[k])
                try:
                    resp = urllib.request.urlopen(r); status = resp.status; body = resp.read(); headers = list(resp.headers.items())
                except urllib.error.HTTPError as e:
                    status, body, headers = e.code, e.read(), list(e.headers.items())
                headers = [(k, v) for k, v in headers if k.lower() not in ("content-length", "transfer-encoding", "connection", "date")]
                if paged and status == 200:
                    doc = json.loads(body); tags = sorted(doc.get("tags") or [])
                    n = min(int(q.get("n", [str(max_page)])[0]), max_page); last = q.get("last", [None])[0]
                    rest = [t for t in tags if last is None or t > last]
                    page = rest[:n]; doc["tags"] = page; body = json.dumps(doc).encode()
                    if len(rest) > n:
                        headers.append(("Link", f'<{url.path}?n={n}&last={urllib.parse.quote(page[-1])}>; rel="next"'))
                self.reply(status, headers, body)
            do_GET = do_HEAD = handle_any
        s = http.server.HTTPServer(("127.0.0.1", port), H)
        s.serve_forever()
        """#
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, upstream, String(port), String(maxPage), String(refusals), String(retryAfter)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try HTTPClientForTests.waitUntilServing("http://\(host)/__count", what: "the registry proxy")
    }

    /// Requests the proxy has had (the count itself not included).
    public func count() throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import urllib.request, sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())", "http://\(host)/__count"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// The status of a GET, with libcurl (the client under test) out of the way.
public enum HTTPClientForTests {
    /// The body of a GET, nil when it fails.
    public static func body(_ url: String) throws -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import urllib.request, sys\ntry: print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())\nexcept Exception: pass", url]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        p.waitUntilExit()
        return text.isEmpty ? nil : text
    }

    /// Waits, up to five seconds, until a GET of `url` answers 200; else `what` did not start.
    public static func waitUntilServing(_ url: String, what: String) throws {
        for _ in 0..<100 {
            if (try? get(url)) == 200 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessError("\(what) did not start")
    }

    public static func get(_ url: String) throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import ssl, urllib.request, urllib.error, sys\nc = ssl._create_unverified_context()\n"
                       + "try: print(urllib.request.urlopen(sys.argv[1], timeout=1, context=c).status)\n"
                       + "except urllib.error.HTTPError as e: print(e.code)\nexcept Exception: print(0)", url]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}

