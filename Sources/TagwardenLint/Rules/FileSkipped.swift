import TagwardenBasics
import TagwardenYAML
import TagwardenModel

extension Rule {
    static let fileSkipped = Rule("file-skipped", scope: .everyFile) { c in
        let origin = SourcePosition(offset: 0, line: 1, column: 1)
        return c.model.skipped.map { s in
            var f = c.finding("skipped: \(s.reason)", path: s.path, span: SourceSpan(start: origin, end: origin), subject: s.reason)
            // a file that cannot be read is an error, one passed over on purpose a note
            if s.severity != .note { f.ruleSeverity = s.severity }
            return f
        }
    }
}
