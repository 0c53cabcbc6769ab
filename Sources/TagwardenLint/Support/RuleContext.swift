import TagwardenBasics
import TagwardenYAML
import TagwardenModel

/// What a rule's check is given: the Model, and the rule it reports for. Findings are made here, so a rule's id is
/// written once, where the rule is declared, and every finding carries its file, span, object and environment.
public struct RuleContext: Sendable {
    /// The rule being run.
    public let rule: String
    public let model: Model
    /// Only for a rule that judges the suppressions (`Rule.judgesSuppressions`): each `# tagwarden:ignore` that
    /// matched a finding of another rule, as `Suppression.useKey`.
    public let suppressionsUsed: Set<String>
    /// What the registries say (`audit --registry`); nil when the audit stays offline, as it does by default.
    public let registry: RegistryFacts?

    init(rule: String, model: Model, suppressionsUsed: Set<String> = [], registry: RegistryFacts? = nil) {
        self.rule = rule
        self.model = model
        self.suppressionsUsed = suppressionsUsed
        self.registry = registry
    }

    /// A finding at a span of a file of the Model.
    public func finding(_ message: String, file: FileID, span: SourceSpan, object: ObjectID?, environment: String?) -> Finding {
        Finding(rule: rule, severity: .error, message: message, file: model.files[file].path, span: span,
                environment: environment, object: model.objectRef(object))
    }

    /// A finding at a path that may not be a file of the Model (a file that was not read).
    public func finding(_ message: String, path: String, span: SourceSpan, subject: String? = nil) -> Finding {
        Finding(rule: rule, severity: .error, message: message, file: path, span: span, subject: subject)
    }

    /// A finding about image `i`, in its environment (or in `environment`, one of those that deploy a shared base's
    /// image); its message ends with what made the reference (a substitution, a values file).
    public func finding(_ message: String, image i: ImageID, span: SourceSpan? = nil, environment: String? = nil) -> Finding {
        let img = model.images[i]
        // (the builds of a file no cluster here applies are the environments' by their paths: it is in them, not deployed by them)
        let unreached = if case .unreached = model.clusters.reach[img.file] { true } else { false }
        let builds = !img.writtenTagDeployedBy.isEmpty
            ? " (deployed \(img.invalid == nil ? "with this tag" : "as written") by \(img.writtenTagDeployedBy.joined(separator: ", "))"
                + (img.writtenTagRetaggedOnlyWithin ? ", which also take\(img.writtenTagDeployedBy.count == 1 ? "s" : "") it another way that replaces or drops it)"
                    : "; the other builds replace or drop it)")
            : img.deployedIn.isEmpty ? "" : " (\(unreached ? "in builds of" : "deployed by") \(img.deployedIn.joined(separator: ", "))"
                + (img.deployedAlsoBy.isEmpty ? ")" : ", and \(unreached ? "of" : "by") \(img.deployedAlsoBy.joined(separator: ", ")), of no environment)")
        var f = finding(message + (img.substitution?.note(model) ?? "") + (img.provenance.map { " (\($0))" } ?? "") + builds,
                        file: img.file, span: span ?? img.span, object: img.object, environment: environment ?? model.images[i].environment)
        f.subject = img.text   // a field that several builds substitute differently is several findings
        // a values field that gives only a tag: that the chart runs an image with it is its templates' business
        // (kyverno's 3.8 chart no longer reads the policyReportsCleanup image that PingCAP-QE/ee-ops still sets)
        // (a marker there says which image's tag Flux writes into it: the repository's own account of the field)
        if img.name == nil, img.tag != nil, img.origin == .helmParts, model.markedRepository(i) == nil {
            // (a patch's tag of a release whose base writes the repository beside it is that repository's)
            if let (repository, release) = model.patchedReleaseRepository(i) {
                f.message += " (the image is \(repository), which HelmRelease \(model.qualifiedName(release)) (\(model.path(model.objects[release].file))) "
                    + "writes beside the tag this patch replaces)"
            } else {
                f.assume("assuming the chart runs an image with this tag: the image's name is the chart's own, not read here")
            }
        }
        if let premise = img.premise { f.assume(premise) }
        // a component the values turn off renders no image in the charts that gate it so, as most do (thaynes43's vexa)
        if let off = img.disabledBy {
            f.ruleSeverity = .note
            f.assume("the values set \(off) to false: assuming the chart renders this image all the same, where most render such a "
                     + "component only when it is true")
        }
        // a chart's test hooks run only where the release has Flux run its tests
        if let key = img.helmTestKey, let release = img.object {
            f.ruleSeverity = .note
            f.assume("the values under \(key): give the image of the chart's helm test hooks, assuming the chart uses them so, as charts "
                     + "do (gitea's test-connection Pod): Flux runs a release's tests only with spec.test.enable, which HelmRelease "
                     + "\(model.qualifiedName(release)) does not set")
        }
        if img.writtenTagUnreached {
            f.assume("assuming \(img.writtenTagDeployedBy.count == 1 ? "that build is" : "those builds are") applied from outside this repository: no cluster here applies "
                     + (img.writtenTagDeployedBy.count == 1 ? "it" : "them"))
        }
        return f
    }

    /// A finding about policy `p`, at its pattern (or its kind); `environment` when it is judged for one of several.
    public func finding(_ message: String, policy p: PolicyID, environment: String? = nil) -> Finding {
        let (file, span) = model.policyPlace(p)
        return finding(message, policy: p, file: file, span: span, environment: environment)
    }

    /// A finding about policy `p` at one of its fields, in the file that supplied it (a patch's, or the policy's own).
    public func finding(_ message: String, policy p: PolicyID, at field: Located?, environment: String? = nil) -> Finding {
        guard let field else { return finding(message, policy: p, environment: environment) }
        let o = model.flux.policies[p].object
        return finding(message, policy: p, file: field.file ?? model.objects[o].file, span: field.span, environment: environment)
    }

    /// A finding about policy `p` at a span of the policy's own file.
    public func finding(_ message: String, policy p: PolicyID, span: SourceSpan, environment: String? = nil) -> Finding {
        finding(message, policy: p, file: model.objects[model.flux.policies[p].object].file, span: span, environment: environment)
    }

    private func finding(_ message: String, policy p: PolicyID, file: FileID, span: SourceSpan, environment: String?) -> Finding {
        let o = model.flux.policies[p].object
        var f = finding(message, file: file, span: span, object: o, environment: environment ?? model.objectEnvironment[o])
        f.subject = environment   // the environment a policy is judged for, of several
        return f
    }

    /// A finding at marker `k`.
    public func finding(_ message: String, marker k: MarkerID) -> Finding {
        let m = model.markers[k]
        return finding(message, file: m.file, span: m.span, object: m.object, environment: model.markers[k].environment)
    }

    /// A finding at marker `k` that says what Flux writes there, which it does only where an automation updates the file:
    /// where the repository's automations are none of them known to (those here update another repository or this one
    /// from another root, `mayUpdateElsewhere`), the finding says it assumes one. (A repository that writes no automation
    /// has its markers read by one made elsewhere, as the rules' premises have it, where a cluster applies the file.)
    public func finding(_ message: String, writtenAt k: MarkerID) -> Finding {
        let m = model.markers[k]
        var f = finding(message, marker: k)
        let automations = model.flux.automations
        // (a marker whose policy is not in the repository is asked of no automation: marker-unknown-policy's)
        guard m.context == .value, m.skipped == nil, m.automations.isEmpty, !automations.isEmpty,
              m.policy != nil || !m.candidates.isEmpty else { return f }
        if automations.allSatisfy(\.mayUpdateElsewhere) {
            let paths = Set(automations.flatMap(\.paths)).sorted().map { $0.isEmpty ? "." : "./" + $0 }
            f.assume("assuming an ImageUpdateAutomation updates this file: those written here read no GitRepository of this repository, "
                     + "and their update.path (\(paths.prefix(3).joined(separator: ", "))\(paths.count > 3 ? ", …" : "")) holds no file of it")
        } else {
            f.assume("assuming an ImageUpdateAutomation updates this file: none written here is known to")
        }
        return f
    }

    /// A finding about object `o` at one of its fields, in the file that supplied it (a patch's, or the object's own).
    /// At the object's kind when there is no such field.
    public func finding(_ message: String, object o: ObjectID, at field: Located?) -> Finding {
        guard let field else { return finding(message, object: o) }
        return finding(message, file: field.file ?? model.objects[o].file, span: field.span, object: o, environment: model.objectEnvironment[o])
    }

    /// A finding about object `o`, at its kind unless a span is given.
    public func finding(_ message: String, object o: ObjectID, span: SourceSpan? = nil) -> Finding {
        finding(message, file: model.objects[o].file, span: span ?? model.objects[o].kindSpan, object: o,
                environment: model.objectEnvironment[o])
    }
}
