import TagwardenBasics
import TagwardenModel

extension Linter {
    /// Drops the findings a `# tagwarden:ignore RULE reason` covers (on the finding's line or the line above), and says
    /// which suppressions matched (`Suppression.useKey`), for `suppression-unused`.
    static func applySuppressions(_ findings: [Finding], model: Model) -> ([Finding], Set<String>) {
        var byFile: [String: [Suppression]] = [:]
        for f in model.files where !f.suppressions.isEmpty { byFile[f.path] = f.suppressions }
        if byFile.isEmpty { return (findings, []) }
        var used = Set<String>()
        let kept = findings.filter { f in
            guard let list = byFile[f.file] else { return true }
            for s in list where s.rules.contains(f.rule) && (s.line == f.span.start.line || s.line + 1 == f.span.start.line) {
                used.insert(s.useKey(file: f.file, rule: f.rule))
                return false
            }
            return true
        }
        return (kept, used)
    }
}

extension Suppression {
    /// This suppression's match of a finding of `rule` in `file`.
    func useKey(file: String, rule: String) -> String { "\(file)\u{0}\(line)\u{0}\(rule)" }
}
