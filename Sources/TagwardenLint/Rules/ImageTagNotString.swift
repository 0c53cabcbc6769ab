import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let imageTagNotString = Rule("image-tag-not-string") { c in
        let m = c.model
        var out: [Finding] = []
        for i in m.images.indices {
            let img = m.images[i]
            guard let tag = img.tag, tag.type != .string else { continue }
            let meaning: String
            switch tag.type {
            case .float: meaning = "the number \(canonicalFloat(tag.value))"
            case .int: meaning = "an integer"
            case .bool: meaning = "a boolean"
            default: continue
            }
            out.append(c.finding("tag \(tag.value) is read by YAML as \(meaning), not the string '\(tag.value)': quote it",
                                 image: i, span: tag.span))
        }
        for i in m.files.indices where !m.files[i].versionFields.isEmpty {
            for v in m.files[i].versionFields where v.type != .string && v.type != .null {
                out.append(c.finding("chart version \(v.value) is read by YAML as a number, not the string '\(v.value)': quote it",
                                     path: m.files[i].path, span: v.span))
            }
        }
        return out
    }

    /// How a YAML float reads back (`1.10` → `1.1`), to make the message concrete.
    static func canonicalFloat(_ s: String) -> String {
        guard let d = Double(s.replacingOccurrences(of: "_", with: "")) else { return s }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) + ".0" }
        return String(d)
    }
}
