import TagwardenBasics
import TagwardenYAML
import TagwardenModel

extension Rule {
    static let suppressionUnused = Rule("suppression-unused", scope: .everyFile, judgesSuppressions: true) { c in
        var out: [Finding] = []
        for i in c.model.files.indices where !c.model.files[i].suppressions.isEmpty {
            let f = c.model.files[i]
            for s in f.suppressions {
                if s.rules.isEmpty {
                    out.append(c.finding("tagwarden:ignore names no rule: write '# tagwarden:ignore RULE reason'", path: f.path, span: s.span))
                }
                for r in s.rules where !c.suppressionsUsed.contains(s.useKey(file: f.path, rule: r)) {
                    if !Catalogue.ids.contains(r) {
                        let hint = Suggest.nearest(r, in: Array(Catalogue.ids)).map { " (did you mean '\($0)'?)" } ?? ""
                        out.append(c.finding("tagwarden:ignore names an unknown rule '\(r)'\(hint)", path: f.path, span: s.span))
                    } else {
                        out.append(c.finding("tagwarden:ignore \(r) suppresses nothing on this line or the next: remove it", path: f.path, span: s.span))
                    }
                }
            }
        }
        return out
    }
}
