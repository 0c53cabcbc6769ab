import TagwardenBasics
import TagwardenModel

/// What one ImageUpdateAutomation writes for each marker value, as image-automation-controller builds its setter table
/// per run: from the policies in the automation's namespace that its `policySelector` takes and that select a tag.
/// A marker whose value is not in the table is left alone, as Flux leaves it (silently; the linter reports it).
public struct SetterTable: Sendable, Equatable {
    /// Marker value (`ns:name`, `ns:name:tag`, `ns:name:name`, `ns:name:digest`) → the value written.
    public let values: [String: String]
    /// `ns:name` of a policy of the repository that is not in the table → why not (another namespace, not taken by
    /// the policySelector, selects no tag). A marker naming a policy in neither is one the repository does not define.
    public let whyAbsent: [String: String]
    /// The `ns:name` of the policies the automation would use but that select no tag: an error, not a choice.
    public let failed: Set<String>

    public init(values: [String: String], whyAbsent: [String: String] = [:], failed: Set<String> = []) {
        self.values = values
        self.whyAbsent = whyAbsent
        self.failed = failed
    }

    /// The table of automation `a` (`Model.flux.automations` index), from the policies' outcomes.
    public static func build(_ model: Model, automation a: AutomationID, outcomes: [PolicyOutcome]) throws -> SetterTable {
        let automation = model.flux.automations[a]
        if automation.spec.policySelectorExpressions {
            // not guessed: a wrong guess writes what Flux would not
            let name = model.objects[automation.object].name ?? ""
            throw TagwardenError("ImageUpdateAutomation \(automation.namespace ?? "<no namespace>")/\(name): its policySelector has "
                                 + "matchExpressions, which tagwarden does not evaluate; use matchLabels")
        }
        var values: [String: String] = [:]
        var whyAbsent: [String: String] = [:]
        var failed: Set<String> = []
        for o in outcomes {
            let policy = model.flux.policies[o.policy]
            // a policy without a namespace of its own is in the automation's
            let key = "\(policy.namespace ?? automation.namespace ?? ""):\(policy.name)"
            guard FluxIndex.sameNamespace(policy.namespace, automation.namespace) else {
                whyAbsent[key] = whyAbsent[key] ?? "ImagePolicy \(policy.namespace ?? "")/\(policy.name) is not in the automation's "
                    + "namespace \(automation.namespace ?? "(none)"); Flux only uses policies of its own namespace"
                continue
            }
            guard model.flux.selectorTakes(automation: a, policy: o.policy) else {
                whyAbsent[key] = "the automation's policySelector does not take ImagePolicy \(key.replacingOccurrences(of: ":", with: "/"))"
                continue
            }
            guard let image = o.image, let tag = o.tag else {
                whyAbsent[key] = "ImagePolicy \(key.replacingOccurrences(of: ":", with: "/")) selects no tag: \(o.error ?? "no tag")"
                failed.insert(key)
                continue
            }
            let digest = o.digest ?? ""
            values[key] = digest.isEmpty ? "\(image):\(tag)" : "\(image):\(tag)@\(digest)"
            values[key + ":tag"] = tag
            values[key + ":name"] = image
            // Flux writes the digest even when the policy reflects none: the field becomes ""
            values[key + ":digest"] = digest
        }
        return SetterTable(values: values, whyAbsent: whyAbsent, failed: failed)
    }
}
