import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let promotionRebuiltArtifact = Rule("promotion-rebuilt-artifact") { m in
        promotionFindings(m).filter { $0.rule == "promotion-rebuilt-artifact" }
    }
}
