import Testing
import TagwardenBasics
import TagwardenModel
@testable import TagwardenUpdate

/// Flux's commit messages: its template data and Go's text/template run on them.
@Suite struct CommitMessageTests {
    let deploy = SetterChange(file: "deploy.yaml", line: 9, column: 16,
                              object: ObjectIdentity(apiVersion: "apps/v1", kind: "Deployment", namespace: "", name: "test"),
                              setter: "flux-system:helloworld", oldValue: "helloworld:1.0.0", newValue: "helloworld:1.0.1")

    func render(_ template: String, changes: [SetterChange]? = nil, values: [String: String] = [:], root: String = "") throws -> String {
        try CommitMessage.render(template, data: CommitMessage.data(namespace: "test-ns", name: "test-update", roots: [root],
                                                                    changes: changes ?? [deploy], values: values))
    }

    @Test func fluxsTestVectorRendersByteForByte() throws {
        let template = """
        Commit summary with ResultV2

        Automation: {{ .AutomationObject }}

        {{ range $filename, $objchange := .Changed.FileChanges -}}
        - File: {{ $filename }}
        {{- range $obj, $changes := $objchange }}
          - Object: {{ $obj.Kind }}/{{ $obj.Namespace }}/{{ $obj.Name }}
            Changes:
        {{- range $_ , $change := $changes }}
            - {{ $change.OldValue }} -> {{ $change.NewValue }}
        {{ end -}}
        {{ end -}}
        {{ end -}}

        """
        #expect(try render(template) == """
        Commit summary with ResultV2

        Automation: test-ns/test-update

        - File: deploy.yaml
          - Object: Deployment//test
            Changes:
            - helloworld:1.0.0 -> helloworld:1.0.1

        """)
        let values = "Commit summary\n\nAutomation: {{ .AutomationObject }}\n\nCluster: {{ index .Values \"cluster\" }}\nTesting: {{ .Values.testing }}\n"
        #expect(try render(values, values: ["cluster": "prod", "testing": "value"])
                == "Commit summary\n\nAutomation: test-ns/test-update\n\nCluster: prod\nTesting: value\n")
    }

    @Test func anEmptyTemplateIsFluxsDefaultText() throws {
        #expect(try render("") == "Update from image update automation")
    }

    @Test func removedFieldsAreNamedWithTheirReplacement() {
        #expect(throws: TagwardenError("template uses removed '.Updated' field. Please use '.Changed' instead. "
                                       + "See: https://fluxcd.io/flux/components/image/imageupdateautomations/#message-template")) {
            try render("{{ range .Updated.Images }}{{ . }}{{ end }}")
        }
        #expect(throws: TagwardenError("template uses removed '.Changed.ImageResult' field. Please use '.Changed.FileChanges' or "
                                       + "'.Changed.Objects' instead. See: https://fluxcd.io/flux/components/image/imageupdateautomations/#message-template")) {
            try render("{{ .Changed.ImageResult.Files }}")
        }
    }

    @Test func filesAreRelativeToTheUpdatePathAndChangesDeduplicated() throws {
        let a = SetterChange(file: "apps/prod/web.yaml", line: 1, column: 1, object: deploy.object, setter: "ns:web:tag", oldValue: "1", newValue: "2")
        let b = SetterChange(file: "apps/staging/web.yaml", line: 1, column: 1, object: deploy.object, setter: "ns:web:tag", oldValue: "1", newValue: "2")
        #expect(try render("{{ range $f, $_ := .Changed.FileChanges }}{{ $f }} {{ end }}|{{ len .Changed.Changes }}|{{ len .Changed.Objects }}",
                           changes: [b, a], root: "apps") == "prod/web.yaml staging/web.yaml |1|1")
    }

    @Test func objectsMergesAnObjectsChangesOverFilesFromFlux29AndKeptOneFilesBefore() throws {
        // one HelmRelease whose documents are in three files (a release and its values, split per cluster)
        let release = ObjectIdentity(apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", namespace: "web", name: "web")
        let changes = ["a.yaml", "b.yaml", "c.yaml"].map {
            SetterChange(file: "apps/\($0)", line: 1, column: 1, object: release, setter: "ns:web:tag", oldValue: "1", newValue: "2")
        }
        let template = "{{ range $o, $c := .Changed.Objects }}{{ $o.Name }}:{{ range $c }} {{ .NewValue }}{{ end }}{{ end }}"
        func rendered(_ flux: FluxVersion) throws -> String {
            try CommitMessage.render(template, data: CommitMessage.data(namespace: "ns", name: "a", roots: ["apps"], changes: changes,
                                                                        values: [:], flux: flux))
        }
        #expect(try rendered(FluxVersion(2, 8)) == "web: 2")
        #expect(try rendered(FluxVersion(2, 4)) == "web: 2")
        #expect(try rendered(FluxVersion(2, 9)) == "web: 2 2 2")
    }

    @Test func withSeveralPathsAFileIsNamedUnderTheDeepestThatHoldsIt() throws {
        let a = SetterChange(file: "apps/radix-cicd-canary.yaml", line: 1, column: 1, object: deploy.object, setter: "ns:web", oldValue: "1", newValue: "2")
        let b = SetterChange(file: "infrastructure/canary/web.yaml", line: 1, column: 1, object: deploy.object, setter: "ns:web", oldValue: "1", newValue: "2")
        let data = CommitMessage.data(namespace: "ns", name: "a", roots: ["apps", "infrastructure/canary", "infrastructure"], changes: [a, b], values: [:])
        #expect(try CommitMessage.render("{{ range $f, $_ := .Changed.FileChanges }}{{ $f }} {{ end }}", data: data)
                == "radix-cicd-canary.yaml web.yaml ")
    }

    @Test func goPrintsValuesAsFmtDoes() throws {
        #expect(try render("{{ range $o, $c := .Changed.Objects }}{{ $o }} {{ $c }}{{ end }}")
                == "{{{apps/v1 Deployment} {test }}} [{helloworld:1.0.0 helloworld:1.0.1 flux-system:helloworld}]")
        #expect(try render("{{ .Values }} {{ .Values.nope }} {{ index .Values \"nope\" }}|") == "map[] <no value> |")
        // a field of a missing key is Go's invalid Value again, not an error (as in `with .Values` then `.Changed.X`)
        #expect(try render("{{ .Values.nope.deeper }}|{{ with .Values }}{{ .Changed.FileChanges }}{{ else }}none{{ end }}") == "<no value>|none")
        #expect(try render(#"{{ print 1 2 "a" 3 }}|{{ println 1 "a" }}|{{ printf "%05.1f %-4d| %q %x %v %t %s" 3.14159 7 "a\"b" 255 1.0 true 2 }}"#)
                == "1 2a3|1 a\n|003.1 7   | \"a\\\"b\" ff 1 true %!s(int=2)")
        #expect(try render(#"{{ printf "%d %d" 1 }}|{{ printf "%d" 1 2 }}"#) == "1 %!d(MISSING)|1%!(EXTRA int=2)")
    }

    @Test func controlFlowVariablesAndDefinitions() throws {
        let t = """
        {{- define "item" }}<{{ . }}>{{ end -}}
        {{ $n := 0 }}{{ range $i, $c := .Changed.Changes }}{{ $n = $i }}{{ template "item" $c.Setter }}{{ end }} n={{ $n }}
        {{ if eq .AutomationObject.Name "x" }}x{{ else if eq .AutomationObject.Name "test-update" }}found{{ else }}no{{ end }}
        {{ with .Values.none }}has{{ else }}none{{ end }} {{ range 3 }}{{ if eq . 1 }}{{ continue }}{{ end }}{{ . }}{{ end }}
        {{ block "b" . }}block {{ .AutomationObject.Namespace }}{{ end }}
        """
        #expect(try render(t) == "<flux-system:helloworld> n=0\nfound\nnone 02\nblock test-ns")
    }

    @Test func sprigFunctions() throws {
        let t = #"{{ upper "a" }} {{ "B" | lower }} {{ title "hello wor_ld x" }} {{ trim "  x " }} {{ trimPrefix "v" "v1" }} "#
            + #"{{ trimSuffix "-rc" "1-rc" }} {{ replace "a" "b" "aXa" }} {{ join "," (list "a" "b") }} {{ (split ":" "a:b")._1 }} "#
            + #"{{ contains "el" "hello" }} {{ hasPrefix "he" "hello" }} {{ hasSuffix "lo" "hello" }} {{ quote "a" "b" }} {{ squote "c" }} "#
            + #"{{ default "d" "" }} {{ default "d" "x" }} {{ empty "" }} {{ toJson (list "a<" 1) }}|{{ indent 2 "a\nb" }}|{{ nindent 1 "c" }}"#
        #expect(try render(t) == "A b Hello Wor_ld X x 1 1 bXb a,b b true true true \"a\" \"b\" 'c' d x true [\"a\\u003c\",1]|  a\n  b|\n c")
    }

    @Test func runtimeErrorsAreGosWithThePosition() {
        #expect(throws: TagwardenError("failed to run template from spec: template: commit message:2:5: executing \"commit message\" at <.Nope>: "
                                       + "can't evaluate field Nope in type source.TemplateData")) {
            try render("x\n  {{ .Nope }}")
        }
        #expect(throws: TagwardenError("unable to create commit message template from spec: template: commit message:1: "
                                       + "function \"nosuch\" not defined")) {
            try render("{{ nosuch }}")
        }
        // a template that calls itself outside any block stops at the depth of calls
        #expect(throws: TagwardenError.self) { try render(#"{{define "t"}}{{template "t"}}{{end}}{{template "t"}}"#) }
    }
}

extension CommitMessageTests {
    func renderOld(_ template: String, flux: FluxVersion) throws -> String {
        let second = SetterChange(file: "deploy.yaml", line: 12, column: 16, object: deploy.object, setter: "flux-system:helloworld:tag",
                                  oldValue: "1.0.0", newValue: "1.0.1")
        return try CommitMessage.render(template, data: CommitMessage.data(
            namespace: "test-ns", name: "test-update", roots: [""], changes: [deploy, second], values: ["cluster": "prod"], flux: flux,
            references: ["flux-system:helloworld": "helloworld:1.0.1"]))
    }

    @Test func olderFluxHasUpdatedWithGoContainerRegistryReferences() throws {
        // Flux before 2.7: .Updated, one image per policy and object, whichever of its setters changed
        let t = "{{ range .Updated.Images }}{{ . }} {{ .Identifier }} {{ .Repository }} {{ .Registry }} {{ .Name }} {{ .Policy.Name }}\n{{ end }}"
            + "{{ range $f, $r := .Updated.Files }}{{ $f }}:{{ range $o, $refs := $r.Objects }} {{ $o.Kind }}/{{ $o.Name }} {{ len $refs }}{{ end }}{{ end }}"
        let expected = "helloworld:1.0.1 1.0.1 library/helloworld index.docker.io index.docker.io/library/helloworld:1.0.1 helloworld\n"
            + "deploy.yaml: Deployment/test 1"
        #expect(try renderOld(t, flux: FluxVersion(2, 4)) == expected)
        #expect(try renderOld("{{ len .Changed.ImageResult.Images }} {{ len .Changed.Changes }}", flux: FluxVersion(2, 4)) == "1 2")
        // .Values came with 2.5, and 2.2 has no .Changed
        #expect(throws: TagwardenError.self) { try renderOld("{{ .Values.cluster }}", flux: FluxVersion(2, 4)) }
        #expect(try renderOld("{{ .Values.cluster }}", flux: FluxVersion(2, 5)) == "prod")
        #expect(throws: TagwardenError.self) { try renderOld("{{ .Changed.Changes }}", flux: FluxVersion(2, 2)) }
    }
}

extension CommitMessageTests {
    @Test func goSemanticsTheSecondReadFound() throws {
        // strings as Go's bytes and runes, not Swift's characters
        #expect(try render(#"{{ replace "" "-" "abc" }}|{{ splitList "" "ab" }}|{{ title "don’t stop ßa" }}|{{ hasPrefix "e" "e\u0301" }}"#)
                == "-a-b-c-|[a b]|Don’t Stop ßa|true")
        // nil prints as no value; fmt's %v of a float is %g's shortest, with the exponent from 1e6; JSON's from 1e21
        #expect(try render(#"{{ define "t" }}[{{ . }}]{{ end }}{{ template "t" }}{{ first (list) }}|{{ 1e6 }} {{ 123456.5 }}|{{ toJson (list 1e6 1e21) }}"#)
                == "[<no value>]<no value>|1e+06 123456.5|[1000000,1e+21]")
        // a redefinition of blanks only keeps the first
        #expect(try render("{{ block \"b\" . }}x{{ end }}{{ block \"b\" . }}\n{{ end }}") == "xx")
        #expect(try render("{{ printf \"%T %T\" 1 .Changed.Changes }}") == "int []update.Change")
    }

    /// printf's widths and precisions are read as fmt's `parsenum` reads them: a number past a million ends the format
    /// (`%!(NOVERB)`), and a `.` that ends it is the verb (the outputs are Go 1.19's). A width that would pad past
    /// tagwarden's bound fails before the padding is made (fuzzing found `%+73709551615q` asking for 73 GB).
    @Test func printfWidthsAreReadAsFmtReadsThem() throws {
        for (template, go) in [(#"{{ printf "%+73709551615q x %d" "a" 3 }}"#, "%!(NOVERB)%!(EXTRA string=a, int=3)"),
                               (#"{{ printf "%99999999999999999999d|" 5 }}"#, "%!(NOVERB)%!(EXTRA int=5)"),
                               (#"{{ printf "%.99999999999d|" 5 }}"#, "%!(NOVERB)%!(EXTRA int=5)"),
                               (#"{{ printf "%5" 5 }}"#, "%!(NOVERB)%!(EXTRA int=5)"),
                               (#"{{ printf "%5.d|" 5 }}"#, "    5|"),
                               (#"{{ printf "%." 5 }}"#, "%!.(int=5)"),
                               (#"{{ printf "%.|" 5 }}"#, "%!|(int=5)"),
                               (#"{{ printf "%5.|" 5 }}"#, "%!|(int=    5)"),
                               (#"{{ printf "%-010d|" 5 }}"#, "5         |")] {
            #expect(try render(template) == go, "\(template)")
        }
        #expect(try render(#"{{ printf "%1000d" 5 }}"#).utf8.count == 1_000)
        for template in [#"{{ printf "%10000009d" 5 }}"#, #"{{ printf "%1000s" (splitList "," (repeat 2000 "a,")) }}"#] {
            do {
                _ = try render(template)
                Issue.record("\(template) padded past the bound")
            } catch let e as TagwardenError {
                #expect(e.isBound && e.message.contains("more than 1 MiB"), "\(template): \(e.message)")
            }
        }
    }

    /// Blocks and parentheses nested deeper than tagwarden's bound stop with an error, not a crash (a message template is
    /// repository content: 50,000 nested ifs or 9,990 parentheses, which Go's parser takes, overflowed the stack).
    @Test func nestingStopsAtItsBound() throws {
        let n = GoTemplate.maxNesting
        #expect(try render(String(repeating: "{{if 1}}", count: n) + "x" + String(repeating: "{{end}}", count: n)) == "x")
        #expect(try render("{{" + String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n) + "}}") == "1")
        for template in [String(repeating: "{{if 1}}", count: 50_000) + "x" + String(repeating: "{{end}}", count: 50_000),
                         String(repeating: "{{range 1}}", count: n) + "{{with 1}}x{{end}}" + String(repeating: "{{end}}", count: n),
                         "{{" + String(repeating: "(", count: 9_990) + "1" + String(repeating: ")", count: 9_990) + "}}",
                         // nesting that grows as it runs: a template that calls itself inside a block
                         #"{{define "t"}}{{if 1}}{{template "t"}}{{end}}{{end}}{{template "t"}}"#] {
            do {
                _ = try render(template)
                Issue.record("rendered a template nested past the bound")
            } catch let e as TagwardenError {
                #expect(e.isBound && e.message.contains("nests blocks or parentheses more than \(n) deep, tagwarden's bound for a commit message"),
                        "\(e.message)")
            }
        }
        // a template that calls itself outside any block stops at the depth of calls
        #expect(throws: TagwardenError.self) { try render(#"{{define "t"}}{{template "t"}}{{end}}{{template "t"}}"#) }
    }

    /// `%c` and `%q` of a number that is no code point give U+FFFD, as Go's `fmtC` does (go1.19 printed exactly this).
    /// Found by scripts/fuzz: 66666666666666 trapped converting to a 32-bit code point.
    @Test func numbersThatAreNoCodePointAreTheReplacementCharacter() throws {
        let template = #"{{printf "%c|%q|%c|%q|%c|%q|%q|%c" -1 -1 4294967296 66666666666666 55296 55296 1114112 65}}"#
        #expect(try render(template) == "\u{FFFD}|'\u{FFFD}'|\u{FFFD}|'\u{FFFD}'|\u{FFFD}|'\u{FFFD}'|'\u{FFFD}'|A")
    }

    @Test func aTemplateOfTextAloneIsItsTextAndMakesNoData() throws {
        var made = 0
        func data() -> TemplateValue {
            made += 1
            return CommitMessage.data(namespace: "ns", name: "a", roots: [""], changes: [deploy], values: [:])
        }
        // the default message, text with braces that open no action, and an empty template (the default)
        for template in ["Update from image update automation", "deploy } { }} {x}\n\nBody\n", ""] {
            let expected = template.isEmpty ? CommitMessage.defaultTemplate : template
            #expect(try CommitMessage.render(template, data: data()) == expected)
        }
        #expect(made == 0)
        // an action reads it
        #expect(try CommitMessage.render("{{ .AutomationObject }}", data: data()) == "ns/a")
        #expect(made == 1)
        // and text alone past the message's bound fails as before
        let long = String(repeating: "x", count: TemplateRunner.maxOutput + 1)
        #expect(throws: TagwardenError.self) { try CommitMessage.render(long, data: data()) }
        #expect(made == 1)
    }
}
