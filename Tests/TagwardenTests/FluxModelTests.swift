import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct MarkerParseTests {
    @Test(arguments: [
        (#"# {"$imagepolicy": "flux-system:web"}"#, "flux-system", "web", nil),
        (#"## { "$imagepolicy" : "ns:p:tag" }"#, "ns", "p", "tag"),
        (#"# {"$imagepolicy": "ns:p:digest", "note": "x"}"#, "ns", "p", "digest"),
        // around the plain form's fast path: no blanks, trailing blanks, an escape in the value
        (#"#{"$imagepolicy":"ns:p"}  "#, "ns", "p", nil),
        (#"# {"$imagepolicy": "ns:\u0070:tag"}"#, "ns", "p", "tag"),
    ] as [(String, String, String, String?)])
    func valid(_ text: String, _ ns: String, _ name: String, _ suffix: String?) throws {
        let r = try #require(Marker.parse(text).policy)
        #expect(r.namespace == ns && r.name == name && r.part == MarkerPart(rawValue: suffix ?? ""))
    }

    @Test(arguments: [
        (#"# {"$imagepolicy": "ns:p"} # later"#, "text after the JSON object"),
        (#"# {'$imagepolicy': 'ns:p'}"#, "single quotes"),
        (#"# {"$imagepolicy": "p"}"#, "has no namespace"),
        (#"# {"$imagepolicy": "ns:p:TAG"}"#, "unknown suffix ':TAG'"),
        (#"# {"$ImagePolicy": "ns:p"}"#, "no \"$imagepolicy\" key"),
        (#"# {"$imagepolicy": "ns:p", "n": 1}"#, "is not a string"),
        (#"# {"$imagepolicy": "ns: p"}"#, "blanks"),
        (#"# {"$imagepolicy": "ns:p"}x"#, "text after the JSON object ('x')"),
        (#"# {"$imagepolicy": "ns:p",}"#, "not a JSON object"),
        (#"# {"$imagepolicy": ""}"#, "is empty"),
    ])
    func malformed(_ text: String, _ reason: String) {
        let r = Marker.parse(text)
        #expect(r.policy == nil)
        #expect(r.problem?.contains(reason) == true, "\(r.problem ?? "")")
    }
}

@Suite struct GoTemplateTests {
    @Test(arguments: [
        "Update from image update automation",
        "{{ .AutomationObject }}",
        "{{range $f, $c := .Changed.FileChanges}}{{$f}}{{range $o, $cs := $c}}{{$o.Kind}}{{end}}{{end}}",
        "{{- range .Changed.Changes -}}\n{{ .OldValue }} -> {{ .NewValue }}\n{{ end -}}",
        "{{ if eq (len .Changed.Changes) 1 }}one{{ else if gt (len .Changed.Changes) 1 }}many{{ else }}none{{ end }}",
        "{{ with index .Values \"cluster\" }}{{ . | upper | quote }}{{ end }}",
        "{{/* a comment */}}{{ printf \"%d changes\" (len .Changed.Changes) }}",
        "{{ $n := 0 }}{{ range .Changed.Changes }}{{ $n = add1 $n }}{{ end }}{{ $n }}",
        "{{ define \"x\" }}y{{ end }}{{ template \"x\" . }}",
        "{{ range .Changed.Changes }}{{ if .NewValue }}{{ break }}{{ end }}{{ end }}",
        "{{ 3.5 }} {{ -1 }} {{ 0x1F }} {{ 'a' }} {{ `raw` }} {{ true }} {{ nil | default \"x\" }}",
        "{{ join \",\" ($v := list 1 2) }}{{ $v }}",                      // a declaration inside parentheses
        "{{ with .Values }}a{{ else with .Changed }}b{{ end }}",           // else with (Go 1.23)
        "{{ hello }} {{ randSeededNumeric 4 }} {{ list 1 2 | mustSlice 0 1 }}",
        "{{ define \"t\" }}{{ end }}{{ define \"t\" }}x{{ end }}",         // an empty definition gives way
        "{{ define \"t\" }}x{{ end }}{{ define \"t\" }} {{/* c */}} {{ end }}",
        "{{ define \"commit message\" }}y{{ end }}",                    // Flux's own name, with an empty main template
    ])
    func parses(_ t: String) throws {
        if case .failure(let e) = GoTemplate.parse(t) { Issue.record("\(t): \(e)") }
    }

    @Test(arguments: [
        ("{{ range .Changed.Changes }}", "has no {{end}}"),
        ("{{ end }}", "unexpected {{end}}"),
        ("{{ .Changed", "unclosed action"),
        ("{{ nosuchfunc . }}", "function \"nosuchfunc\" not defined"),
        ("{{ $x }}", "undefined variable \"$x\""),
        ("{{ else }}", "unexpected {{else}}"),
        ("{{ if . }}{{ else }}{{ else }}{{ end }}", "expected end"),
        ("{{ \"unterminated }}", "unterminated quoted string"),
        ("{{ break }}", "outside {{range}}"),
        ("{{ ( .A }}", "unclosed left paren"),
        ("{{ env \"HOME\" }}", "function \"env\" not defined"),
        ("{{ now | date \"2006\" }}", "function \"now\" not defined"),
        ("{{ randAlpha 4 }}", "function \"randAlpha\" not defined"),
        ("{{ .Values | \"x\" }}", "non executable command in pipeline stage 2"),
        ("{{ len . | upper | . }}", "non executable command in pipeline stage 3"),
        ("{{ range .Changed.Changes }}{{ else if . }}{{ end }}", "unexpected <if> in input"),
        ("{{ with . }}{{ else if . }}{{ end }}", "unexpected <if> in input"),
        ("{{ if . }}{{ else with . }}{{ end }}", "unexpected <with> in else"),
        ("{{ if . }}{{ define \"t\" }}{{ end }}{{ end }}", "unexpected <define> in command"),
        ("{{ define \"t\" }}x{{ end }}{{ block \"t\" . }}y{{ end }}", "multiple definition of template \"t\""),
        ("{{ define \"t\\x41\" }}a{{ end }}{{ define `tA` }}b{{ end }}", "multiple definition of template \"tA\""),
        ("x{{ define \"commit message\" }}y{{ end }}", "multiple definition of template \"commit message\""),
    ])
    func rejects(_ t: String, _ message: String) {
        guard case .failure(let e) = GoTemplate.parse(t) else { Issue.record("accepted \(t)"); return }
        #expect(e.message.contains(message), "\(e.message)")
    }

    @Test func rootFieldsAreCollected() throws {
        let fields = try GoTemplate.parse("{{ range .Updated.Images }}{{ .Name }}{{ end }}{{ $.Changed.ImageResult.Files }}").get()
        #expect(fields.map(\.path) == [["Updated", "Images"], ["Changed", "ImageResult", "Files"]])
    }
}

@Suite struct PromotionIdentityTests {
    @Test(arguments: [
        ("staging-v1.2.3-abc1234-1700000000", "staging-", "v1.2.3-abc1234-1700000000"),
        ("v10.20.30-0123456789abcdef0123456789abcdef01234567-1", nil, "v10.20.30-0123456789abcdef0123456789abcdef01234567-1"),
        ("prod-v1.2.3-abcdef0-1", nil, "v1.2.3-abcdef0-1"),
        ("staging-v1.2.3-abc123-17", "staging-", nil),          // six hex digits
        ("v1.2.3-0123456789abcdef0123456789abcdef012345678-1", nil, nil),  // 41
        ("staging-v1.2.3-ABC1234-17", "staging-", nil),         // upper-case hex
        ("staging-v1.2.3-abc1234", "staging-", nil),            // no build number
        ("staging-v1.2-abc1234-17", "staging-", nil),
        ("staging-v1.2.3-abc1234-17x", "staging-", nil),
        ("staging-1.2.3-abc1234-17", "staging-", nil),
    ] as [(String, String?, String?)])
    func identity(_ tag: String, _ prefix: String?, _ expected: String?) {
        #expect(PromotionEvidence.identity(tag: tag, prefix: prefix) == expected)
    }
}

/// The values `object-invalid` judges as the CRDs and the image-reflector-controller do.
@Suite struct ObjectInvalidTests {
    @Test(arguments: [("5m", true, true), ("1h30m", true, true), ("1.5h", true, true), ("250ms", true, true), ("90s", false, true),
                      ("1h", false, false), ("10", true, false), ("", true, false), ("5 m", true, false), ("1.s", true, false),
                      ("m", true, false), ("5d", true, false), ("1m1", true, false)] as [(String, Bool, Bool)])
    func durations(_ text: String, _ hours: Bool, _ valid: Bool) {
        #expect(Rule.isDuration(text, hours: hours) == valid, "\(text)")
    }

    /// Go's `time.ParseDuration` arithmetic: 2562047h47m16.854775807s is the largest duration.
    @Test func durationRange() {
        #expect(Rule.durationNanoseconds("1h30m") == 5_400_000_000_000)
        #expect(Rule.durationNanoseconds("1.5h") == 5_400_000_000_000)
        #expect(Rule.durationNanoseconds("250ms") == 250_000_000)
        #expect(Rule.durationNanoseconds("0.000000001s") == 1)
        #expect(Rule.durationNanoseconds("2562047h47m16.854775807s") == UInt64(Int64.max))
        #expect(Rule.durationNanoseconds("2562047h47m16.854775808s") == nil)
        #expect(Rule.durationNanoseconds("2562048h") == nil)
        #expect(Rule.durationNanoseconds("99999999999999999999h") == nil)
        #expect(Rule.durationNanoseconds("9223372036854775807s") == nil)
        #expect(Rule.durationNanoseconds("1.99999999999999999999999999s") == 2_000_000_000)  // Go rounds the same way
        #expect(Rule.durationProblem("3000000h", hours: true) == "is longer than a Go duration can be (about 292 years)")
        #expect(Rule.durationProblem("5m", hours: true) == nil)
        #expect(Rule.durationProblem("1h", hours: false) == "is not a duration in ms, s or m (hours are not accepted here)")
    }

    @Test func imagesFluxRefuses() {
        #expect(Rule.imageProblem("ghcr.io/acme/web") == nil)
        #expect(Rule.imageProblem("localhost:5000/app") == nil)
        #expect(Rule.imageProblem("registry.local:5000/acme/web") == nil)
        #expect(Rule.imageProblem("nginx") == nil)
        #expect(Rule.imageProblem("ghcr.io/acme/web:1.0") == "must not include a tag (remove ':1.0')")
        #expect(Rule.imageProblem("nginx:1.25") == "must not include a tag (remove ':1.25')")
        #expect(Rule.imageProblem("ghcr.io/a/b@sha256:abc") == "must not include a digest (remove '@sha256:abc')")
        #expect(Rule.imageProblem("https://ghcr.io/acme/web") == "must not include a URL scheme (remove 'https://')")
    }
}

/// fluxcd/pkg/envsubst's expansions, as Flux's own tests and parser define them.
@Suite struct EnvsubstTests {
    static let vars: [String: String] = ["TAG": "1.2.3", "EMPTY": "", "REG": "ghcr.io"]

    func expand(_ s: String, unknown: Set<String> = []) -> String? {
        Envsubst.expand(s) { name in
            if unknown.contains(name) { return .unknown }
            return EnvsubstTests.vars[name].map { .defined($0) } ?? .undefined
        }?.text
    }

    @Test func variablesReadByAValue() {
        #expect(Envsubst.variables("ghcr.io/acme/web:1.2.3") == [])
        #expect(Envsubst.variables("web:$${TAG}") == [])
        #expect(Envsubst.variables("${REG}/web:${TAG:=${DEFAULT_TAG}}-${REG}") == ["REG", "TAG", "DEFAULT_TAG"])
        #expect(Envsubst.variables("web:${TAG") == nil)
    }

    @Test func variablesAndDefaults() {
        let cases: [(String, String?)] = [
            ("nginx:${TAG}", "nginx:1.2.3"),
            ("${REG}/acme/web:${TAG}", "ghcr.io/acme/web:1.2.3"),
            ("nginx:${MISSING}", "nginx:"),                 // undefined: an empty string
            ("nginx:${MISSING:=1.0}", "nginx:1.0"),
            ("nginx:${MISSING:-1.0}", "nginx:1.0"),
            ("nginx:${MISSING=1.0}", "nginx:1.0"),
            ("nginx:${EMPTY:=1.0}", "nginx:1.0"),           // empty counts as unset for every default form
            ("nginx:${EMPTY=1.0}", "nginx:1.0"),
            ("nginx:${TAG:=9.9}", "nginx:1.2.3"),
            ("nginx:${MISSING:=${TAG}-x}", "nginx:1.2.3-x"), // a default holding a variable
            ("${MISSING:=a\\/b$$c}", "a\\/b$$c"),           // a default has no escapes (Flux's scanner, its source read)
            ("${MISSING:=$${TAG}}", "$1.2.3"),               // so $${ is a dollar, then a variable
            ("nginx:$${TAG}", "nginx:${TAG}"),              // $$ is a dollar: no variable
            ("a$$b", "a$b"),
            ("nginx:$TAG", "nginx:$TAG"),                   // only ${…} is substituted
            ("nginx:${TÄG_٣:=1.0}", "nginx:1.0"),           // a name of Unicode letters and digits, as Go's IsLetter/IsDigit
            ("nginx:${TAGⅫ}", nil),                        // a letter number is neither: no closing brace after the name
            ("nginx:${TAG-1.0}", nil),                      // Flux's parser refuses ${var-default}
            ("nginx:${TAG:1}", nil),                        // not evaluated here
            ("nginx:${TAG^^}", nil),
            ("nginx:${#TAG}", nil),
            ("nginx:${TAG", nil),                           // no closing brace
            ("nginx:${}", nil),
            ("nginx:${MISSING:=1.0", nil),
        ]
        for (input, expected) in cases {
            #expect(expand(input) == expected, "\(input)")
        }
    }

    @Test func unknownValuesAreNotGuessed() {
        #expect(expand("nginx:${SECRET}", unknown: ["SECRET"]) == nil)
        #expect(expand("nginx:${SECRET:=1.0}", unknown: ["SECRET"]) == nil)
        #expect(expand("nginx:${TAG}", unknown: ["SECRET"]) == "nginx:1.2.3")
        let r = Envsubst.expand("${A}:${B}:${A}") { _ in .undefined }
        #expect(r?.text == "::" && r?.undefined == ["A", "B"])
        // defaults nested thousands deep are given up, not followed down the stack
        let deep = String(repeating: "${A:=", count: 100_000) + "x" + String(repeating: "}", count: 100_000)
        #expect(Envsubst.expand(deep) { _ in .undefined } == nil)
        #expect(Envsubst.expand("${A:=${B:=${C:=x}}}") { _ in .undefined }?.text == "x")
    }
}

@Suite struct GitURLTests {
    @Test func oneRepositoryWrittenManyWays() {
        for url in ["https://github.com/acme/fleet", "https://github.com/acme/fleet.git", "https://github.com/acme/fleet/",
                    "ssh://git@github.com/acme/fleet", "ssh://git@github.com:22/acme/fleet.git", "git@github.com:acme/fleet.git",
                    "https://token@GitHub.com/Acme/Fleet"] {
            #expect(Model.gitURLKey(url) == "github.com/acme/fleet", "\(url)")
        }
        #expect(Model.gitURLKey("https://gitlab.example.com/group/sub/app.git") == "gitlab.example.com/group/sub/app")
        #expect(Model.gitURLKey("/opt/mirror/acme/fleet.git") == nil)   // no host: a local path compares as nothing
        #expect(Model.gitURLKey("file:///opt/mirror/acme/fleet.git") == nil)
        #expect(Model.gitURLKey("not a url") == nil)
    }
}
