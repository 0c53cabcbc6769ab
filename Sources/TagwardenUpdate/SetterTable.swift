import TagwardenBasics
import TagwardenModel

/// What one Flux's run of an ImageUpdateAutomation writes for each marker value, as image-automation-controller builds
/// its setter table per run: from the policies of its cluster, in the automation's namespace, that its `policySelector`
/// takes and that select a tag. A marker whose value is not in the table is left alone, as Flux leaves it (silently;
/// the linter reports it).
public struct SetterTable: Sendable, Equatable {
    /// Marker value (`ns:name`, `ns:name:tag`, `ns:name:name`, `ns:name:digest`) → the value written.
    public let values: [String: String]
    /// `ns:name` of a policy of the repository that is not in the table → why not (another namespace, not taken by
    /// the policySelector, another cluster's, selects no tag). A marker naming a policy in neither is one the
    /// repository does not define.
    let absent: [String: Absence]
    /// The `ns:name` of the policies the automation would use but that select no tag: an error, not a choice.
    public let failed: Set<String>

    public init(values: [String: String], whyAbsent: [String: String] = [:], failed: Set<String> = []) {
        self.init(values: values, absent: whyAbsent.mapValues(Absence.text), failed: failed)
    }

    init(values: [String: String], absent: [String: Absence], failed: Set<String>) {
        self.values = values
        self.absent = absent
        self.failed = failed
    }

    /// Why the policy `ns:name` is not in the table, if it is one of the repository's.
    public func whyAbsent(_ key: String) -> String? { absent[key]?.message }

    /// Every policy not in the table, and why.
    public var whyAbsent: [String: String] { absent.mapValues(\.message) }

    /// `ns:name` as a message names the policy, `ns/name`.
    static func named(_ key: String) -> String { key.replacingOccurrences(of: ":", with: "/") }

    /// Why a policy is not in the table, kept in parts and put into words when asked: a run's table leaves out every
    /// policy of the other clusters (thousands in a fleet), of which the markers it writes name almost none.
    enum Absence: Sendable, Equatable {
        case otherNamespace(namespace: String?, name: String, automationNamespace: String?)
        case notApplied(key: String, cluster: String)
        case otherBuild(key: String, repository: String, image: String?, cluster: String)
        case notSelected(key: String)
        case text(String)

        var message: String {
            switch self {
            case let .otherNamespace(namespace, name, automationNamespace):
                return "ImagePolicy \(namespace ?? "")/\(name) is not in the automation's namespace \(automationNamespace ?? "(none)"); "
                    + "Flux only uses policies of its own namespace"
            case let .notApplied(key, cluster):
                return "ImagePolicy \(named(key)) is not applied by cluster \(cluster), whose Flux runs this automation"
            case let .otherBuild(key, repository, image, cluster):
                return "ImagePolicy \(named(key)) reads ImageRepository \(repository) as another cluster's build makes it "
                    + "(\(image ?? "no image")), not as cluster \(cluster) does: not written"
            case let .notSelected(key):
                return "the automation's policySelector does not take ImagePolicy \(named(key))"
            case let .text(message):
                return message
            }
        }
    }

    /// The table of automation `a` as the Flux of `cluster` runs it (nil: the repository does not tell which cluster
    /// runs it), from the policies' outcomes. Two policies of one namespace and name in two clusters are two policies:
    /// the run takes its own cluster's. Where the run's policies of one name choose differently (one cluster applies
    /// both, or nothing tells which cluster runs the automation), Flux's choice is not known here: not written.
    public static func build(_ model: Model, automation a: AutomationID, cluster: ClusterID?, outcomes: [PolicyOutcome]) throws -> SetterTable {
        let automation = model.flux.automations[a]
        if automation.spec.policySelectorExpressions {
            // not guessed: a wrong guess writes what Flux would not
            let name = model.objects[automation.object].name ?? ""
            throw TagwardenError("ImageUpdateAutomation \(automation.namespace ?? "<no namespace>")/\(name): its policySelector has "
                                 + "matchExpressions, which tagwarden does not evaluate; use matchLabels")
        }
        var absent: [String: Absence] = [:]
        // the run's policies by `ns:name`: each with the value it writes (nil: it selects no tag)
        var taken: [String: [(outcome: PolicyOutcome, value: String?)]] = [:]
        for o in outcomes {
            let policy = model.flux.policies[o.policy]
            // a policy without a namespace of its own is in the automation's
            let key = "\(policy.namespace ?? automation.namespace ?? ""):\(policy.name)"
            guard FluxIndex.sameNamespace(policy.namespace, automation.namespace) else {
                if absent[key] == nil { absent[key] = .otherNamespace(namespace: policy.namespace, name: policy.name, automationNamespace: automation.namespace) }
                continue
            }
            // (one in a file no cluster here reaches may be applied from outside, as the audit takes it: Flux's cluster
            // may have it, squaremo/xamaral's generated prod/all.yaml)
            if let cluster, !model.clusters(deploying: policy.object).contains(cluster),
               model.clusters.reach[model.objects[policy.object].file] != .unreached {
                if absent[key] == nil { absent[key] = .notApplied(key: key, cluster: model.clusters.clusters[cluster].displayName) }
                continue
            }
            // its ImageRepository as another cluster's build makes it (a shared base substituted per cluster): this
            // cluster's is another outcome's, when the cluster makes one of the name
            if let cluster, let r = o.repository ?? policy.repository, !model.clusters(deploying: model.flux.repositories[r].object).contains(cluster),
               model.clusters.reach[model.objects[model.flux.repositories[r].object].file] != .unreached {
                if absent[key] == nil {
                    absent[key] = .otherBuild(key: key, repository: model.flux.repositories[r].name, image: model.flux.repositories[r].spec.image?.value,
                                              cluster: model.clusters.clusters[cluster].displayName)
                }
                continue
            }
            guard model.flux.selectorTakes(automation: a, policy: o.policy) else {
                absent[key] = .notSelected(key: key)
                continue
            }
            let value = o.image.flatMap { image in o.tag.map { tag in (o.digest ?? "").isEmpty ? "\(image):\(tag)" : "\(image):\(tag)@\(o.digest!)" } }
            taken[key, default: []].append((o, value))
        }
        var values: [String: String] = [:]
        var failed: Set<String> = []
        // whether the candidates write more than one value
        func disagree(_ chosen: [(outcome: PolicyOutcome, value: String?)]) -> Bool {
            chosen.indices.dropFirst().contains { chosen[$0].value != chosen[0].value }
        }
        for (key, candidates) in taken {
            var chosen = candidates
            if disagree(chosen), cluster == nil {
                // no cluster tells: the automation's own environment's, when that settles it
                let own = chosen.filter { model.flux.policies[$0.outcome.policy].environment == automation.environment }
                if !own.isEmpty { chosen = own }
            }
            let named = Self.named(key)
            if disagree(chosen) {
                let places = chosen.map { c in
                    "\(model.files[model.objects[model.flux.policies[c.outcome.policy].object].file].path) (\(c.outcome.tag ?? "no tag"))"
                }
                absent[key] = .text("\(chosen.count) ImagePolicies \(named) that this run may use choose differently (\(places.joined(separator: ", "))), "
                    + (cluster == nil ? "and no cluster here tells which one the automation's Flux has; declare the clusters under clusters: in \(Config.fileName)"
                        : "and cluster \(model.clusters.clusters[cluster!].displayName) applies them all"))
                continue
            }
            let o = chosen[0].outcome
            if let why = o.leftAlone {
                absent[key] = .text(why)
                continue
            }
            guard let image = o.image, let tag = o.tag, let value = chosen[0].value else {
                absent[key] = .text("ImagePolicy \(named) selects no tag: \(o.error ?? "no tag")")
                failed.insert(key)
                continue
            }
            values[key] = value
            values[key + ":tag"] = tag
            values[key + ":name"] = image
            // Flux writes the digest even when the policy reflects none: the field becomes ""
            values[key + ":digest"] = o.digest ?? ""
        }
        for key in taken.keys where values[key] != nil { absent[key] = nil }
        return SetterTable(values: values, absent: absent, failed: failed)
    }
}
