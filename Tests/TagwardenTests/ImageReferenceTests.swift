import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct ImageReferenceTests {
    let hex64 = String(repeating: "a", count: 64)

    @Test func parsesTheDistributionGrammar() throws {
        let r = try ImageReference.parse("localhost:5000/a/b:1.0@sha256:\(hex64)").get()
        #expect(r.domain == "localhost:5000" && r.path == "a/b" && r.tag == "1.0" && r.digest == "sha256:\(hex64)")
        let p = try ImageReference.parse("registry:5000/app").get()
        #expect(p.domain == "registry:5000" && p.tag == nil)
        let n = try ImageReference.parse("nginx").get()
        #expect(n.domain == nil && n.path == "nginx")
        #expect(try ImageReference.parse(String(repeating: "a", count: 237)).get().normalizedName.count == 255)
        #expect(try ImageReference.parse("acme/" + String(repeating: "0123456789abcdef", count: 4)).get().domain == nil)
        let ip6 = try ImageReference.parse("[::1]:5000/x:y").get()
        #expect(ip6.domain == "[::1]:5000" && ip6.tag == "y")
    }

    @Test(arguments: [
        ("ghcr.io/Acme/web:1", "lower case"),
        ("nginx@sha256:abc", "64 hex digits"),
        ("nginx@md5:\(String(repeating: "a", count: 32))", "not one of sha256"),
        ("nginx:", "empty"),
        ("nginx:\(String(repeating: "a", count: 129))", "128"),
        ("nginx:-x", "starts with"),
        ("a//b", "empty component"),
        ("a__-b", "separator"),
        ("nginx@sha384:\(String(repeating: "a", count: 64))", "96 hex"),
        ("nginx@sha256:\(String(repeating: "A", count: 64))", "lower-case"),
        ("ngïnx:1", "repository path 'ngïnx' contains 'ï'"),
        ("a/b€c", "repository path 'b€c' contains '€'"),
        (String(repeating: "0123456789abcdef", count: 4), "image ID"),
        // 250 characters as written, 268 as docker.io/library/…: over distribution's 255
        (String(repeating: "a", count: 250) + ":1", "longer than 255 characters (268"),
    ])
    func rejects(_ text: String, _ reason: String) {
        guard case .failure(.invalid(let m)) = ImageReference.parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(m.contains(reason), "\(m)")
    }

    @Test func dockerHubNormalisation() {
        #expect(ImageReference.normalizeName("nginx") == "docker.io/library/nginx")
        #expect(ImageReference.normalizeName("docker.io/library/nginx") == "docker.io/library/nginx")
        #expect(ImageReference.normalizeName("index.docker.io/library/nginx") == "docker.io/library/nginx")
        #expect(ImageReference.normalizeName("index.docker.io/nginx") == "docker.io/library/nginx")
        // the Hub's registry named directly implies no library/: its nginx is another name than docker.io's
        #expect(ImageReference.normalizeName("registry-1.docker.io/library/nginx") == "docker.io/library/nginx")
        #expect(ImageReference.normalizeName("registry-1.docker.io/nginx") == "docker.io/nginx")
        #expect(ImageReference.normalizeName("bitnami/redis") == "docker.io/bitnami/redis")
        #expect(ImageReference.normalizeName("ghcr.io/acme/web") == "ghcr.io/acme/web")
    }

    @Test func tagOf128IsFine() throws {
        let t = String(repeating: "a", count: 128)
        #expect(try ImageReference.parse("x:\(t)").get().tag == t)
    }
}

/// The name kustomize's `images:` entries compare with a reference that does not parse, as `kubectl kustomize` v5.5
/// matched them (an entry for each name, over a Deployment with these images).
@Suite struct KustomizeNameTests {
    @Test(arguments: [
        ("CLICK_NGINX_IMAGE:latest", "CLICK_NGINX_IMAGE"),   // replaced: ghcr.io/x/click:prod
        ("Reg.io:5000/Foo:latest", "Reg.io:5000/Foo"),       // replaced: reg.io/foo:latest (the port's ':' comes before the '/')
        ("WEB@sha256:abc", "WEB"),
        ("WEB", "WEB"),
        ("WEB:{{.Tag}}", "WEB"),                             // renamed: a.io/web:{{.Tag}} ('{' and '}' are tag characters)
        ("nginx:BAD TAG", nil),                              // kept as written: no entry matches it
        ("WEB2:a:b", nil),
    ] as [(String, String?)])
    func kustomizeMatchesTheNameBeforeTheTag(_ text: String, _ name: String?) {
        #expect(KustomizeImageEntry.kustomizeName(of: text) == name)
    }

    /// An image given in parts (an `images:` entry, a chart's `repository` and `tag`) reads as its whole reference does:
    /// the same tag and digest, and the same reason when it does not parse, whether `compose` reads the text again or
    /// knows from its parts that it parses.
    @Test(arguments: [
        ("ghcr.io/acme/web", "1.2.3", nil), ("ghcr.io/acme/web", nil, "sha256:\(String(repeating: "a", count: 64))"),
        ("ghcr.io/acme/web", "v1", "sha256:\(String(repeating: "a", count: 64))"), ("localhost:5000/web", "1", nil),
        ("ghcr.io/acme/web", "-1", nil), ("ghcr.io/acme/web", "1/2", nil), ("ghcr.io/acme/web", "1:2", nil),
        ("ghcr.io/acme/web", String(repeating: "1", count: 129), nil), ("ghcr.io/acme/web", "1", "sha256:abc"),
        ("ghcr.io/acme/web", "1", "md5:\(String(repeating: "a", count: 32))"), ("ghcr.io/acme/web", "", nil),
        ("ghcr.io/acme/web", "v1.0@sha256:\(String(repeating: "b", count: 64))", nil), ("nginx", "1.27", nil),
    ] as [(String, String?, String?)])
    func partsReadAsTheirWholeReference(_ name: String, _ tag: String?, _ digest: String?) {
        let span = SourceSpan(start: SourcePosition(offset: 0, line: 1, column: 1), end: SourcePosition(offset: 0, line: 1, column: 1))
        var use = ImageUse(origin: .kustomize, file: 0, object: nil, text: name, name: name, span: span)
        use.tag = tag.map { Located(value: $0, span: span, type: .string) }
        use.digest = digest
        use.compose()
        let text = name + (tag.map { ":" + $0 } ?? "") + (digest.map { "@" + $0 } ?? "")
        #expect(use.text == text)
        switch ImageReference.parse(text) {
        case .success(let whole):
            #expect(use.invalid == nil, "\(text): \(use.invalid ?? "")")
            #expect(use.tag?.value == whole.tag && use.digest == whole.digest && use.normalizedName == whole.normalizedName, "\(text)")
        case .failure(.invalid(let m)):
            #expect(use.invalid == m, "\(text)")
        case .failure(.empty):
            Issue.record("\(text) is empty")
        }
    }

    @Test func aNameThatDoesNotParseIsReplacedByANewNameATagThatDoesNotByANewTag() throws {
        #expect(try #require(KustomizeImageEntry.Needs(invalid: "WEB_IMAGE:latest")).renameSuffices)
        #expect(try #require(KustomizeImageEntry.Needs(invalid: "nginx:-latest")).renameSuffices == false)
        #expect(try #require(KustomizeImageEntry.Needs(invalid: "WEB_IMAGE:-latest")).renameSuffices == false)
        #expect(try #require(KustomizeImageEntry.Needs(invalid: "WEB:{{.Tag}}")).renameSuffices == false)
    }
}

/// The images an ImageRepository's text with unknown variables may be.
@Suite struct VariablePatternTests {
    @Test func theWrittenTextsStandInOrderAroundTheVariables() throws {
        let p = try #require(VariablePattern("${registry}/apps/${team}/web"))
        #expect(p.matches("ghcr.io/acme/apps/payments/web"))
        #expect(p.matches("r/apps//web"))
        #expect(!p.matches("ghcr.io/acme/payments/web"))      // no '/apps/'
        #expect(!p.matches("ghcr.io/apps/web"))               // '/apps/' and '/web' would overlap
        #expect(!p.matches("ghcr.io/acme/apps/payments/web2"))
        // a last segment that a variable writes could be any image
        #expect(VariablePattern("ghcr.io/acme/${app}") == nil)
        #expect(VariablePattern("${image}") == nil)
        #expect(VariablePattern("${registry}/web") != nil)
    }
}
