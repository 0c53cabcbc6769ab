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
/// make. No option turns that load off. So the executable defines the mbedTLS functions libgit2 calls for it
/// (`mbedtls_x509_crt_parse_file` for a bundle, `mbedtls_x509_crt_parse_path` for a directory, below): the dynamic
/// linker binds libgit2's calls to the executable's definitions before the library's. While libgit2 initialises, they
/// note the location and parse nothing; `load()`, which each network operation (push, fetch, asking a remote for a
/// reference) calls first, has libgit2 read it through its own option (GIT_OPT_SET_SSL_CERT_LOCATIONS), and then the
/// definitions hand the calls to mbedTLS's functions. A remote reached without `load()` would find no certificate and
/// refuse the server (it never trusts one unverified). A libgit2 built over OpenSSL never calls them: nothing is noted
/// and `load()` does nothing.
enum DeferredCertificates {
    /// Where libgit2 asked for its certificates: a bundle file, or a directory of them (libgit2's compiled-in location
    /// may be either; Debian's is a file).
    enum Location: Equatable {
        case file(String)
        case directory(String)
    }

    private struct State {
        var initialising = false
        /// What libgit2 asked for while initialising (the first: mbedTLS reads a directory file by file, through the
        /// same function).
        var noted: Location?
    }

    private static let state = Locked(State())
    /// Whether libgit2 has read the noted certificates (held while it reads them: a second remote operation waits).
    private static let loaded = Locked(false)

    /// Runs libgit2's initialisation with the certificates' parse deferred.
    static func initialise(_ body: () -> Void) {
        state.withLock { $0.initialising = true }
        body()
        state.withLock { $0.initialising = false }
    }

    /// What libgit2 asked to parse while it initialised (nil over OpenSSL, or if it has no such file or directory).
    static var noted: Location? { state.withLock { $0.noted } }

    /// Has libgit2 parse the certificates it deferred, once; a failure is libgit2's message, and the next remote
    /// operation tries again.
    static func load() throws {
        try loaded.withLock { loaded in
            guard !loaded, let location = noted else { return }
            try load(location)
            loaded = true
        }
    }

    /// Has libgit2 take the certificates at `location` as its CA certificates (what `load()` does with the noted ones;
    /// tests give their own).
    static func load(_ location: Location) throws {
        let rc: Int32
        let named: String
        switch location {
        case .file(let file): (rc, named) = (tw_git_set_ssl_cert_locations(file, nil), file)
        case .directory(let dir): (rc, named) = (tw_git_set_ssl_cert_locations(nil, dir), dir)
        }
        guard rc == 0 else { throw TagwardenError("cannot read the CA certificates \(named): \(lastGitError("unknown error"))") }
    }

    /// Whether a call now is libgit2's initialisation, noting `location` if it is the first.
    fileprivate static func deferring(_ location: Location?) -> Bool {
        state.withLock { s in
            guard s.initialising else { return false }
            if s.noted == nil { s.noted = location }
            return true
        }
    }

    /// mbedTLS's own definition of `name` (RTLD_NEXT: the one after the executable's in the lookup order).
    fileprivate static func mbedTLS(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(UnsafeMutableRawPointer(bitPattern: -1), name)
    }
}

/// mbedTLS's `int mbedtls_x509_crt_parse_file(mbedtls_x509_crt *chain, const char *path)`, deferred while libgit2
/// initialises (`DeferredCertificates`) and otherwise mbedTLS's own.
@_cdecl("mbedtls_x509_crt_parse_file")
public func tagwardenDeferredCertificateFile(_ chain: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    if DeferredCertificates.deferring(path.map { .file(String(cString: $0)) }) { return 0 }
    typealias Parse = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    guard let own = DeferredCertificates.mbedTLS("mbedtls_x509_crt_parse_file") else { return -0x2900 }  // MBEDTLS_ERR_X509_FILE_IO_ERROR
    return unsafeBitCast(own, to: Parse.self)(chain, path)
}

/// mbedTLS's `int mbedtls_x509_crt_parse_path(mbedtls_x509_crt *chain, const char *path)`, for a location that is a
/// directory: deferred as the file is.
@_cdecl("mbedtls_x509_crt_parse_path")
public func tagwardenDeferredCertificateDirectory(_ chain: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    if DeferredCertificates.deferring(path.map { .directory(String(cString: $0)) }) { return 0 }
    typealias Parse = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    guard let own = DeferredCertificates.mbedTLS("mbedtls_x509_crt_parse_path") else { return -0x2900 }
    return unsafeBitCast(own, to: Parse.self)(chain, path)
}
