import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let markerIgnored = Rule("marker-ignored", scope: .updatePaths) { c in
        let m = c.model
        var out: [Finding] = []
        for k in m.markers.indices {
            let mk = m.markers[k]
            let path = m.path(mk.file)
            var reason: String?
            // a file that does not parse is skipped whole, before any marker in it is looked at
            if mk.context != .unreadFile, m.files[mk.file].syntaxError != nil {
                out.append(c.finding("Flux silently skips this $imagepolicy marker: Flux skips files that do not parse", marker: k))
                continue
            }
            switch mk.context {
            case .commentLine:
                reason = "it is on a comment line that belongs to no value (Flux reads a marker after the value on its line, "
                    + "or on the line right above a value that starts on the next line)"
            case .commentedOut: reason = nil   // a line switched off on purpose, marker and all
            case .hiddenHeadComment: reason = "the value below has a comment of its own on its line, which Flux reads instead"
            case .multiLineHeadComment:
                reason = "with the comment line above it, it is part of a head comment of several lines, which Flux cannot read as one JSON object"
            case .blockScalar: reason = "it is text inside a string (a block or quoted scalar), not a comment"
            case .keyLine: reason = "it follows a mapping key, not the scalar value Flux updates (put it after the value, on the value's line)"
            case .alias: reason = "it follows an alias, and Flux only rewrites a value written in place (put the marker after the anchored value)"
            case .other: reason = "it does not follow a scalar value"
            case .unreadFile: reason = "Flux only reads files named *.yaml, *.yml or Kustomization, never \(Path.basename(path))"
            case .value:
                reason = m.markers[k].skipped
            }
            if let reason { out.append(c.finding("Flux silently skips this $imagepolicy marker: \(reason)", marker: k)) }
        }
        return out
    }

}
