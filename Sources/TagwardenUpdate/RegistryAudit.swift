import TagwardenBasics
import TagwardenYAML
import TagwardenModel

/// `audit --registry`: what the registries say about a repository's images, for the linter's registry rules. Each tag a
/// manifest names is looked up once (a HEAD of its manifest, on a registry); each automation is run as `update` would
/// run it, and every field it would change is behind its policy.
public enum RegistryAudit {
    public static func facts(_ model: Model, tags source: some TagSource) -> RegistryFacts {
        var facts = RegistryFacts()
        // the tags the manifests name, once each: by the name as written (the registry's address), keyed by the normalised one
        var wanted: [(image: String, tag: String)] = []
        var keys: [String] = []
        var seen: Set<String> = []
        for i in model.images.indices {
            let img = model.images[i]
            guard img.invalid == nil, !img.retagged, img.substitution?.isRepeat != true, let tag = img.tag?.value,
                  let (name, normalized) = model.repositoryName(i) else { continue }
            let key = RegistryFacts.key(name: normalized, tag: tag)
            guard seen.insert(key).inserted else { continue }
            wanted.append((name, tag))
            keys.append(key)
        }
        for (k, state) in source.lookup(wanted, notes: &facts.notes) { facts.tags[keys[k]] = state }
        // a pin that is not the tag's index digest may be one of its platforms' (read only then: a GET is a pull)
        var platformsOf: [String: [String]] = [:]
        for i in model.images.indices {
            let img = model.images[i]
            guard let pinned = img.digest, let tag = img.tag?.value, let (name, normalized) = model.repositoryName(i) else { continue }
            let key = RegistryFacts.key(name: normalized, tag: tag)
            guard case .present(let digest?, let type?, []) = facts.tags[key], digest != pinned, type.contains("index") || type.contains("list") else { continue }
            if platformsOf[key] == nil { platformsOf[key] = source.platforms(of: name, digest: digest) ?? [] }
            facts.tags[key] = .present(digest: digest, mediaType: type, platforms: platformsOf[key]!)
        }

        // what the policies select now, as update would write it
        let files = model.files.map { SourceFile(path: $0.path, bytes: $0.bytes) }
        do {
            let plan = try Updater.plan(model, files: files, tags: source)
            for c in plan.changes {
                facts.behind.append(RegistryFacts.Behind(file: c.file, line: c.line, column: c.column, current: c.oldValue,
                                                         selected: c.newValue, setter: c.setter))
            }
            facts.notes += plan.errors.map { "not checked for marker-behind: \($0)" }
        } catch let e as TagwardenError {
            facts.notes.append("markers not checked against their policies: \(e.message)")
        } catch {
            facts.notes.append("markers not checked against their policies: \(error)")
        }
        return facts
    }
}
