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
        var names: [String] = []   // the normalised name of each
        var index: [String: Int] = [:]
        var pins: [Int: Set<String>] = [:]   // the digests pinned beside each tag
        for i in model.images.indices {
            let img = model.images[i]
            guard img.invalid == nil, !img.retagged, img.substitution?.isRepeat != true, let tag = img.tag?.value,
                  let (name, normalized) = model.repositoryName(i) else { continue }
            let key = RegistryFacts.key(name: normalized, tag: tag)
            let k = index[key] ?? wanted.count
            if k == wanted.count {
                index[key] = k
                wanted.append((name, tag))
                keys.append(key)
                names.append(normalized)
            }
            if let pinned = img.digest { pins[k, default: []].insert(pinned) }
        }
        var unanswered: [Int: String] = [:]
        for (k, state) in source.lookup(wanted, unanswered: &unanswered) { facts.tags[keys[k]] = state }
        // a registry that could not be asked is a finding (registry-unreachable), once per image
        var failed: [String: (count: Int, why: String)] = [:]
        for (k, why) in unanswered.sorted(by: { $0.key < $1.key }) { failed[names[k], default: (0, why)].count += 1 }
        for (name, f) in failed { facts.unreachable[name] = RegistryFacts.Unanswered(tags: f.count, why: f.why) }
        // a pin that is not the tag's index digest may be one of its platforms' (read only then: a GET is a pull)
        for (k, pinned) in pins {
            guard case .present(let digest?, let type?, _) = facts.tags[keys[k]], !pinned.subtracting([digest]).isEmpty,
                  type.contains("index") || type.contains("list") else { continue }
            facts.tags[keys[k]] = .present(digest: digest, mediaType: type, platforms: source.platforms(of: wanted[k].image, digest: digest) ?? [])
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
            // a tag list the registry did not give is registry-unreachable too: its markers were not judged
            for o in plan.policies {
                guard let why = o.unreadable, let image = o.image else { continue }
                let name = ImageReference.normalizeName(image) ?? image
                facts.unreachable[name, default: RegistryFacts.Unanswered(tags: 0, why: why)].listing = true
            }
        } catch let e as TagwardenError {
            facts.notes.append("markers not checked against their policies: \(e.message)")
        } catch {
            facts.notes.append("markers not checked against their policies: \(error)")
        }
        return facts
    }
}
