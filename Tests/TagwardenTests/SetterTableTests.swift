import Testing
import TagwardenBasics
import TagwardenModel
import TagwardenFixtures
@testable import TagwardenUpdate

@Suite struct SetterTableTests {
    let digest = "sha256:" + String(repeating: "0f", count: 32)

    func table(_ docs: [String], tags: String) throws -> SetterTable {
        let model = try Model.build([SourceFile(path: "flux.yaml", bytes: Array(docs.joined(separator: "---\n").utf8))],
                                    config: Config(), profile: nil)
        let outcomes = try PolicyEvaluation.evaluate(model, tags: TagFile.parse(Array(tags.utf8), path: "tags.json"))
        return try SetterTable.build(model, automation: 0, cluster: nil, outcomes: outcomes)
    }

    func labelledPolicy(_ name: String, namespace: String = "flux-system", labels: String) -> String {
        imagePolicy(name: name, namespace: namespace, repository: "web")
            .replacingOccurrences(of: "metadata: {name: \(name), namespace: \(namespace)}",
                                  with: "metadata: {name: \(name), namespace: \(namespace), labels: {\(labels)}}")
    }

    @Test func theFourValuesOfEachPolicyTheAutomationUses() throws {
        let t = try table([imageRepository(), imagePolicy(digestReflection: "IfNotPresent"), imagePolicy(name: "plain", repository: "web"),
                           imageUpdateAutomation(name: "apps", path: "./apps")],
                          tags: #"{"ghcr.io/acme/web": [{"tag": "1.1.0", "digest": "\#(digest)"}, "1.0.0"]}"#)
        #expect(t.values == [
            "flux-system:web": "ghcr.io/acme/web:1.1.0@\(digest)", "flux-system:web:tag": "1.1.0",
            "flux-system:web:name": "ghcr.io/acme/web", "flux-system:web:digest": digest,
            // a policy that reflects no digest: Flux writes "" into a :digest field
            "flux-system:plain": "ghcr.io/acme/web:1.1.0", "flux-system:plain:tag": "1.1.0",
            "flux-system:plain:name": "ghcr.io/acme/web", "flux-system:plain:digest": "",
        ])
    }

    @Test func onlyPoliciesOfItsNamespaceThatItsSelectorTakesAndThatSelectATag() throws {
        let selector = "  policySelector: {matchLabels: {team: web}}\n"
        let t = try table([imageRepository(), imageRepository(name: "web", namespace: "apps"),
                           labelledPolicy("taken", labels: "team: web"), labelledPolicy("other-team", labels: "team: api"),
                           labelledPolicy("elsewhere", namespace: "apps", labels: "team: web"),
                           labelledPolicy("nothing", labels: "team: web").replacingOccurrences(of: ">=1.0.0", with: ">=9.0.0"),
                           imageUpdateAutomation(name: "apps", path: "./apps") + selector],
                          tags: #"{"ghcr.io/acme/web": ["1.0.0"]}"#)
        #expect(t.values.keys.sorted() == ["flux-system:taken", "flux-system:taken:digest", "flux-system:taken:name", "flux-system:taken:tag"])
        // and why each other policy is not there, for --explain
        #expect(t.whyAbsent == [
            "flux-system:other-team": "the automation's policySelector does not take ImagePolicy flux-system/other-team",
            "apps:elsewhere": "ImagePolicy apps/elsewhere is not in the automation's namespace flux-system; Flux only uses policies of its own namespace",
            "flux-system:nothing": "ImagePolicy flux-system/nothing selects no tag: unable to determine latest version from provided list",
        ])
    }

    @Test func matchExpressionsAreRefusedNotGuessed() throws {
        let selector = "  policySelector: {matchExpressions: [{key: team, operator: In, values: [web]}]}\n"
        let error = #expect(throws: TagwardenError.self) {
            try table([imageRepository(), imagePolicy(), imageUpdateAutomation(name: "apps", path: "./apps") + selector],
                      tags: #"{"ghcr.io/acme/web": ["1.0.0"]}"#)
        }
        #expect(error?.message == "ImageUpdateAutomation flux-system/apps: its policySelector has matchExpressions, which tagwarden "
                                  + "does not evaluate; use matchLabels")
    }
}
