import TagwardenBasics
import TagwardenModel

/// Whether Flux's image automation owns some fields: `update`'s plan for one image, given its tags, read for those
/// fields. A field whose marker an automation runs is written with what the policy selects at every scan, so a
/// promotion (or its rollback) written there holds only while the policy selects it: what `promote` and `rollback`
/// tell their user.
public enum AutomationOwnership {
    /// An automation's run and what it does to one field.
    public struct Field: Sendable, Equatable {
        public let file: String
        public let line: Int
        /// The marker's `$imagepolicy` value.
        public let setter: String
        /// The run, as `update` names it (`flux-system/flux-system (cluster clusters/production)`), and its automation.
        public let run: String
        public let namespace: String
        public let name: String
        /// What the run writes, when it changes the field; nil when the policy selects what the field holds.
        public let writes: String?

        /// The policy, `namespace/name`.
        public var policy: String { setter.split(separator: ":").prefix(2).joined(separator: "/") }

        /// As `promote` and `rollback` report it in JSON.
        public var json: JSON {
            .object([("file", .string(file)), ("line", .int(line)), ("marker", .string(setter)), ("automation", .string(run)),
                     ("writes", writes.map(JSON.string) ?? .null)])
        }
    }

    /// The runs' verdicts on the markers of `image` (a normalised name) in the files at `paths`, with only that
    /// image's policies evaluated, on `tags`. Markers a run skips (another image's, no policy, an unreadable file) are
    /// left out; `notes` says what could not be judged.
    public static func fields(_ model: Model, files: [SourceFile], image: String, tags: some TagSource,
                              paths: Set<String>) -> (fields: [Field], notes: [String]) {
        var options = PlanOptions()
        options.images = [image]
        options.partial = true
        let plan: UpdatePlan
        do { plan = try Updater.plan(model, files: files, tags: tags, options: options) } catch {
            return ([], ["whether an automation writes these fields was not judged: \((error as? TagwardenError)?.message ?? "\(error)")"])
        }
        var out: [Field] = []
        for run in plan.automations {
            let changes = Dictionary(run.changes.map { ("\($0.file):\($0.line)", $0) }, uniquingKeysWith: { a, _ in a })
            for m in run.markers where paths.contains(m.file) {
                let change = changes["\(m.file):\(m.line)"]
                switch m.status {
                case .changed, .current:
                    out.append(Field(file: m.file, line: m.line, setter: m.setter, run: run.label, namespace: run.namespace, name: run.name,
                                     writes: change?.newValue))
                case .skipped:
                    continue
                }
            }
        }
        let notes = plan.errors.map { "not judged: \($0)" }
            + plan.policies.compactMap { p in p.leftAlone == nil && p.error != nil && !p.noTags && p.image.map { ImageReference.normalizeName($0) == image } == true
                ? "ImagePolicy \(model.flux.policies[p.policy].namespace ?? "")/\(model.flux.policies[p.policy].name) selects nothing: \(p.error!)" : nil }
        return (out, notes)
    }
}

/// Tags already known, for one image under every name that normalises to it; `digest` asks for one tag's digest when
/// the listing has none (a registry's HEAD), or nil.
public struct ListedTags: TagSource {
    let image: String
    let records: [TagRecord]
    let digestOf: ((String) throws -> String?)?

    public init(image: String, records: [TagRecord], digest: ((String) throws -> String?)? = nil) {
        self.image = ImageReference.normalizeName(image) ?? image
        self.records = records
        self.digestOf = digest
    }

    public func tags(of image: String) throws -> [TagRecord]? {
        ImageReference.normalizeName(image) == self.image ? records : nil
    }

    public func digest(of image: String, tag: String) throws -> String? {
        guard ImageReference.normalizeName(image) == self.image else { return nil }
        if let known = records.first(where: { $0.tag == tag })?.digest { return known }
        return try digestOf?(tag)
    }
}
