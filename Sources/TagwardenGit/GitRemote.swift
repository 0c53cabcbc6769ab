import TagwardenBasics
internal import CGit2
#if canImport(Glibc)
import Glibc
#endif

// Talking to a remote: fetch, ask where a reference is, push. Credentials as git finds them: SSH keys from the agent
// (or the key file GIT_SSH_KEY names), and for HTTPS a token from the environment (TAGWARDEN_GIT_TOKEN, else
// GITHUB_TOKEN) or what git's credential helpers give (`git credential fill`). No secret is ever put in a message.

extension GitRepository {
    // MARK: push

    /// Pushes `refspecs` (`src:dst`, `+` forces) to the remote (a name or a URL); a refused reference (not a
    /// fast-forward …) throws, named.
    public func push(remote: String, refspecs: [String]) throws {
        try DeferredCertificates.load()
        let remoteHandle = try openRemote(remote, for: "push to")
        defer { git_remote_free(remoteHandle) }
        let state = RemoteState()
        var options = git_push_options()
        git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION))
        options.callbacks.payload = Unmanaged.passUnretained(state).toOpaque()
        options.callbacks.credentials = remoteCredentials
        options.callbacks.push_negotiation = { updates, count, payload in
            guard let payload, let updates else { return 0 }
            let state = Unmanaged<RemoteState>.fromOpaque(payload).takeUnretainedValue()
            for i in 0..<count {
                guard let u = updates[i]?.pointee, let dst = u.dst_refname else { continue }
                state.updates.append((String(cString: dst), GitOID(u.src), GitOID(u.dst)))
            }
            return 0
        }
        options.callbacks.push_update_reference = { name, status, payload in
            guard let payload, let name, let status else { return 0 }
            Unmanaged<RemoteState>.fromOpaque(payload).takeUnretainedValue().rejected.append((String(cString: name), String(cString: status)))
            return 0
        }
        var strings = refspecs.map { strdup($0) }
        defer { for s in strings { free(s) } }
        // a change made whole: libgit2 moves the remote's references and the remote-tracking ones here under lock files,
        // which a Ctrl-C in between would leave behind
        let rc = Interruption.whole {
            strings.withUnsafeMutableBufferPointer { buffer in
                var list = git_strarray(strings: buffer.baseAddress, count: buffer.count)
                return git_remote_push(remoteHandle, &list, &options)
            }
        }
        if rc == GIT_ENONFASTFORWARD.rawValue {
            // libgit2 says only "cannot push non-fastforwardable reference": find which, as it did
            let forced = Set(refspecs.filter { $0.hasPrefix("+") }.map { spec in
                String(spec.dropFirst().split(separator: ":", omittingEmptySubsequences: false).last!)
            })
            let refused = state.updates.filter { update in
                let short = update.ref.hasPrefix("refs/heads/") ? String(update.ref.dropFirst("refs/heads/".count)) : update.ref
                guard !update.old.isZero, update.old != update.new, !forced.contains(update.ref), !forced.contains(short) else { return false }
                var a = update.new.raw, b = update.old.raw
                return git_graph_descendant_of(handle, &a, &b) != 1
            }
            let refs = refused.map { "\($0.ref) (the remote has \($0.old), which \($0.new) does not descend from)" }
            throw TagwardenError("push to '\(Self.redacted(remote))' rejected, not a fast-forward: "
                                 + (refs.isEmpty ? refspecs.joined(separator: ", ") : refs.joined(separator: ", ")))
        }
        guard rc == 0 else { throw TagwardenError("cannot push \(refspecs.joined(separator: ", ")) to '\(Self.redacted(remote))': \(Self.redacting(remote, in: state.failure(lastGitError("error \(rc)"))))") }
        if !state.rejected.isEmpty {
            throw TagwardenError("push to '\(Self.redacted(remote))' rejected: " + state.rejected.map { "\($0.ref): \($0.why)" }.joined(separator: ", "))
        }
    }

    /// Fetches `refspecs` from the remote (a name or a URL), moving the local references they name.
    public func fetch(remote: String, refspecs: [String]) throws {
        try DeferredCertificates.load()
        let remoteHandle = try openRemote(remote, for: "fetch from")
        defer { git_remote_free(remoteHandle) }
        let state = RemoteState()
        var options = git_fetch_options()
        git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION))
        options.callbacks.payload = Unmanaged.passUnretained(state).toOpaque()
        options.callbacks.credentials = remoteCredentials
        var strings = refspecs.map { strdup($0) }
        defer { for s in strings { free(s) } }
        // (whole, as a push is: it moves local references under lock files)
        let rc = Interruption.whole {
            strings.withUnsafeMutableBufferPointer { buffer in
                var list = git_strarray(strings: buffer.baseAddress, count: buffer.count)
                return git_remote_fetch(remoteHandle, &list, &options, "tagwarden: fetch")
            }
        }
        guard rc == 0 else { throw TagwardenError("cannot fetch from '\(Self.redacted(remote))': \(Self.redacting(remote, in: state.failure(lastGitError("error \(rc)"))))") }
    }

    /// Where the remote's reference `name` (`refs/heads/…`) points now, asked over the network; nil when it has none.
    public func remoteReference(remote: String, name: String) throws -> GitOID? {
        try DeferredCertificates.load()
        let remoteHandle = try openRemote(remote, for: "read from")
        defer { git_remote_free(remoteHandle) }
        let state = RemoteState()
        var callbacks = git_remote_callbacks()
        git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION))
        callbacks.payload = Unmanaged.passUnretained(state).toOpaque()
        callbacks.credentials = remoteCredentials
        let rc = git_remote_connect(remoteHandle, GIT_DIRECTION_FETCH, &callbacks, nil, nil)
        guard rc == 0 else { throw TagwardenError("cannot connect to '\(Self.redacted(remote))': \(Self.redacting(remote, in: state.failure(lastGitError("error \(rc)"))))") }
        defer { git_remote_disconnect(remoteHandle) }
        var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        guard git_remote_ls(&heads, &count, remoteHandle) == 0, let heads else {
            throw TagwardenError("cannot list the references of '\(Self.redacted(remote))': \(Self.redacting(remote, in: lastGitError("unknown error")))")
        }
        for i in 0..<count {
            guard let head = heads[i]?.pointee, let n = head.name, String(cString: n) == name else { continue }
            return GitOID(head.oid)
        }
        return nil
    }

    /// A remote for messages: a URL's user and password (`https://user:token@host/…`) replaced by `***`.
    public static func redacted(_ remote: String) -> String {
        guard let secret = userinfo(remote) else { return remote }
        return remote.replacing(secret + "@", with: "***@")
    }

    /// `message` with the user and password of `remote`'s URL, wherever libgit2 quotes them, replaced by `***`.
    static func redacting(_ remote: String, in message: String) -> String {
        guard let secret = userinfo(remote), !secret.isEmpty else { return message }
        return message.replacing(secret, with: "***")
    }

    /// The `user[:password]` of a URL's authority, if it has one.
    static func userinfo(_ remote: String) -> String? {
        guard let scheme = remote.firstRange(of: "://") else { return nil }
        let rest = remote[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return String(authority[..<at])
    }

    /// The URL of `remote` (a name or a URL): the repository it names (its fetch URL, else its push URL).
    public func remoteURL(_ remote: String) throws -> String {
        let r = try openRemote(remote, for: "read")
        defer { git_remote_free(r) }
        guard let url = git_remote_url(r) ?? git_remote_pushurl(r) else { throw TagwardenError("remote '\(Self.redacted(remote))' has no URL") }
        return String(cString: url)
    }

    /// Whether `remote` names a configured remote or is a URL a push could go to (nothing is contacted).
    public func isRemote(_ remote: String) -> Bool {
        guard let r = try? openRemote(remote, for: "find") else { return false }
        git_remote_free(r)
        return true
    }

    /// The remote of that name, or an anonymous one for a URL.
    func openRemote(_ remote: String, for what: String) throws -> OpaquePointer {
        var r: OpaquePointer?
        if git_remote_lookup(&r, handle, remote) == 0, let r { return r }
        if remote.contains("/") || remote.contains(":"), git_remote_create_anonymous(&r, handle, remote) == 0, let r { return r }
        throw TagwardenError("cannot \(what) '\(Self.redacted(remote))': no such remote")
    }
}

/// What a remote operation's callbacks saw.
final class RemoteState {
    var updates: [(ref: String, old: GitOID, new: GitOID)] = []
    var rejected: [(ref: String, why: String)] = []
    var credentialRequests = 0
    /// What was tried for credentials, for the error message (never the secrets).
    var tried: [String] = []

    func failure(_ why: String) -> String {
        tried.isEmpty ? why : "\(why) (credentials tried: \(tried.joined(separator: ", ")))"
    }
}

/// libgit2 asks for credentials; it asks again after each refusal, so each kind is offered once.
private let remoteCredentials: git_credential_acquire_cb = { out, url, user, allowed, payload in
    guard let payload, let out else { return GIT_PASSTHROUGH.rawValue }
    let state = Unmanaged<RemoteState>.fromOpaque(payload).takeUnretainedValue()
    state.credentialRequests += 1
    let attempt = state.credentialRequests
    let username = user.map { String(cString: $0) }
    let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
    if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
        let name = username ?? "git"
        if let key = environment("GIT_SSH_KEY"), attempt == 1 {
            state.tried.append("SSH key \(key)")
            return git_credential_ssh_key_new(out, name, nil, key, nil)
        }
        guard attempt <= 2, !state.tried.contains("SSH agent") else { return GIT_PASSTHROUGH.rawValue }
        state.tried.append("SSH agent")
        return git_credential_ssh_key_from_agent(out, name)
    }
    if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0 {
        if let token = environment("TAGWARDEN_GIT_TOKEN") ?? environment("GITHUB_TOKEN"), !state.tried.contains("token") {
            state.tried.append("token")
            return git_credential_userpass_plaintext_new(out, username ?? "x-access-token", token)
        }
        if !state.tried.contains("git credential helper"), let url {
            state.tried.append("git credential helper")
            let request = "url=\(String(cString: url))\n\n"
            if let answer = try? Subprocess.run("git", ["credential", "fill"], input: Array(request.utf8),
                                               environment: ["GIT_TERMINAL_PROMPT": "0"]), answer.status == 0 {
                var fields: [String: String] = [:]
                for line in answer.stdoutText.split(separator: "\n") {
                    if let eq = line.firstIndex(of: "=") { fields[String(line[..<eq])] = String(line[line.index(after: eq)...]) }
                }
                if let password = fields["password"] {
                    return git_credential_userpass_plaintext_new(out, fields["username"] ?? username ?? "", password)
                }
            }
        }
        return GIT_PASSTHROUGH.rawValue
    }
    if allowed & GIT_CREDENTIAL_USERNAME.rawValue != 0, attempt <= 2 { return git_credential_username_new(out, username ?? "git") }
    return GIT_PASSTHROUGH.rawValue
}
