import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

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
