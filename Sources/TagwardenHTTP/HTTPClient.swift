import TagwardenBasics
internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP request.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Seconds for the whole request.
    public var timeout: Double
    /// The most bytes of body read; a longer answer is an error.
    public var maxBody: Int

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
                timeout: Double = 30, maxBody: Int = 32 << 20) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxBody = maxBody
    }
}

/// An HTTP response: the status, the headers of the final response (names lower-cased), the body.
public struct HTTPResponse: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    /// The first value of a header (case-insensitive name).
    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        return headers.first { $0.name == n }?.value
    }

    /// Every value of a header, in order.
    public func headers(_ name: String) -> [String] {
        let n = name.lowercased()
        return headers.filter { $0.name == n }.map(\.value)
    }
}

/// libcurl wrapped once: HTTP and HTTPS with the system's trust store (or a CA file), and `HTTPS_PROXY`, `HTTP_PROXY`
/// and `NO_PROXY` as curl reads them. One client sends requests one at a time; use one per thread.
public final class HTTPClient {
    /// The system's libcurl, loaded and initialised by the first client (`CCurl`'s shim says why not at start), or why not.
    /// (Written once, by the lazy initialisation of a static, and only read after.)
    nonisolated(unsafe) static let library: Result<tw_curl, TagwardenError> = {
        var api = tw_curl()
        guard tw_curl_load(&api) == 0 else {
            let why = dlerror().map { String(cString: $0) } ?? "libcurl.so.4 lacks a function Tagwarden calls"
            return .failure(TagwardenError("cannot load libcurl, which registry access needs: \(why) (Debian: apt install libcurl4)"))
        }
        guard tw_curl_global_init(api, Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else { return .failure(TagwardenError("cannot start libcurl")) }
        return .success(api)
    }()
    let curl: tw_curl
    let handle: UnsafeMutableRawPointer
    let caFile: String?

    public init(caFile: String? = nil) throws {
        curl = try HTTPClient.library.get()
        guard let h = tw_curl_easy_init(curl) else { throw TagwardenError("cannot start libcurl") }
        handle = h
        self.caFile = caFile
    }

    deinit { tw_curl_easy_cleanup(curl, handle) }

    /// Sends `request` and returns the response; a connection, TLS or time-out failure throws, naming the host.
    public func send(_ request: HTTPRequest) throws -> HTTPResponse {
        tw_curl_easy_reset(curl, handle)
        let received = Received(maxBody: request.maxBody)
        let box = Unmanaged.passRetained(received)
        defer { box.release() }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { tw_curl_slist_free_all(curl, list) }
        for h in request.headers { list = tw_curl_slist_append(curl, list, "\(h.name): \(h.value)") }
        // no "Expect: 100-continue" round trip for bodies
        list = tw_curl_slist_append(curl, list, "Expect:")
        // curl writes its message here during the transfer: a buffer that lives as long as the request
        let error = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        error.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { error.deallocate() }
        var rc = tw_curl_setopt_string(curl, handle, CURLOPT_URL, request.url)
        rc = rc == CURLE_OK ? tw_curl_setopt_list(curl, handle, CURLOPT_HTTPHEADER, list) : rc
        rc = rc == CURLE_OK ? tw_curl_setopt_long(curl, handle, CURLOPT_TIMEOUT_MS, Int(request.timeout * 1000)) : rc
        rc = rc == CURLE_OK ? tw_curl_setopt_long(curl, handle, CURLOPT_NOSIGNAL, 1) : rc
        rc = rc == CURLE_OK ? tw_curl_setopt_long(curl, handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS)) : rc
        if let caFile { rc = rc == CURLE_OK ? tw_curl_setopt_string(curl, handle, CURLOPT_CAINFO, caFile) : rc }
        switch request.method {
        case "GET": break
        case "HEAD": rc = rc == CURLE_OK ? tw_curl_setopt_long(curl, handle, CURLOPT_NOBODY, 1) : rc
        default: rc = rc == CURLE_OK ? tw_curl_setopt_string(curl, handle, CURLOPT_CUSTOMREQUEST, request.method) : rc
        }
        var body = request.body ?? []
        rc = rc == CURLE_OK ? tw_curl_setopt_pointer(curl, handle, CURLOPT_WRITEDATA, box.toOpaque()) : rc
        rc = rc == CURLE_OK ? tw_curl_setopt_callback(curl, handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            guard let data, let context else { return 0 }
            let n = size * count
            let received = Unmanaged<Received>.fromOpaque(context).takeUnretainedValue()
            // past the bound: stop the transfer (curl reports a write error)
            guard received.body.count + n <= received.maxBody else { received.overflowed = true; return 0 }
            received.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n))
            return n
        }) : rc
        rc = rc == CURLE_OK ? tw_curl_setopt_pointer(curl, handle, CURLOPT_HEADERDATA, box.toOpaque()) : rc
        rc = rc == CURLE_OK ? tw_curl_setopt_callback(curl, handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            guard let data, let context else { return 0 }
            let n = size * count
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
            Unmanaged<Received>.fromOpaque(context).takeUnretainedValue().header(line)
            return n
        }) : rc
        rc = rc == CURLE_OK ? tw_curl_setopt_pointer(curl, handle, CURLOPT_ERRORBUFFER, error) : rc
        guard rc == CURLE_OK else { throw TagwardenError("cannot set up a request to \(Self.host(request.url)): curl error \(rc.rawValue)") }
        let performed: CURLcode = body.withUnsafeMutableBytes { bytes in
            if request.body != nil {
                _ = tw_curl_setopt_pointer(curl, handle, CURLOPT_POSTFIELDS, bytes.baseAddress)
                _ = tw_curl_setopt_long(curl, handle, CURLOPT_POSTFIELDSIZE, bytes.count)
            }
            return tw_curl_easy_perform(curl, handle)
        }
        if received.overflowed {
            throw TagwardenError("\(Self.host(request.url)) answered with more than \(ByteCount.formatSize(request.maxBody)): not read (a bound of the run)")
        }
        guard performed == CURLE_OK else {
            let written = String(decoding: UnsafeBufferPointer(start: error, count: strlen(error)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let detail = written.isEmpty ? tw_curl_easy_strerror(curl, performed).map { String(cString: $0) } ?? "curl error \(performed.rawValue)" : written
            throw TagwardenError("request to \(Self.host(request.url)) failed: \(detail)")
        }
        var status = 0
        _ = tw_curl_getinfo_long(curl, handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: received.headers, body: received.body)
    }

    /// A URL's scheme and host, for messages: never its user, password or query.
    public static func host(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        var authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String(url[..<scheme.upperBound]) + authority
    }
}

/// What a transfer receives: the headers of the last response (a redirect's or a 100's are dropped), and the body.
final class Received {
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    let maxBody: Int
    var overflowed = false

    init(maxBody: Int) { self.maxBody = maxBody }

    func header(_ line: String) {
        let text = line.trimmingCharacters
        if text.hasPrefix("HTTP/") { headers = []; return }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        var value = Substring(text[text.index(after: colon)...])
        while value.first == " " || value.first == "\t" { value.removeFirst() }
        headers.append((name, String(value)))
    }
}

extension String {
    var trimmingCharacters: String {
        var s = Substring(self)
        while let l = s.last, l == "\r\n" || l == "\n" || l == "\r" || l == " " { s.removeLast() }
        return String(s)
    }
}
