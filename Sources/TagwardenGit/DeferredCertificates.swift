import TagwardenBasics
internal import CGit2
#if canImport(Glibc)
import Glibc
#endif

/// The system's CA certificates, read by libgit2 when Tagwarden first talks to a remote instead of in every run.
///
/// Debian's libgit2 (1.5, built over mbedTLS) parses its compiled-in CA bundle (`/etc/ssl/certs/ca-certificates.crt`,
/// 139 certificates here) in `git_libgit2_init`: 52 M instructions, about 9 ms, of every audit and pre-commit check,
/// for the pushes and fetches over https that only `update --push`, `promote --push` and the pull-request commands
/// make. No option turns that load off. So the executable defines the mbedTLS function libgit2 calls for it
/// (`mbedtls_x509_crt_parse_file`, below): the dynamic linker binds libgit2's call to the executable's definition
/// before the library's. While libgit2 initialises, the definition notes the file and parses nothing; `load()`, which
/// each network operation (push, fetch, asking a remote for a reference) calls first, has libgit2 read that file
/// through its own option (GIT_OPT_SET_SSL_CERT_LOCATIONS), and then the definition hands the call to mbedTLS's
/// function. A remote reached without `load()` would find no certificate and refuse the server (it never trusts one
/// unverified). A libgit2 built over OpenSSL never calls the function: nothing is noted and `load()` does nothing.
enum DeferredCertificates {
    private struct State {
        var initialising = false
        /// The file libgit2 asked for while initialising.
        var noted: String?
    }

    private static let state = Locked(State())
    /// Whether libgit2 has read the noted file (held while it reads it: a second remote operation waits for it).
    private static let loaded = Locked(false)

    /// Runs libgit2's initialisation with the certificates' parse deferred.
    static func initialise(_ body: () -> Void) {
        state.withLock { $0.initialising = true }
        body()
        state.withLock { $0.initialising = false }
    }

    /// The file libgit2 asked to parse while it initialised (nil over OpenSSL, or if it has no such file).
    static var noted: String? { state.withLock { $0.noted } }

    /// Has libgit2 parse the certificates it deferred, once; a failure is libgit2's message, and the next remote
    /// operation tries again.
    static func load() throws {
        try loaded.withLock { loaded in
            guard !loaded, let file = noted else { return }
            try load(file)
            loaded = true
        }
    }

    /// Has libgit2 take `file` as its CA certificates (what `load()` does with the noted one; tests give their own).
    static func load(_ file: String) throws {
        guard tw_git_set_ssl_cert_file(file) == 0 else {
            throw TagwardenError("cannot read the CA certificates \(file): \(lastGitError("unknown error"))")
        }
    }

    /// Whether a call now is libgit2's initialisation, noting the file if so.
    fileprivate static func deferring(_ path: UnsafePointer<CChar>?) -> Bool {
        state.withLock { s in
            guard s.initialising else { return false }
            s.noted = path.map { String(cString: $0) }
            return true
        }
    }
}

/// mbedTLS's `int mbedtls_x509_crt_parse_file(mbedtls_x509_crt *chain, const char *path)`, deferred while libgit2
/// initialises (`DeferredCertificates`) and otherwise mbedTLS's own.
@_cdecl("mbedtls_x509_crt_parse_file")
public func tagwardenDeferredCertificateParse(_ chain: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    if DeferredCertificates.deferring(path) { return 0 }
    typealias Parse = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    // RTLD_NEXT: the definition after this one in the lookup order, mbedTLS's
    guard let next = dlsym(UnsafeMutableRawPointer(bitPattern: -1), "mbedtls_x509_crt_parse_file") else {
        return -0x2900  // MBEDTLS_ERR_X509_FILE_IO_ERROR
    }
    return unsafeBitCast(next, to: Parse.self)(chain, path)
}
