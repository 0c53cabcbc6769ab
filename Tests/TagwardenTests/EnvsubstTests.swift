import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

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
