import Testing
@testable import TagwardenModel

/// Which files are Carvel ytt templates, which the audit leaves to ytt: a line that starts, after blanks, with `#@` and a
/// letter, a blank or `(`.
@Suite struct YttTemplateTests {
    func ytt(_ text: String) -> Bool { Model.isYttTemplate(Array(text.utf8)) }

    @Test func annotationsAtALinesStartAfterItsIndentation() {
        #expect(ytt("#@ load(\"@ytt:data\", \"data\")\nimage: nginx\n"))
        #expect(ytt("#@data/values\n---\nimage: nginx\n"))
        #expect(ytt("spec:\n  \t #@ if data.values.on:\n  a: 1\n"))
        #expect(ytt("a: 1\r\n#@(data.values.x)\n"))
        #expect(ytt("image: x # @nope\n#@ def f():\n"))   // a later line decides
    }

    @Test func plainCommentsAreNoTemplate() {
        #expect(!ytt("image: nginx # {\"$imagepolicy\": \"flux-system:web\"}\n"))
        #expect(!ytt("a: 1 #@ not at a line's start\n"))
        #expect(!ytt("#@!\n#@1\n#@-x\n"))   // after #@: neither a letter, a blank nor (
        #expect(!ytt("a: 1\r#@ def f():\n"))   // a carriage return alone does not start a line
        #expect(!ytt("a: 1\n#@"))                  // the file ends at #@
        #expect(!ytt(""))
    }
}
