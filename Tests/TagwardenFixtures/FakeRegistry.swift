import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A registry that behaves as a test tells it to, hostile or broken: a Python HTTP server whose answers come from
/// `behaviour`, Python code defining `respond(req)` that returns `(status, [(header, value)], body bytes)`. `req` has
/// `method`, `path`, `query` (a dict of lists), `headers` and the server's `state` (a dict the code may keep things in,
/// set from outside with `set`). Every request is logged (method, path, Authorization header) for `log()`.
public final class FakeRegistry: @unchecked Sendable {
    let process: Process
    public let port: Int
    public let address: String
    public var host: String { "\(address):\(port)" }

    /// `address`: where it listens and how the repository names it (`127.0.0.1`, or a non-loopback address).
    public init(address: String = "127.0.0.1", _ behaviour: String) throws {
        port = try LocalRegistry.freePort()
        self.address = address
        let script = #"""
        import http.server, json, sys, urllib.parse, threading
        address, port = sys.argv[1], int(sys.argv[2])
        state = {}
        log = []
        lock = threading.Lock()
        class Req: pass
        exec(sys.argv[3])
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True
            def log_message(self, *a): pass
            def handle_any(self):
                url = urllib.parse.urlparse(self.path)
                if url.path == "/__log":
                    with lock: body = json.dumps(log).encode()
                    return self.reply(200, [], body)
                if url.path == "/__set":
                    with lock:
                        for k, v in urllib.parse.parse_qs(url.query).items(): state[k] = v[0]
                    return self.reply(200, [], b"ok")
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with lock: log.append({"method": self.command, "path": self.path, "authorization": self.headers.get("Authorization") or "",
                                       "body": body.decode("utf-8", "replace")})
                r = Req(); r.method = self.command; r.path = url.path; r.query = urllib.parse.parse_qs(url.query); r.body = body
                r.headers = self.headers; r.state = state; r.host = f"{address}:{port}"
                status, headers, body = respond(r)
                self.reply(status, headers, body)
            def reply(self, status, headers, body):
                self.send_response(status)
                for k, v in headers: self.send_header(k, v)
                self.send_header("Content-Length", str(len(body))); self.end_headers()
                if self.command != "HEAD": self.wfile.write(body)
            do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = handle_any
        http.server.ThreadingHTTPServer((address, port), H).serve_forever()
        """#
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, address, String(port), behaviour]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try HTTPClientForTests.waitUntilServing("http://\(host)/__log", what: "the fake registry")
    }

    /// The requests it has had, in order: method, path with query, and the Authorization header ("" for none).
    public func log() throws -> [(method: String, path: String, authorization: String)] {
        guard let text = try HTTPClientForTests.body("http://\(host)/__log"),
              let list = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: String]] else {
            throw HarnessError("the fake registry's log cannot be read")
        }
        return list.map { ($0["method"] ?? "", $0["path"] ?? "", $0["authorization"] ?? "") }
    }

    /// The requests it has had, in order, with their bodies: method, path with query, body (as UTF-8).
    public func bodies() throws -> [(method: String, path: String, body: String)] {
        guard let text = try HTTPClientForTests.body("http://\(host)/__log"),
              let list = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: String]] else {
            throw HarnessError("the fake registry's log cannot be read")
        }
        return list.map { ($0["method"] ?? "", $0["path"] ?? "", $0["body"] ?? "") }
    }

    /// Sets `state[key] = value` for the behaviour.
    public func set(_ key: String, _ value: String) throws {
        _ = try HTTPClientForTests.body("http://\(host)/__set?\(key)=\(value)")
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A tag list page as the distribution API answers it.
    public static let tagsHelper = #"""
    def tags_page(req, tags, link=None):
        h = [("Content-Type", "application/json")]
        if link: h.append(("Link", link))
        return (200, h, json.dumps({"name": req.path.split("/v2/")[1].rsplit("/tags", 1)[0], "tags": tags}).encode())
    def needs_basic(req):
        if not req.headers.get("Authorization"):
            return (401, [("WWW-Authenticate", 'Basic realm="fake"')], b'{"errors":[{"code":"UNAUTHORIZED"}]}')
        return None

    """#
}
