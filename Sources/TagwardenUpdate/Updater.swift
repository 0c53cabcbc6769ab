import TagwardenBasics
import TagwardenYAML
import TagwardenModel

/// One ImageUpdateAutomation's part of an update: what its setters change, or why it did not run.
public struct AutomationUpdate: Sendable {
    /// `Model.flux.automations` index.
    public let automation: AutomationID
    public let namespace: String
    public let name: String
    /// The `update.path`s it covers, as Flux joins them ("" for the whole repository).
    public let paths: [String]
    /// Why it was not run (suspended, another repository's, an unresolved path, an invalid reference); nil when it ran.
    public let skipped: String?
    /// Whether `skipped` is an error (an invalid reference aborts Flux's run too), not a choice (suspended).
    public let failed: Bool
    public let table: SetterTable
    /// What its setters do, over all its paths.
    public let markers: [MarkerOutcome]
    public let unreadable: [(path: String, reason: String)]
    public let changes: [SetterChange]
    /// Files it changes, as it leaves them.
    public let rewrites: [FileRewrite]
    /// The commit message its changes get (its messageTemplate rendered with Flux's data), or why Flux could not
    /// render it; nil when nothing changes.
    public let message: Result<String, TagwardenError>?
}

/// What `tagwarden update` does to a repository: each automation run in turn (by namespace and name), as Flux
/// runs them, each on the files as the one before left them.
public struct UpdatePlan: Sendable {
    public let policies: [PolicyOutcome]
    public let automations: [AutomationUpdate]
    /// Each file that changes, from its bytes before the first automation to its bytes after the last, with the
    /// changes of all of them, in path order.
    public let files: [FileRewrite]
    /// What stops the update being what Flux would do: a policy an automation uses selects no tag, a file with
    /// markers Flux cannot read, an automation Flux would abort. Each names the file or object.
    public let errors: [String]
    /// What Flux does silently and a user should know: files with the marker token that Flux cannot read, so skips.
    public let warnings: [String]

    public var changes: [SetterChange] { files.flatMap(\.changes) }
}

public enum Updater {
    /// Plans the update of the repository whose files are `files` (the same the Model was built from), with tags
    /// from `source`; `only` (namespace, name) runs one automation.
    public static func plan(_ model: Model, files: [SourceFile], tags source: some TagSource,
                            only: (namespace: String, name: String)? = nil) throws -> UpdatePlan {
        let outcomes = try PolicyEvaluation.evaluate(model, tags: source)
        Timings.mark("policies")
        var order = model.flux.automations.indices.map { a in
            (a, model.flux.automations[a].namespace ?? "", model.objects[model.flux.automations[a].object].name ?? "")
        }
        order.sort { ($0.1, $0.2) < ($1.1, $1.2) }
        if let only {
            order = order.filter { $0.1 == only.namespace && $0.2 == only.name }
            guard !order.isEmpty else {
                let known = model.flux.automations.map { "\($0.namespace ?? "")/\(model.objects[$0.object].name ?? "")" }.sorted()
                throw TagwardenError("no ImageUpdateAutomation \(only.namespace)/\(only.name) in the repository"
                                     + (known.isEmpty ? " (it has none)" : "; it has \(known.joined(separator: ", "))"))
            }
        }
        // the markers the Model read, by file: a file no automation has changed yet is not parsed again
        let fileIndex = Dictionary(model.files.indices.map { (model.files[$0].path, $0) }, uniquingKeysWith: { a, _ in a })
        var markersOf: [FileID: [MarkerID]] = [:]
        for (k, m) in model.markers.withIDs where m.context == .value { markersOf[m.file, default: []].append(k) }
        let byFile = markersOf
        let known: @Sendable (SourceFile) -> MarkedFile? = { file in
            guard let f = fileIndex[file.path], model.files[f].bytes == file.bytes else { return nil }
            return MarkedFile(model: model, file: f, markers: byFile[f] ?? [])
        }
        var current: [String: SourceFile] = [:]
        for f in files { current[f.path] = f }
        let original = current
        var runs: [AutomationUpdate] = []
        var errors: [String] = []
        var warnings: [String] = []
        var changed: [String: [SetterChange]] = [:]
        for (a, namespace, name) in order {
            let automation = model.flux.automations[a]
            let spec = automation.spec
            func skipped(_ why: String, failed: Bool = false, table: SetterTable = SetterTable(values: [:])) -> AutomationUpdate {
                AutomationUpdate(automation: a, namespace: namespace, name: name, paths: automation.paths, skipped: why, failed: failed,
                                 table: table, markers: [], unreadable: [], changes: [], rewrites: [], message: nil)
            }
            if spec.suspended { runs.append(skipped("suspended (spec.suspend: true)")); continue }
            if spec.updatesElsewhere { runs.append(skipped("its GitRepository is another repository")); continue }
            if let strategy = spec.strategy?.value, strategy != "Setters" {
                runs.append(skipped("update strategy '\(strategy)' is not Setters", failed: true)); continue
            }
            if automation.unresolved {
                runs.append(skipped("its update.path uses variables nothing here substitutes")); continue
            }
            // a template for objects made elsewhere (`${BRANCH}-updater`): Flux never sees it as written
            if let unsubstituted = [name, spec.checkoutBranch ?? "", spec.pushBranch?.value ?? "", spec.sourceName?.value ?? ""]
                .first(where: { $0.contains("${") }) {
                runs.append(skipped("it is a template: '\(unsubstituted)' holds variables nothing here substitutes")); continue
            }
            let table = try SetterTable.build(model, automation: a, outcomes: outcomes)
            // Flux parses every whole reference before it writes anything, and gives up on the run when one fails
            let references = table.values.filter { entry in entry.key.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ":") ? 1 : 0) } == 1 }
            if let bad = references.filter({ if case .failure = ImageReference.parse($0.value) { true } else { false } })
                .min(by: { $0.key < $1.key }) {
                let why = "encountered invalid image ref \"\(bad.value)\" (policy \(bad.key.replacingOccurrences(of: ":", with: "/")))"
                errors.append("ImageUpdateAutomation \(namespace)/\(name): \(why)")
                runs.append(skipped(why, failed: true, table: table))
                continue
            }
            var markers: [MarkerOutcome] = []
            var unreadable: [(path: String, reason: String)] = []
            var changes: [SetterChange] = []
            var rewrites: [String: FileRewrite] = [:]
            for root in automation.paths {
                let run = Setters.run(Array(current.values), under: root, table: table, known: known)
                markers += run.markers
                unreadable += run.unreadable
                for w in run.rewrites {
                    let f = current[w.path]!
                    current[w.path] = SourceFile(path: f.path, bytes: w.after, namedByBuild: f.namedByBuild)
                    rewrites[w.path] = FileRewrite(path: w.path, before: rewrites[w.path]?.before ?? w.before, after: w.after,
                                                   changes: (rewrites[w.path]?.changes ?? []) + w.changes)
                    changes += w.changes
                    changed[w.path, default: []] += w.changes
                }
            }
            for m in markers {
                if case .skipped(let why) = m.status, why.hasPrefix("not written") {
                    warnings.append("\(m.file):\(m.line): \(m.setter): \(why)")
                }
            }
            for u in unreadable {
                warnings.append("\(u.path): Flux cannot read this file and skips its markers: \(u.reason)")
            }
            for key in Set(markers.filter { table.failed.contains($0.policy) }.map(\.policy)).sorted() {
                errors.append(table.whyAbsent[key] ?? "ImagePolicy \(key) selects no tag")
            }
            Timings.mark("setters")
            var message: Result<String, TagwardenError>?
            if !changes.isEmpty {
                // the commit data of the Flux that runs the automation (the oldest, where several do)
                let flux = model.fluxVersion(ofFile: model.objects[automation.object].file)
                let data = CommitMessage.data(namespace: namespace, name: name, root: automation.paths.first ?? "", changes: changes,
                                              values: spec.messageTemplateValues, flux: flux, references: table.values)
                message = Result { try CommitMessage.render(spec.messageTemplate?.value, data: data) }.mapError { ($0 as? TagwardenError) ?? TagwardenError("\($0)") }
                if case .failure(let e) = message { errors.append("ImageUpdateAutomation \(namespace)/\(name): \(e.message)") }
            }
            Timings.mark("message")
            runs.append(AutomationUpdate(automation: a, namespace: namespace, name: name, paths: automation.paths, skipped: nil, failed: false,
                                         table: table, markers: markers, unreadable: unreadable, changes: changes,
                                         rewrites: rewrites.values.sorted { SourceText.byteLess($0.path, $1.path) }, message: message))
        }
        let files = changed.keys.sorted { SourceText.byteLess($0, $1) }.compactMap { path -> FileRewrite? in
            let before = original[path]!.bytes, after = current[path]!.bytes
            return before == after ? nil : FileRewrite(path: path, before: before, after: after, changes: changed[path]!)
        }
        var seen: Set<String> = []
        return UpdatePlan(policies: outcomes, automations: runs, files: files, errors: errors.filter { seen.insert($0).inserted },
                          warnings: warnings.filter { seen.insert($0).inserted })
    }
}
