import TagwardenBasics
import TagwardenYAML
import TagwardenModel

/// One Flux's run of an ImageUpdateAutomation: the cluster whose Flux runs it (the same automation applied by two
/// clusters is run by both, each with its own policies), the update.path it has there, and the Flux version whose data
/// its commit message gets.
public struct AutomationRun: Sendable {
    public let automation: AutomationID
    /// nil where the repository does not tell which cluster runs it.
    public let cluster: ClusterID?
    /// The `update.path`s it covers, as Flux joins them ("" for the whole repository): one, unless the path is
    /// substituted and nothing tells the cluster's build.
    public let paths: [String]
    public let flux: FluxVersion
    /// Where `flux` is assumed, not read: what is assumed and the config key that settles it.
    public let fluxPremise: String?
    /// The `messageTemplate` as the cluster's build substitutes it; nil: as written.
    public var messageTemplate: String? = nil
}

/// One ImageUpdateAutomation's run (`AutomationRun`): what its setters change, or why it did not run.
public struct AutomationUpdate: Sendable {
    /// `Model.flux.automations` index.
    public let automation: AutomationID
    public let namespace: String
    public let name: String
    /// The cluster whose Flux runs it (its display name); nil where the repository does not tell.
    public let cluster: String?
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

    /// `namespace/name`, and the cluster where there is one.
    public var label: String { RunSelection(namespace: namespace, name: name, cluster: cluster).label }
}

/// What `tagwarden update` does to a repository: each automation run in turn (by namespace and name, then cluster), as
/// Flux runs them, each on the files as the one before left them.
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
    /// What this run leaves alone by choice (`--image`, `--partial`): the policies whose fields it does not update.
    public var notes: [String] = []

    public var changes: [SetterChange] { files.flatMap(\.changes) }
}

/// What `Updater.plan` updates, beyond Flux's own choices.
public struct PlanOptions {
    /// One automation's runs.
    public var only: RunSelection?
    /// Only the policies of these images (normalised names) are updated; the others are left alone with a note.
    public var images: Set<String>?
    /// Policies whose image the tag source does not know are left alone with a note, not an error.
    public var partial = false
    /// The files as the plan would leave them → the changed lines a rule at error rejects (`file:line` → the finding):
    /// those changes are not written. nil: everything Flux would write is written.
    public var guardWrites: (([SourceFile]) throws -> [String: String])?

    public init(only: RunSelection? = nil) { self.only = only }
}

/// Which runs `Updater.plan` makes: one automation (namespace and name), in one cluster (its display name) or all.
public struct RunSelection: Sendable {
    public var namespace: String
    public var name: String
    public var cluster: String?

    public init(namespace: String, name: String, cluster: String? = nil) {
        self.namespace = namespace
        self.name = name
        self.cluster = cluster
    }

    /// Run `run` of `model`, named as a selection names it.
    public init(_ run: AutomationRun, of model: Model) {
        let automation = model.flux.automations[run.automation]
        self.init(namespace: automation.namespace ?? "", name: model.objects[automation.object].name ?? "",
                  cluster: run.cluster.map { model.clusters.clusters[$0].displayName })
    }

    /// `namespace/name`, and the cluster where there is one.
    public var label: String { "\(namespace)/\(name)" + (cluster.map { " (cluster \($0))" } ?? "") }

    /// Whether this selection takes the run named `run` (any cluster's, where it names none).
    public func selects(_ run: RunSelection) -> Bool {
        run.namespace == namespace && run.name == name && (cluster == nil || run.cluster == cluster)
    }

    /// The runs of `all` (named as selections) it takes; none is an error that lists them.
    public func select<Run>(_ all: [(Run, RunSelection)]) throws -> [(Run, RunSelection)] {
        let taken = all.filter { selects($0.1) }
        guard taken.isEmpty else { return taken }
        let known = all.map(\.1.label)
        throw TagwardenError("no ImageUpdateAutomation \(namespace)/\(name)" + (cluster.map { " in cluster \($0)" } ?? "") + " in the repository"
                             + (known.isEmpty ? " (it has none)" : "; it has \(known.joined(separator: ", "))"))
    }
}

public enum Updater {
    /// Every run of the repository's automations, in the order Flux's would be read here: by namespace and name, then
    /// by cluster.
    public static func runs(_ model: Model) -> [AutomationRun] {
        var runs: [(key: [String], run: AutomationRun)] = []
        for (a, automation) in model.flux.automations.withIDs {
            let name = model.objects[automation.object].name ?? ""
            let clusters = model.clusters(deploying: automation.object)
            for c in clusters.isEmpty ? [nil] : clusters.map(Optional.some) {
                var paths = automation.paths
                if let c, !automation.pathOfBuild.isEmpty {
                    // a substituted path: the one this cluster's build makes
                    let own = model.clusters.clusters[c].kustomizations.compactMap { k in automation.pathOfBuild[k].map { (k, $0) } }
                    if !own.isEmpty { paths = FluxIndex.distinctTexts(own) }
                }
                let (flux, premise) = fluxOf(model, cluster: c)
                var run = AutomationRun(automation: a, cluster: c, paths: paths, flux: flux, fluxPremise: premise)
                // Flux substitutes the whole object: its message template too
                let builds = c.map { model.clusters.clusters[$0].kustomizations } ?? Array(automation.messageOfBuild.keys).sorted()
                let messages = Set(builds.compactMap { automation.messageOfBuild[$0] })
                if messages.count == 1 { run.messageTemplate = messages.first }
                runs.append(([automation.namespace ?? "", name, c.map { model.clusters.clusters[$0].name } ?? ""], run))
            }
        }
        return runs.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.run)
    }

    /// The Flux that runs an automation of `cluster` (nil: of no cluster here), and the premise where it is assumed.
    static func fluxOf(_ model: Model, cluster: ClusterID?) -> (FluxVersion, String?) {
        if let v = model.config.fluxVersion { return (v, nil) }
        if let cluster {
            if let v = model.clusters.clusters[cluster].flux { return (v, nil) }
            return (.current, model.fluxAssumption(FluxRun(version: .current, cluster: cluster, origin: nil), holdsFrom: nil))
        }
        if let only = model.clusters.only { return (only.version, nil) }
        if let oldest = model.clusters.installations.min(by: { $0.version < $1.version }) {
            return (oldest.version, "no cluster here applies the automation, so the oldest Flux installed in the repository "
                    + "(\(oldest.version), \(oldest.origin)) is assumed to run it; set fluxVersion in \(Config.fileName)")
        }
        return (.current, model.fluxAssumption(FluxRun(version: .current, cluster: nil, origin: nil), holdsFrom: nil))
    }

    /// Plans the update of the repository whose files are `files` (the same the Model was built from), with tags
    /// from `source`; `only` runs one automation.
    public static func plan(_ model: Model, files: [SourceFile], tags source: some TagSource, only: RunSelection? = nil) throws -> UpdatePlan {
        try plan(model, files: files, tags: source, options: PlanOptions(only: only))
    }

    /// Plans the update as `options` say: the changes a guard rejects are planned again without them.
    public static func plan(_ model: Model, files: [SourceFile], tags source: some TagSource, options: PlanOptions) throws -> UpdatePlan {
        var outcomes = try PolicyEvaluation.evaluate(model, tags: source, only: options.images)
        Timings.mark("policies")
        var notes: [String] = []
        let others = outcomes.filter { $0.leftAlone != nil }.count
        for k in outcomes.indices where options.partial && outcomes[k].noTags && outcomes[k].leftAlone == nil {
            let p = model.flux.policies[outcomes[k].policy]
            outcomes[k].leftAlone = "left alone: the tag list has no tags of \(outcomes[k].image ?? "its image") (--partial)"
            notes.append("ImagePolicy \(p.namespace ?? "")/\(p.name): \(outcomes[k].leftAlone!)")
        }
        var plan = try plan(model, files: files, outcomes: outcomes, only: options.only, withheld: [:])
        if let guardWrites = options.guardWrites, !plan.files.isEmpty {
            let changed = Set(plan.changes.map { "\($0.file):\($0.line)" })
            let withheld = try guardWrites(files.applying(plan.files)).filter { changed.contains($0.key) }
            if !withheld.isEmpty { plan = try self.plan(model, files: files, outcomes: outcomes, only: options.only, withheld: withheld) }
        }
        if others > 0 { notes.append("--image: the fields of \(others) other ImagePolic\(others == 1 ? "y" : "ies") are left alone") }
        plan.notes = notes + plan.notes
        return plan
    }

    static func plan(_ model: Model, files: [SourceFile], outcomes: [PolicyOutcome], only: RunSelection?,
                     withheld: [String: String]) throws -> UpdatePlan {
        var order = runs(model)
        if let only { order = try only.select(order.map { ($0, RunSelection($0, of: model)) }).map(\.0) }
        // the markers the Model read, by file: a file no automation has changed yet is not parsed again
        let fileIndex = Dictionary(model.files.indices.map { (model.files[$0].path, $0) }, uniquingKeysWith: { a, _ in a })
        var markersOf: [FileID: [MarkerID]] = [:]
        for (k, m) in model.markers.withIDs where m.context == .value { markersOf[m.file, default: []].append(k) }
        let byFile = markersOf
        let known: @Sendable (SourceFile) -> MarkedFile? = { file in
            guard let f = fileIndex[file.path], model.files[f].bytes == file.bytes else { return nil }
            return MarkedFile(model: model, file: f, markers: byFile[f] ?? [])
        }
        var state = PlanState(files: files)
        state.withheld = withheld
        // the runs' setter tables, made on all cores before the runs (which take one another's files, not their tables);
        // a table's error counts only where its run reaches it
        let runs = order
        let tables = concurrentMap(runs.count, chunkSize: 1, makeState: {}) { _, k in
            Result { try SetterTable.build(model, automation: runs[k].automation, cluster: runs[k].cluster, outcomes: outcomes) }
        }
        for (run, table) in zip(order, tables) {
            state.runs.append(try update(run, table: table, model: model, outcomes: outcomes, known: known, fileIndex: fileIndex, state: &state))
        }
        return state.plan(outcomes)
    }

    /// The files as the runs so far leave them, and what the plan reports.
    struct PlanState {
        var current: [String: SourceFile] = [:]
        let original: [String: SourceFile]
        var runs: [AutomationUpdate] = []
        var errors: [String] = []
        var warnings: [String] = []
        var notes: [String] = []
        var changed: [String: [SetterChange]] = [:]
        /// Changes not to write (`file:line` → why).
        var withheld: [String: String] = [:]
        /// Each marker written so far (file, line, column) → the value and the run that wrote it.
        var written: [String: (value: String, by: String)] = [:]

        init(files: [SourceFile]) {
            for f in files { current[f.path] = f }
            original = current
        }

        func plan(_ outcomes: [PolicyOutcome]) -> UpdatePlan {
            let files = changed.keys.sorted { SourceText.byteLess($0, $1) }.compactMap { path -> FileRewrite? in
                let before = original[path]!.bytes, after = current[path]!.bytes
                return before == after ? nil : FileRewrite(path: path, before: before, after: after, changes: changed[path]!)
            }
            var seen: Set<String> = []
            var plan = UpdatePlan(policies: outcomes, automations: runs, files: files, errors: errors.filter { seen.insert($0).inserted },
                                  warnings: warnings.filter { seen.insert($0).inserted })
            plan.notes = notes
            return plan
        }
    }

    /// Whether a cluster applies `automation`'s file, so that it runs.
    enum Applied {
        case yes
        /// Not known: run on this premise, which a note states.
        case assumed(String)
        /// Not applied: not run, and why (a warning).
        case no(String)
    }

    /// Whether `automation` runs: not when its file is known not to be deployed, nor when the repository describes its
    /// clusters (flux bootstrap's or a FluxInstance's sync, or `clusters:` in the config) and neither they nor a Flux
    /// Kustomization of the repository applies it — an example under `docs/`, pushed with the runner's credentials if
    /// it ran. A file that only a Flux Kustomization no cluster here applies builds is taken to be applied by hand
    /// (`kubectl apply -f infra-sync.yaml`), a premise. Where the repository describes no cluster (its clusters, if
    /// any, are only inferred: applied from outside), each automation runs, as before.
    static func applied(_ model: Model, _ automation: FluxIndex.Automation) -> Applied {
        let file = model.objects[automation.object].file
        let path = model.files[file].path
        switch model.clusters.reach[file] {
        case .notDeployed(let why):
            return .no("no cluster applies \(path): \(why)")
        case .unreached where model.clusters.clusters.contains(where: { $0.inferred == nil }):
            let unapplied = Set(model.clusters.unapplied)
            if let k = (model.clusters.kustomizationsOfFile[file] ?? []).first(where: { k in
                guard unapplied.contains(k) else { return false }
                if case .notDeployed = model.clusters.reach[model.objects[k].file] { return false }
                return true
            }) {
                return .assumed("run on the premise that Flux Kustomization \(model.qualifiedName(k)) (\(model.files[model.objects[k].file].path)), "
                                + "which builds \(path) and which no cluster here applies, is applied from outside; declare that cluster under "
                                + "clusters: in \(Config.fileName) to settle it")
            }
            return .no("no cluster this repository describes (flux bootstrap's sync, a FluxInstance's, or clusters: in \(Config.fileName)), "
                       + "and no Flux Kustomization of it, applies \(path), so it is not run here; if a cluster applies it from outside "
                       + "(kubectl apply), declare that cluster under clusters: in \(Config.fileName)")
        default:
            return .yes
        }
    }

    /// One run, on the files as `state` holds them.
    static func update(_ run: AutomationRun, table made: Result<SetterTable, any Error>, model: Model, outcomes: [PolicyOutcome],
                       known: @escaping @Sendable (SourceFile) -> MarkedFile?,
                       fileIndex: [String: FileID], state: inout PlanState) throws -> AutomationUpdate {
        let a = run.automation
        let automation = model.flux.automations[a]
        let spec = automation.spec
        let selection = RunSelection(run, of: model)
        let (namespace, name, clusterName) = (selection.namespace, selection.name, selection.cluster)
        func skipped(_ why: String, failed: Bool = false, table: SetterTable = SetterTable(values: [:])) -> AutomationUpdate {
            AutomationUpdate(automation: a, namespace: namespace, name: name, cluster: clusterName, paths: run.paths, skipped: why,
                             failed: failed, table: table, markers: [], unreadable: [], changes: [], rewrites: [], message: nil)
        }
        if spec.suspended { return skipped("suspended (spec.suspend: true)") }
        if spec.updatesElsewhere { return skipped("its GitRepository is another repository") }
        if let strategy = spec.strategy?.value, strategy != "Setters" { return skipped("update strategy '\(strategy)' is not Setters", failed: true) }
        if automation.unresolved {
            let variables = Envsubst.variables(spec.updatePath?.value ?? "") ?? []
            return skipped("its update.path '\(spec.updatePath?.value ?? "")' uses \(variables.map { "${\($0)}" }.joined(separator: ", ")), "
                           + "which nothing here substitutes; give the value under clusters[].substitute in \(Config.fileName)")
        }
        // a template for objects made elsewhere (`${BRANCH}-updater`): Flux never sees it as written
        if let unsubstituted = [name, spec.checkoutBranch ?? "", spec.pushBranch?.value ?? "", spec.sourceName?.value ?? ""]
            .first(where: { $0.contains("${") }) {
            return skipped("it is a template: '\(unsubstituted)' holds variables nothing here substitutes")
        }
        // a GitRepository that is nowhere, where this repository describes the cluster: Flux fails the automation
        if model.automationSourceIsMissing(automation), model.describesCluster(ofFile: model.objects[automation.object].file) {
            let source = (spec.sourceNamespace ?? automation.namespace ?? "<no namespace>") + "/" + (spec.sourceName?.value ?? "")
            return skipped("its GitRepository \(source) is not in the repository, so Flux fails it (automation-unknown-source)", failed: true)
        }
        let label = "ImageUpdateAutomation " + selection.label
        if run.cluster == nil {
            switch applied(model, automation) {
            case .yes: break
            case .assumed(let premise): state.notes.append("\(label): \(premise)")
            case .no(let why):
                state.warnings.append("\(label): not run: \(why)")
                return skipped(why)
            }
        }
        let table = try made.get()
        // Flux parses every whole reference before it writes anything, and gives up on the run when one fails
        var firstBad: (key: String, value: String)?
        for entry in table.values where entry.key.utf8.count(where: { $0 == UInt8(ascii: ":") }) == 1 {
            if case .failure = ImageReference.parse(entry.value), firstBad.map({ entry.key < $0.key }) ?? true { firstBad = entry }
        }
        if let bad = firstBad {
            let why = "encountered invalid image ref \"\(bad.value)\" (policy \(bad.key.replacingOccurrences(of: ":", with: "/")))"
            state.errors.append("\(label): \(why)")
            return skipped(why, failed: true, table: table)
        }
        var markers: [MarkerOutcome] = []
        var unreadable: [(path: String, reason: String)] = []
        var changes: [SetterChange] = []
        var rewrites: [String: FileRewrite] = [:]
        for root in run.paths {
            let result = Setters.run(Array(state.current.values), under: root, table: table, known: known, withheld: state.withheld)
            markers += result.markers
            unreadable += result.unreadable
            for w in result.rewrites {
                let f = state.current[w.path]!
                state.current[w.path] = SourceFile(path: f.path, bytes: w.after, namedByBuild: f.namedByBuild)
                rewrites[w.path] = FileRewrite(path: w.path, before: rewrites[w.path]?.before ?? w.before, after: w.after,
                                               changes: (rewrites[w.path]?.changes ?? []) + w.changes)
                changes += w.changes
                state.changed[w.path, default: []] += w.changes
            }
        }
        for m in markers {
            if case .skipped(let why) = m.status, why.hasPrefix("not written") { state.warnings.append("\(m.file):\(m.line): \(m.setter): \(why)") }
        }
        for u in unreadable { state.warnings.append("\(u.path): Flux cannot read this file and skips its markers: \(u.reason)") }
        for key in Set(markers.filter { table.failed.contains($0.policy) }.map(\.policy)).sorted() {
            state.errors.append(table.whyAbsent(key) ?? "ImagePolicy \(key) selects no tag")
        }
        noteCrossings(changes, run: run, label: label, model: model, fileIndex: fileIndex, state: &state)
        Timings.mark("setters")
        var message: Result<String, TagwardenError>?
        if !changes.isEmpty {
            // a template whose variables no build here gives: Flux's message has their values, this one the text as written
            if run.messageTemplate == nil, let written = spec.messageTemplate?.value, written.contains("${"),
               let variables = Envsubst.variables(written), !variables.isEmpty {
                state.warnings.append("\(label): its messageTemplate uses \(variables.map { "${\($0)}" }.joined(separator: ", ")), which Flux "
                                      + "substitutes and nothing here gives: the message shows them as written; give them under "
                                      + "clusters[].substitute in \(Config.fileName)")
            }
            message = Result {
                try CommitMessage.render(run.messageTemplate ?? spec.messageTemplate?.value,
                                         data: CommitMessage.data(namespace: namespace, name: name, roots: run.paths, changes: changes,
                                                                  values: spec.messageTemplateValues, flux: run.flux, references: table.values))
            }.mapError { ($0 as? TagwardenError) ?? TagwardenError("\($0)") }
            if case .failure(let e) = message {
                // a message that fails only because of the Flux assumed: the assumption is said, not an error (a bound of
                // tagwarden's holds whichever Flux runs)
                if let premise = run.fluxPremise, !e.isBound {
                    state.warnings.append("\(label): \(e.message) (\(premise))")
                } else {
                    state.errors.append("\(label): \(e.message)")
                }
            }
        }
        Timings.mark("message")
        return AutomationUpdate(automation: a, namespace: namespace, name: name, cluster: clusterName, paths: run.paths, skipped: nil,
                                failed: false, table: table, markers: markers, unreadable: unreadable, changes: changes,
                                rewrites: rewrites.keys.sorted(by: SourceText.byteLess).map { rewrites[$0]! }, message: message)
    }

    /// What one cluster's run writes that another run undoes (two Flux installations that write one field differently
    /// overwrite each other on every scan), or that lands in files its cluster does not apply.
    static func noteCrossings(_ changes: [SetterChange], run: AutomationRun, label: String, model: Model, fileIndex: [String: FileID],
                              state: inout PlanState) {
        var foreign: [String: [String]] = [:]
        for c in changes {
            let at = "\(c.file):\(c.line):\(c.column)"
            if let before = state.written[at], before.value != c.newValue {
                state.errors.append("\(at): \(c.setter): \(before.by) writes \(before.value) and \(label) writes \(c.newValue): "
                                    + "each undoes the other on every run")
            }
            state.written[at] = (c.newValue, label)
            if let cluster = run.cluster, let f = fileIndex[c.file] {
                let applying = model.clusters.of(f)
                if !applying.isEmpty, !applying.contains(cluster) { foreign[c.file] = applying.map { model.clusters.clusters[$0].displayName } }
            }
        }
        for (file, clusters) in foreign.sorted(by: { $0.key < $1.key }) {
            state.warnings.append("\(file): \(label) writes this file, which \(clusters.count == 1 ? "cluster" : "clusters") "
                                  + "\(clusters.joined(separator: ", ")) \(clusters.count == 1 ? "applies" : "apply"), with its own cluster's policies")
        }
    }
}
