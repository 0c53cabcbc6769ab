import TagwardenBasics
import TagwardenHTTP
import TagwardenGit
#if canImport(Glibc)
import Glibc
#endif

/// Where a pushed branch's pull request is opened: GitHub's REST API (a pull request) or GitLab's (a merge request) for
/// the remote's host, with the runner's token (`GITHUB_TOKEN`, `GITLAB_TOKEN`). Three calls each: find the open one for
/// the branch, create one, update one. The token goes to the API's origin alone, never over plain HTTP but to this
/// machine, and is never printed.
public struct PullRequests {
    public enum Forge: Sendable { case github, gitlab }

    public let forge: Forge
    /// The API's base URL: `https://api.github.com`, `https://HOST/api/v3`, `https://HOST/api/v4`.
    public let api: String
    /// `owner/repo` (GitHub), or the project's path (GitLab: `group/subgroup/project`).
    public let project: String
    let token: String
    let client: HTTPClient

    /// What was done: the pull request's address and number, and whether it was made now or updated.
    public struct Opened: Sendable {
        public let url: String
        public let number: Int
        public let created: Bool
    }

    /// The forge of `remote` (a git URL), its API and the token, from `environment`: GITHUB_TOKEN or GITLAB_TOKEN
    /// (when both are set, github.com and gitlab.com decide, or TAGWARDEN_FORGE); GITHUB_API_URL and CI_API_V4_URL,
    /// which the forges' CI sets, name the API where the host's default is not it. A remote that names no host (a
    /// path, a mirror) takes the repository from GITHUB_REPOSITORY or CI_PROJECT_PATH, which CI sets too.
    public init(remote: String, environment: [String: String]) throws {
        let github = environment["GITHUB_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let gitlab = environment["GITLAB_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let named = environment["TAGWARDEN_FORGE"]
        let forge: Forge
        switch (github, gitlab) {
        case (_?, nil) where named != "gitlab": forge = .github
        case (nil, _?) where named != "github": forge = .gitlab
        case (_?, _?):
            let host = Self.hostAndPath(remote)?.host
            if named == "github" || (named == nil && host == "github.com") { forge = .github }
            else if named == "gitlab" || (named == nil && host == "gitlab.com") { forge = .gitlab }
            else { throw TagwardenError("cannot open a pull request: both GITHUB_TOKEN and GITLAB_TOKEN are set; set TAGWARDEN_FORGE to github or gitlab") }
        default:
            throw TagwardenError("--pull-request needs a token: GITHUB_TOKEN for GitHub, GITLAB_TOKEN for GitLab (one that may open pull requests "
                                 + "on \(GitRepository.redacted(remote)))")
        }
        let parsed = Self.hostAndPath(remote)
        let fromCI = environment["GITLAB_TOKEN"] != nil && environment["GITHUB_TOKEN"] == nil
            ? environment["CI_PROJECT_PATH"] : environment["GITHUB_REPOSITORY"] ?? environment["CI_PROJECT_PATH"]
        guard let (host, path) = parsed ?? fromCI.map({ ("", $0) }) else {
            throw TagwardenError("cannot open a pull request: the remote \(GitRepository.redacted(remote)) names no host and repository "
                                 + "(GITHUB_REPOSITORY or CI_PROJECT_PATH names it where the remote does not)")
        }
        self.forge = forge
        token = forge == .github ? github! : gitlab!
        let given = environment[forge == .github ? "GITHUB_API_URL" : "CI_API_V4_URL"]
        switch forge {
        case _ where given != nil: api = given!
        case _ where host.isEmpty:
            throw TagwardenError("cannot open a pull request: the remote \(GitRepository.redacted(remote)) names no host; "
                                 + "set \(forge == .github ? "GITHUB_API_URL" : "CI_API_V4_URL") to the API")
        case .github: api = host == "github.com" ? "https://api.github.com" : "https://\(host)/api/v3"
        case .gitlab: api = "https://\(host)/api/v4"
        }
        let apiHost = HTTPClient.host(api)
        if apiHost.hasPrefix("http://") && !RegistryRepository.isLoopback(String(apiHost.dropFirst("http://".count))) {
            throw TagwardenError("the API \(api) is plain HTTP: the token is not sent there")
        }
        project = path
        client = try HTTPClient()
    }

    /// `https://host/owner/repo(.git)`, `git@host:owner/repo(.git)`, `ssh://git@host:22/owner/repo` → host and path.
    static func hostAndPath(_ url: String) -> (host: String, path: String)? {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") {
            rest = rest[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" }
            rest = rest.dropFirst(authority.count)
            let hostPort = authority.split(separator: "@").last ?? authority
            let host = hostPort.split(separator: ":").first.map(String.init) ?? ""
            return tidy(host, rest)
        }
        // scp-like: [user@]host:path
        guard let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/") else { return nil }
        let host = rest[..<colon].split(separator: "@").last.map(String.init) ?? ""
        return tidy(host, rest[rest.index(after: colon)...])
    }

    static func tidy(_ host: String, _ path: Substring) -> (host: String, path: String)? {
        var p = String(path.drop { $0 == "/" })
        if p.hasSuffix("/") { p.removeLast() }
        if p.hasSuffix(".git") { p.removeLast(4) }
        guard !host.isEmpty, p.contains("/") else { return nil }
        return (host.lowercased(), p)
    }

    /// Opens the pull request of `head` into `base`, or updates the one already open for it (its title and body).
    func openOrUpdate(head: String, base: String, title: String, body: String) throws -> Opened {
        switch forge {
        case .github:
            let owner = project.split(separator: "/").first.map(String.init) ?? ""
            let found = try call("GET", "/repos/\(project)/pulls?state=open&head=\(percentEncoded(owner + ":" + head))&base=\(percentEncoded(base))")
            if let first = found.arrayValue?.first, let number = first["number"]?.doubleValue.flatMap({ Int(exactly: $0) }) {
                let updated = try call("PATCH", "/repos/\(project)/pulls/\(number)", [("title", .string(title)), ("body", .string(body))])
                return Opened(url: updated["html_url"]?.stringValue ?? "", number: number, created: false)
            }
            let made = try call("POST", "/repos/\(project)/pulls",
                                [("title", .string(title)), ("head", .string(head)), ("base", .string(base)), ("body", .string(body))])
            return Opened(url: made["html_url"]?.stringValue ?? "", number: made["number"]?.doubleValue.flatMap({ Int(exactly: $0) }) ?? 0, created: true)
        case .gitlab:
            let id = percentEncoded(project)
            let found = try call("GET", "/projects/\(id)/merge_requests?state=opened&source_branch=\(percentEncoded(head))&target_branch=\(percentEncoded(base))")
            if let first = found.arrayValue?.first, let iid = first["iid"]?.doubleValue.flatMap({ Int(exactly: $0) }) {
                let updated = try call("PUT", "/projects/\(id)/merge_requests/\(iid)", [("title", .string(title)), ("description", .string(body))])
                return Opened(url: updated["web_url"]?.stringValue ?? "", number: iid, created: false)
            }
            let made = try call("POST", "/projects/\(id)/merge_requests", [("source_branch", .string(head)), ("target_branch", .string(base)),
                                                                           ("title", .string(title)), ("description", .string(body))])
            return Opened(url: made["web_url"]?.stringValue ?? "", number: made["iid"]?.doubleValue.flatMap({ Int(exactly: $0) }) ?? 0, created: true)
        }
    }

    /// Opens (or updates) the pull request of the pushed `branch` into `base`, with the commit `message` as its title
    /// (the first line) and body (the rest); a refusal says the branch stands pushed without it.
    public func open(branch: String, base: String, message: String) throws -> Opened {
        let (title, body) = Self.titleAndBody(message)
        do {
            return try openOrUpdate(head: branch, base: base, title: title, body: body)
        } catch let e as TagwardenError {
            throw TagwardenError("\(e.message); \(branch) is pushed, without its pull request")
        }
    }

    /// A commit message as a pull request's title (its first line) and body (the rest).
    static func titleAndBody(_ message: String) -> (title: String, body: String) {
        let lines = message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let title = RegistryAnswers.trimmed(lines.first ?? "")
        return (title.isEmpty ? "Image updates" : title, lines.count > 1 ? RegistryAnswers.trimmed(lines[1]) : "")
    }

    var forgeName: String { forge == .github ? "GitHub" : "GitLab" }

    /// One API call; a refusal is an error with the API's own message, and a rate limit that lifts within a minute is
    /// waited for once.
    func call(_ method: String, _ path: String, _ fields: [(String, JSON)]? = nil) throws -> JSON {
        var headers: [(name: String, value: String)] = [("User-Agent", "tagwarden/\(Version.current)"), ("Accept", "application/json")]
        switch forge {
        case .github:
            headers += [("Authorization", "Bearer \(token)"), ("Accept", "application/vnd.github+json"), ("X-GitHub-Api-Version", "2022-11-28")]
        case .gitlab:
            headers.append(("PRIVATE-TOKEN", token))
        }
        let body = fields.map { Array(JSON.object($0).serialized().utf8) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = HTTPRequest(method: method, url: api + path, headers: headers, body: body, timeout: 30, maxBody: 8 << 20)
        for attempt in 1...2 {
            let response = try client.send(request)
            if (200..<300).contains(response.status) {
                guard let json = try? JSON.parse(String(decoding: response.body, as: UTF8.self)) else {
                    throw TagwardenError("\(forgeName) answered \(method) \(path) with no JSON")
                }
                return json
            }
            if attempt == 1, let wait = rateLimitWait(response), wait <= 60 {
                RegistryClient.sleep(wait)
                continue
            }
            throw failure(response, method, path)
        }
        throw TagwardenError("\(forgeName): \(method) \(path) failed")
    }

    /// Seconds until a rate limit lifts: `Retry-After`, or GitHub's `x-ratelimit-reset` when nothing remains.
    func rateLimitWait(_ response: HTTPResponse) -> Double? {
        guard response.status == 429 || response.status == 403 else { return nil }
        if let after = response.header("Retry-After").flatMap(RegistryAnswers.retryAfter) { return after }
        if response.header("x-ratelimit-remaining") == "0", let reset = response.header("x-ratelimit-reset").flatMap(Double.init) {
            return max(0, reset - Double(time(nil)))
        }
        return nil
    }

    func failure(_ response: HTTPResponse, _ method: String, _ path: String) -> TagwardenError {
        let json = try? JSON.parse(String(decoding: response.body, as: UTF8.self))
        var why = json?["message"]?.stringValue ?? json?["error"]?.stringValue ?? ""
        if let errors = json?["errors"]?.arrayValue {
            why += errors.compactMap { $0["message"]?.stringValue ?? $0.stringValue }.map { ": " + $0 }.joined()
        }
        if why.count > 300 { why = String(why.prefix(300)) + "…" }
        let limited = rateLimitWait(response).map { " (rate limited for \(Int($0.rounded())) s more)" } ?? ""
        let refused = response.status == 401 || (response.status == 403 && limited.isEmpty)
            ? " (the token was refused, or may not open pull requests on \(project))" : ""
        return TagwardenError("\(forgeName): \(method) \(path.prefix { $0 != "?" }): HTTP \(response.status)\(why.isEmpty ? "" : " " + why)\(limited)\(refused)")
    }
}
