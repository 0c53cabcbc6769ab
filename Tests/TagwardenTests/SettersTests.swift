import Testing
import TagwardenBasics
import TagwardenModel
import TagwardenYAML
@testable import TagwardenUpdate

/// The setters as byte-span edits: the values Flux writes, and every other byte kept.
@Suite struct SettersTests {
    static let digest = "sha256:" + String(repeating: "ab", count: 32)
    let table = SetterTable(values: [
        "flux-system:web": "ghcr.io/acme/web:1.2.0", "flux-system:web:tag": "1.2.0", "flux-system:web:name": "ghcr.io/acme/web",
        "flux-system:web:digest": "",
        "flux-system:pinned": "ghcr.io/acme/api:2.0.0@\(digest)", "flux-system:pinned:tag": "2.0.0",
        "flux-system:pinned:name": "ghcr.io/acme/api", "flux-system:pinned:digest": digest,
        "flux-system:numeric:tag": "1.10", "flux-system:word:tag": "v1.1", "flux-system:yes:tag": "yes",
    ], whyAbsent: ["other:web": "ImagePolicy other/web is not in the automation's namespace flux-system; Flux only uses policies of its own namespace"])

    static let web = #"# {"$imagepolicy": "flux-system:web"}"#
    static let webTag = #"# {"$imagepolicy": "flux-system:web:tag"}"#

    func run(_ files: [(String, String)], root: String = "") -> SetterRun {
        Setters.run(files.map { SourceFile(path: $0.0, bytes: Array($0.1.utf8)) }, under: root, table: table)
    }

    /// The file after the update (the input when nothing changes), and that a second run changes nothing more.
    func after(_ text: String, path: String = "apps/web.yaml", sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let first = run([(path, text)])
        guard let rewrite = first.rewrites.first else { return text }
        let out = String(decoding: rewrite.after, as: UTF8.self)
        let second = run([(path, out)])
        #expect(second.rewrites.isEmpty, "a second run changes \(second.changes)", sourceLocation: sourceLocation)
        return out
    }

    @Test func blankLinesSeparatorsAndEndMarkersStay() {
        let text = "--- # the web app\n\n# head\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n\n"
            + "spec:\n  template:\n    spec:\n      containers:\n\n      - name: web\n        image: ghcr.io/acme/web:1.0.0   \(Self.web)\n...\n"
            + "--- \n# only a comment\n...\n"
        #expect(after(text) == text.replacingOccurrences(of: "web:1.0.0   #", with: "web:1.2.0   #"))
    }

    @Test func blockScalarsWithTrailingSpacesAndFoldedLinesStay() {
        let text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  script: |\n    echo one   \n    echo two\t\n  note: >\n    folded\n    lines\n\n"
            + "  image: ghcr.io/acme/web:1.0.0 \(Self.web)\n"
        #expect(after(text) == text.replacingOccurrences(of: "web:1.0.0 #", with: "web:1.2.0 #"))
    }

    @Test func crlfBomTabsAndNonASCIIStay() {
        let text = "\u{FEFF}apiVersion: v1\r\nkind: Pod\r\nmetadata: {name: café}\r\n# commentaire\t« ici »\r\nspec:\r\n  containers:\r\n"
            + "  - name: wéb\r\n    image: ghcr.io/acme/web:1.0.0\t\(Self.web)\r\n"
        #expect(after(text) == text.replacingOccurrences(of: "web:1.0.0\t#", with: "web:1.2.0\t#"))
    }

    @Test func quotingStyleIsKeptAndReEscaped() {
        let text = "a:\n  one: \"ghcr.io/acme/web:1.0.0\" \(Self.web)\n  two: 'ghcr.io/acme/web:1.0.0' \(Self.web)\n"
            + "  three: ghcr.io/acme/web:1.0.0 \(Self.web)\n"
        #expect(after(text) == "a:\n  one: \"ghcr.io/acme/web:1.2.0\" \(Self.web)\n  two: 'ghcr.io/acme/web:1.2.0' \(Self.web)\n"
                + "  three: ghcr.io/acme/web:1.2.0 \(Self.web)\n")
    }

    @Test func aTagYAMLReadsAsANumberIsDoubleQuotedAndANumberBecomingAStringLosesNothing() {
        let numeric = #"# {"$imagepolicy": "flux-system:numeric:tag"}"#
        let word = #"# {"$imagepolicy": "flux-system:word:tag"}"#
        let yes = #"# {"$imagepolicy": "flux-system:yes:tag"}"#
        let text = "images:\n- name: web\n  newTag: v1.9 \(numeric)\n- name: api\n  newTag: 1.0 \(word)\n- name: db\n  newTag: no \(yes)\n"
            + "- name: kept\n  newTag: '1.9' \(numeric)\n"
        // `1.10` and `yes` plain would be a float and a boolean; the old `1.0` was a float, `v1.1` is written plain
        // (Flux, keeping the node's !!float tag, writes `!!float v1.1`)
        #expect(after(text) == "images:\n- name: web\n  newTag: \"1.10\" \(numeric)\n- name: api\n  newTag: v1.1 \(word)\n"
                + "- name: db\n  newTag: \"yes\" \(yes)\n- name: kept\n  newTag: '1.10' \(numeric)\n")
    }

    @Test func anUnchangedNumberIsQuotedOnlyWhenItsFileChangesAnyway() {
        let numeric = #"# {"$imagepolicy": "flux-system:numeric:tag"}"#
        let alone = "images:\n- name: web\n  newTag: 1.10 \(numeric)\n"
        #expect(run([("k/kustomization.yaml", alone)]).rewrites.isEmpty)
        #expect(run([("k/kustomization.yaml", alone)]).markers.map(\.status) == [.current])
        let withChange = alone + "- name: api\n  newTag: 1.0.0 \(Self.webTag)\n"
        #expect(after(withChange) == "images:\n- name: web\n  newTag: \"1.10\" \(numeric)\n- name: api\n  newTag: 1.2.0 \(Self.webTag)\n")
    }

    @Test func anAnchoredValueIsChangedOnceAndItsAliasesFollow() {
        let text = "x:\n  image: &img ghcr.io/acme/web:1.0.0 \(Self.web)\n  again: *img\n  list: [*img]\n"
        let out = after(text)
        #expect(out == text.replacingOccurrences(of: "web:1.0.0", with: "web:1.2.0"))
        #expect(run([("a.yaml", text)]).changes.count == 1)
    }

    @Test func multiDocumentFilesChangeEachMarkedDocumentAndNameItsObject() throws {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: apps}\nspec:\n  containers:\n  - image: ghcr.io/acme/web:1.0.0 \(Self.web)\n"
            + "---\n# a comment-only document\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  containers:\n"
            + "  - image: ghcr.io/acme/api:1.0.0 # {\"$imagepolicy\": \"flux-system:pinned\"}\n"
        let r = run([("apps/pods.yaml", text)])
        let rewrite = try #require(r.rewrites.first)
        #expect(String(decoding: rewrite.after, as: UTF8.self)
                == text.replacingOccurrences(of: "web:1.0.0", with: "web:1.2.0").replacingOccurrences(of: "api:1.0.0", with: "api:2.0.0@\(Self.digest)"))
        #expect(rewrite.changes == [
            SetterChange(file: "apps/pods.yaml", line: 6, column: 12, object: ObjectIdentity(apiVersion: "v1", kind: "Pod", namespace: "apps", name: "a"),
                         setter: "flux-system:web", oldValue: "ghcr.io/acme/web:1.0.0", newValue: "ghcr.io/acme/web:1.2.0"),
            SetterChange(file: "apps/pods.yaml", line: 15, column: 12, object: ObjectIdentity(apiVersion: "v1", kind: "Pod", namespace: "", name: "b"),
                         setter: "flux-system:pinned", oldValue: "ghcr.io/acme/api:1.0.0", newValue: "ghcr.io/acme/api:2.0.0@\(Self.digest)"),
        ])
    }

    @Test func aSequenceItemsHeadCommentIsAMarkerAndAKeysHeadCommentIsNot() {
        let text = "args:\n  # {\"$imagepolicy\": \"flux-system:web\"}\n  - ghcr.io/acme/web:1.0.0\n"
            + "# {\"$imagepolicy\": \"flux-system:web\"}\nimage: ghcr.io/acme/web:1.0.0\n"
        #expect(after(text) == "args:\n  # {\"$imagepolicy\": \"flux-system:web\"}\n  - ghcr.io/acme/web:1.2.0\n"
                + "# {\"$imagepolicy\": \"flux-system:web\"}\nimage: ghcr.io/acme/web:1.0.0\n")
    }

    @Test func theFourFormsAndADigestFieldOfAPolicyWithoutDigestsBecomesEmpty() {
        let text = "images:\n- name: web # {\"$imagepolicy\": \"flux-system:web:name\"}\n  newName: old # {\"$imagepolicy\": \"flux-system:web:name\"}\n"
            + "  newTag: 1.0.0 # {\"$imagepolicy\": \"flux-system:web:tag\"}\n  digest: sha256:1234 # {\"$imagepolicy\": \"flux-system:web:digest\"}\n"
        #expect(after(text, path: "Kustomization") == "images:\n- name: ghcr.io/acme/web # {\"$imagepolicy\": \"flux-system:web:name\"}\n"
                + "  newName: ghcr.io/acme/web # {\"$imagepolicy\": \"flux-system:web:name\"}\n"
                + "  newTag: 1.2.0 # {\"$imagepolicy\": \"flux-system:web:tag\"}\n  digest: \"\" # {\"$imagepolicy\": \"flux-system:web:digest\"}\n")
    }

    @Test func filesAreChosenAsFluxChoosesThem() {
        let body = "image: ghcr.io/acme/web:1.0.0 \(Self.web)\n"
        let r = run([("apps/a.yaml", body), ("apps/b.yml", body), ("apps/Kustomization", body), ("apps/kustomization", body),
                     ("apps/c.YAML", body), ("apps/d.json", body), ("infra/e.yaml", body), ("apps2/f.yaml", body),
                     // the token without its quotes is not enough for Flux to read the file
                     ("apps/g.yaml", "image: ghcr.io/acme/web:1.0.0 # {$imagepolicy: flux-system:web}\n")], root: "apps")
        #expect(r.rewrites.map(\.path) == ["apps/Kustomization", "apps/a.yaml", "apps/b.yml"])
    }

    @Test func unreadableFilesAreSkippedAndReported() {
        let marked = "image: ghcr.io/acme/web:1.0.0 \(Self.web)\n"
        let r = run([("a/helm.yaml", "{{- if .Values.on }}\n" + marked), ("a/list.yaml", "- x\n---\n" + marked),
                     ("a/ok.yaml", marked)])
        #expect(r.rewrites.map(\.path) == ["a/ok.yaml"])
        #expect(r.unreadable.map(\.path) == ["a/helm.yaml", "a/list.yaml"])
        #expect(r.unreadable.map(\.reason).last == "line 1: the document is a list, not a mapping")
        #expect(r.markers.filter { if case .skipped = $0.status { true } else { false } }.map(\.file) == ["a/list.yaml"])
    }

    @Test func markersFluxDoesNotApplyAreSkippedWithTheReason() {
        let text = "a: ghcr.io/acme/web:1.0.0 # {\"$imagepolicy\": \"other:web\"}\nb: x:1 # {\"$imagepolicy\": \"flux-system:nope\"}\n"
            + "c: ghcr.io/acme/web:1.2.0 \(Self.web)\n"
        let r = run([("a.yaml", text)])
        #expect(r.rewrites.isEmpty)
        #expect(r.markers.map(\.status) == [
            .skipped("ImagePolicy other/web is not in the automation's namespace flux-system; Flux only uses policies of its own namespace"),
            .skipped("the repository has no ImagePolicy flux-system/nope"), .current,
        ])
    }

    @Test func markersInsideBlockScalarsAndAfterKeysAreNoMarkers() {
        let text = "patch: |\n  image: ghcr.io/acme/web:1.0.0 \(Self.web)\nimage: # {\"$imagepolicy\": \"flux-system:web\"}\n  ghcr.io/acme/web:1.0.0\n"
        #expect(run([("a.yaml", text)]).rewrites.isEmpty)
        #expect(run([("a.yaml", text)]).markers.isEmpty)
    }

    @Test func fluxsGoldenCaseChangesTheSameValues() throws {
        // image-automation-controller's TestUpdateWithSetters: the same values change (the bytes around them stay ours)
        let golden = SetterTable(values: [
            "automation-ns:policy": "index.repo.fake/updated:v1.0.1", "automation-ns:policy:tag": "v1.0.1",
            "automation-ns:policy:name": "index.repo.fake/updated", "automation-ns:policy:digest": "",
            "automation-ns:unchanged": "image:v1.0.0", "automation-ns:unchanged:tag": "v1.0.0",
            "automation-ns:unchanged:name": "image", "automation-ns:unchanged:digest": "",
            "automation-ns:policy-with-digest": "image:v1.0.0@\(Self.digest)", "automation-ns:policy-with-digest:tag": "v1.0.0",
            "automation-ns:policy-with-digest:name": "image", "automation-ns:policy-with-digest:digest": Self.digest,
        ])
        func marker(_ v: String) -> String { "# {\"$imagepolicy\": \"\(v)\"}" }
        let files: [(String, String)] = [
            ("marked.yaml", "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: foo\n  namespace: bar\nspec:\n  schedule: \"*/1 * * * *\"\n"
                + "  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n"
                + "          - name: c\n            image: image:v1.0.0 \(marker("automation-ns:policy"))\n"
                + "          - name: d\n            image: image:v1.0.0 \(marker("automation-ns:unchanged"))\n"),
            ("Kustomization", "# header\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nimages:\n- name: image\n"
                + "  newName: replaced \(marker("automation-ns:policy:name"))\n  newTag: v1 \(marker("automation-ns:policy:tag"))\n"),
            ("kustomization.yml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nimages:\n- name: image\n"
                + "  newName: replaced \(marker("automation-ns:policy:name"))\n  newTag: v1 \(marker("automation-ns:policy:tag"))\n"
                + "  newDigest: sha256:1234567890abcdef \(marker("automation-ns:policy-with-digest:digest"))\n"
                + "patches:\n- target:\n    kind: Deployment\n    image: image \(marker("automation-ns:policy-with-digest"))\n"
                + "  patch: |\n    - op: add\n      path: /x\n"),
            ("otherns.yaml", "image: image:v1.0.0 \(marker("other-namespace:policy"))\n"),
            ("unmarked.yaml", "image: image:v1.0.0\n"),
        ]
        let r = Setters.run(files.map { SourceFile(path: $0.0, bytes: Array($0.1.utf8)) }, under: "", table: golden)
        #expect(r.rewrites.map(\.path) == ["Kustomization", "kustomization.yml", "marked.yaml"])
        #expect(r.rewrites.map { $0.changes.map { [$0.setter, $0.oldValue, $0.newValue] } } == [
            [["automation-ns:policy:name", "replaced", "index.repo.fake/updated"], ["automation-ns:policy:tag", "v1", "v1.0.1"]],
            [["automation-ns:policy:name", "replaced", "index.repo.fake/updated"], ["automation-ns:policy:tag", "v1", "v1.0.1"],
             ["automation-ns:policy-with-digest:digest", "sha256:1234567890abcdef", Self.digest],
             ["automation-ns:policy-with-digest", "image", "image:v1.0.0@\(Self.digest)"]],
            [["automation-ns:policy", "image:v1.0.0", "index.repo.fake/updated:v1.0.1"]],
        ])
        #expect(r.rewrites.last?.changes.first?.object == ObjectIdentity(apiVersion: "batch/v1beta1", kind: "CronJob", namespace: "bar", name: "foo"))
        #expect(r.rewrites[1].changes.first?.object == ObjectIdentity(apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization",
                                                                       namespace: "", name: ""))
        let marked = String(decoding: r.rewrites[2].after, as: UTF8.self)
        #expect(marked == files[0].1.replacingOccurrences(of: "image: image:v1.0.0 \(marker("automation-ns:policy"))",
                                                          with: "image: index.repo.fake/updated:v1.0.1 \(marker("automation-ns:policy"))"))
    }

    @Test func yaml11NonStringsAreThoseKyamlQuotes() {
        for s in ["1", "1.10", "-1", "+1", "0x1F", "0o17", "012", "08", "1_000", "1e3", ".5", "1.", ".inf", "-.Inf", ".NaN",
                  "yes", "No", "on", "OFF", "y", "N", "true", "False", "~", "null", "0b101", "a: b", "- x", "[a]", "{a: b}", "# c",
                  "1 # c", "1 #c x", "é: b", "1 # é"] {
            #expect(Setters.isYAML11NonString(s), "\(s)")
        }
        for s in ["", "v1", "1.2.3", "1.0.0-rc.1", "sha256:abc", "ghcr.io/acme/web:1.0", "2024-01-02", "0x", "1e", "yess", "nul",
                  "\"1\"", "'1'", "1\n2", "main-123", "v1 # c", "é # c", "é:b", "1\r\n2"] {
            #expect(!Setters.isYAML11NonString(s), "\(s)")
        }
    }

    @Test func valuesThatCannotBePlainAreQuotedAsGoYAMLQuotesThem() {
        #expect(Setters.encode("a: b", style: .plain, inFlow: false) == "\"a: b\"")
        #expect(Setters.encode("x #y", style: .plain, inFlow: false) == "'x #y'")
        #expect(Setters.encode("a,b", style: .plain, inFlow: true) == "'a,b'")
        #expect(Setters.encode("a,b", style: .plain, inFlow: false) == "a,b")
        #expect(Setters.encode("it's", style: .singleQuoted, inFlow: false) == "'it''s'")
        #expect(Setters.encode("a\"b\\c\u{1}", style: .doubleQuoted, inFlow: false) == "\"a\\\"b\\\\c\\x01\"")
        #expect(Setters.encode("@x", style: .plain, inFlow: false) == "'@x'")
    }
}

extension SettersTests {
    @Test func markersAfterFlowCollectionsAreNotApplied() {
        // go-yaml attaches a comment after a flow collection to the collection, never to a scalar in it
        let text = "spec:\n  containers: [{name: web, image: ghcr.io/acme/web:1.0.0}] \(Self.web)\n"
            + "  args: [ghcr.io/acme/web:1.0.0] \(Self.web)\n"
        #expect(run([("a.yaml", text)]).rewrites.isEmpty)
        #expect(run([("a.yaml", text)]).markers.isEmpty)
    }
}

extension SettersTests {
    @Test func anEmptyValueGetsItsOwnPlaceAndATaggedValueIsReadBack() {
        // found by review: an empty scalar has no bytes, and the value must not stick to the `:` or `-` before it
        let text = "a:\n  image: \(Self.web)\n  list:\n  - \(Self.web)\n"
        #expect(after(text) == "a:\n  image: ghcr.io/acme/web:1.2.0 \(Self.web)\n  list:\n  - ghcr.io/acme/web:1.2.0 \(Self.web)\n")
        // a value with an explicit non-string tag would not read back as a string: not written, and said so
        let numeric = #"# {"$imagepolicy": "flux-system:numeric:tag"}"#
        let tagged = "t: !!float 1.0 \(numeric)\n"
        let r = run([("a.yaml", tagged)])
        #expect(r.rewrites.isEmpty)
        #expect(r.markers.map(\.status) == [.skipped("not written: the rewritten value '1.10' would not read back as that string")])
    }

    @Test func aMarkedEmptyValueAtTheEndOfAFileWithoutNewlineDoesNotCrash() {
        let text = "list:\n  # {\"$imagepolicy\": \"flux-system:web\"}\n  -"
        _ = run([("a.yaml", text)])
    }
}

extension SettersTests {
    /// A new value gets a blank before it where it would join what stands before: an empty value, and a value that
    /// follows an anchor directly (`&a:b`), also after a byte order mark at the line's start or after a line break
    /// that only libyaml counts (NEL, U+2028, U+2029) (all found by fuzzing).
    @Test func aValueThatWouldJoinAnAnchorGetsABlank() {
        func span(_ text: String, _ value: String) -> (SourceSpan, [UInt8]) {
            let bytes = Array(text.utf8)
            let start = text.utf8.count - value.utf8.count
            let p = SourcePosition(offset: start, line: 1, column: start + 1), e = SourcePosition(offset: bytes.count, line: 1, column: bytes.count + 1)
            return (SourceSpan(start: p, end: e), bytes)
        }
        for (text, value, expected) in [("k: &a:b", ":b", " new"), ("\u{FEFF}&a:b", ":b", " new"), ("k: &a :b", ":b", "new"),
                                        ("k: [a,b", "b", "new"), ("k: !!str b", "b", "new"),
                                        ("\u{85}&a:b", ":b", " new"), ("k: [\u{2028}&a:b", ":b", " new"), ("x\u{2029}&a:b", ":b", " new")] {
            let (s, bytes) = span(text, value)
            #expect(Setters.separated("new", at: s, in: bytes) == expected, "\(text)")
        }
    }
}
