import TagwardenBasics
import TagwardenModel

/// The commit message Flux writes: `git.commit.messageTemplate` rendered with Flux's template data (spec §3.4), or
/// Flux's default text when there is no template.
public enum CommitMessage {
    public static let defaultTemplate = "Update from image update automation"

    /// Flux's `TemplateData` (Flux 2.7 on: `.AutomationObject`, `.Changed`, `.Values`). `roots` are the run's
    /// update.paths (one, as Flux has; several where a substituted path is not known per cluster): a file's name is
    /// relative to the deepest that holds it, as Flux gives it. `.Changed.Changes` lists the changes by file, then by
    /// object (as `range` orders them), then in file order (Flux's order depends on Go's map iteration; this one is
    /// fixed). `.Changed.Objects` merges an object's changes over files from Flux 2.9 (IAC 1.2); before, Flux's map
    /// kept one file's list per object (the last file iterated, the last in path order here).
    ///
    /// Before Flux 2.7 the data has more: `.Updated` (the images each object got, as go-containerregistry references;
    /// `.Changed.ImageResult` from 2.3), and `.Values` only from 2.5; `references` gives each policy's (`ns:name`)
    /// selected reference, for those.
    public static func data(namespace: String, name: String, roots: [String], changes: [SetterChange], values: [String: String],
                            flux: FluxVersion = .current, references: [String: String] = [:]) -> TemplateValue {
        let deepestFirst = roots.sorted { $0.utf8.count > $1.utf8.count }
        func relative(_ path: String) -> String {
            guard let root = deepestFirst.first(where: { $0.isEmpty || path.hasPrefix($0 + "/") }), !root.isEmpty else { return path }
            return String(path.dropFirst(root.count + 1))
        }
        func change(_ c: SetterChange) -> TemplateValue {
            .structure(TemplateStruct(type: "update.Change", fields: [("OldValue", .string(c.oldValue)), ("NewValue", .string(c.newValue)),
                                                                      ("Setter", .string(c.setter))]))
        }
        func identifier(_ o: ObjectIdentity) -> TemplateValue {
            let typeMeta = TemplateStruct(type: "yaml.TypeMeta", fields: [("APIVersion", .string(o.apiVersion)), ("Kind", .string(o.kind))])
            let nameMeta = TemplateStruct(type: "yaml.NameMeta", fields: [("Name", .string(o.name)), ("Namespace", .string(o.namespace))])
            let resource = TemplateStruct(type: "yaml.ResourceIdentifier", embedded: [typeMeta, nameMeta])
            return .structure(TemplateStruct(type: "update.ObjectIdentifier", embedded: [resource]))
        }
        /// Go's order of the struct keys, field by field, each by its bytes (without an array made for each comparison)
        func precedes(_ a: ObjectIdentity, _ b: ObjectIdentity) -> Bool {
            func order(_ x: String, _ y: String) -> Bool? { x.utf8.elementsEqual(y.utf8) ? nil : x.utf8.lexicographicallyPrecedes(y.utf8) }
            return order(a.apiVersion, b.apiVersion) ?? order(a.kind, b.kind) ?? order(a.name, b.name) ?? order(a.namespace, b.namespace) ?? false
        }
        /// The objects of some changes in Go's order for struct keys (field by field), each with its changes in order.
        func byObject(_ changes: [SetterChange]) -> [(ObjectIdentity, [SetterChange])] {
            var order: [ObjectIdentity] = []
            var grouped: [ObjectIdentity: [SetterChange]] = [:]
            for c in changes {
                if grouped[c.object] == nil { order.append(c.object) }
                grouped[c.object, default: []].append(c)
            }
            return order.sorted(by: precedes).map { ($0, grouped[$0]!) }
        }
        func objectMap(_ changes: [SetterChange]) -> TemplateValue {
            .map(byObject(changes).map { .init(identifier($0.0), .list($0.1.map(change), type: "[]update.Change")) }, type: "update.ObjectChanges")
        }
        var byFile: [String: [SetterChange]] = [:]
        for c in changes { byFile[relative(c.file), default: []].append(c) }
        let paths = byFile.keys.map { (Array($0.utf8), $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
        var files: [String: TemplateValue] = [:]
        // .Changes: by file, then object, then in file order (Flux's order follows Go's map iteration), without repeats
        struct Key: Hashable { let old, new, setter: String }
        var seen: Set<Key> = []
        var unique: [SetterChange] = []
        // Objects() before Flux 2.9 kept one file's changes per object: the last file's here
        var lastFile: [ObjectIdentity: [SetterChange]] = [:]
        for path in paths {
            let grouped = byObject(byFile[path]!)
            files[path] = .map(grouped.map { .init(identifier($0.0), .list($0.1.map(change), type: "[]update.Change")) }, type: "update.ObjectChanges")
            for (object, list) in grouped {
                lastFile[object] = list
                for c in list where seen.insert(Key(old: c.oldValue, new: c.newValue, setter: c.setter)).inserted { unique.append(c) }
            }
        }
        let automation = TemplateStruct(type: "types.NamespacedName", fields: [("Namespace", .string(namespace)), ("Name", .string(name))],
                                        stringer: "\(namespace)/\(name)")
        let valueMap = TemplateValue.stringMap(values.mapValues { .string($0) }, type: "map[string]string")
        let release = flux.release
        func lastFileObjects() -> TemplateValue {
            .map(byObject(changes).map { o, _ in .init(identifier(o), .list(lastFile[o]!.map(change), type: "[]update.Change")) },
                 type: "update.ObjectChanges")
        }
        if release >= FluxVersion(2, 7) {
            // from 2.9 merged over files in path order (Flux appends them in its map's order); before, one file's
            let objects = release >= FluxVersion(2, 9) ? objectMap(paths.flatMap { byFile[$0]! }) : lastFileObjects()
            let result = TemplateStruct(type: "update.Result", fields: [("FileChanges", .stringMap(files, type: "map[string]update.ObjectChanges"))],
                                        methods: ["Changes": .list(unique.map(change), type: "[]update.Change"),
                                                  "Objects": objects])
            return .structure(TemplateStruct(type: "source.TemplateData", fields: [
                ("AutomationObject", .structure(automation)), ("Changed", .structure(result)), ("Values", valueMap),
            ]))
        }
        // Flux before 2.7: .Updated, the images (go-containerregistry references) each object got, one per policy
        func imageRef(_ setter: String) -> TemplateValue? {
            let key = setter.split(separator: ":").prefix(2).joined(separator: ":")
            guard let ref = references[key] else { return nil }
            let parts = key.split(separator: ":").map(String.init)
            return ContainerReference(ref).value(policy: TemplateStruct(type: "types.NamespacedName",
                                                                        fields: [("Namespace", .string(parts[0])), ("Name", .string(parts[1]))],
                                                                        stringer: key.replacingOccurrences(of: ":", with: "/")))
        }
        func refsByObject(_ changes: [SetterChange]) -> TemplateValue {
            .map(byObject(changes).map { object, list in
                var refs: [TemplateValue] = []
                for c in list { if let r = imageRef(c.setter), !refs.contains(r) { refs.append(r) } }
                return .init(identifier(object), .list(refs, type: "[]update.ImageRef"))
            }, type: "map[update.ObjectIdentifier][]update.ImageRef")
        }
        var fileResults: [String: TemplateValue] = [:]
        var images: [TemplateValue] = []
        for path in paths {
            fileResults[path] = .structure(TemplateStruct(type: "update.FileResult", fields: [("Objects", refsByObject(byFile[path]!))]))
            for (_, list) in byObject(byFile[path]!) { for c in list { if let r = imageRef(c.setter), !images.contains(r) { images.append(r) } } }
        }
        let updated = TemplateStruct(type: "update.Result", fields: [("Files", .stringMap(fileResults, type: "map[string]update.FileResult"))],
                                     methods: ["Images": .list(images, type: "[]update.ImageRef"), "Objects": refsByObject(changes)])
        var fields: [(String, TemplateValue)] = [("AutomationObject", .structure(automation)), ("Updated", .structure(updated))]
        if release >= FluxVersion(2, 3) {
            let changed = TemplateStruct(type: "update.ResultV2",
                                         fields: [("ImageResult", .structure(updated)), ("FileChanges", .stringMap(files, type: "map[string]update.ObjectChanges"))],
                                         methods: ["Changes": .list(unique.map(change), type: "[]update.Change"), "Objects": lastFileObjects()])
            fields.append(("Changed", .structure(changed)))
        }
        if release >= FluxVersion(2, 5) { fields.append(("Values", valueMap)) }
        return .structure(TemplateStruct(type: "source.TemplateData", fields: fields))
    }

    /// The message, or Flux's error for a template it cannot parse or run (a removed field named with its replacement).
    /// `data` is made only for a template that has actions: the default message, and any other without `{{`, is its
    /// text, whatever the changes (their data took 60 M instructions for a run of 1,000 changed files).
    public static func render(_ template: String?, data: @autoclosure () -> TemplateValue) throws -> String {
        let text = (template ?? "").isEmpty ? defaultTemplate : template!
        let tree: GoTemplate.Tree
        switch GoTemplate.tree(text) {
        case .success(let t): tree = t
        case .failure(let e):
            let line = 1 + text.utf8.prefix(e.offset).filter { $0 == 10 }.count
            var failed = TagwardenError("unable to create commit message template from spec: template: commit message:\(line): \(e.message)")
            failed.isBound = e.isBound
            throw failed
        }
        // (text alone never reads its data)
        let textOnly = tree.definitions.isEmpty && tree.main.allSatisfy { if case .text = $0 { true } else { false } }
        do {
            return try TemplateRunner.render(tree, data: textOnly ? .null : data())
        } catch let e as TagwardenError {
            if e.message.contains("can't evaluate field Updated in type source.TemplateData") {
                throw TagwardenError("template uses removed '.Updated' field. Please use '.Changed' instead. "
                                     + "See: https://fluxcd.io/flux/components/image/imageupdateautomations/#message-template")
            }
            if e.message.contains("can't evaluate field ImageResult in type update.Result") {
                throw TagwardenError("template uses removed '.Changed.ImageResult' field. Please use '.Changed.FileChanges' or "
                                     + "'.Changed.Objects' instead. See: https://fluxcd.io/flux/components/image/imageupdateautomations/#message-template")
            }
            var failed = TagwardenError("failed to run template from spec: \(e.message)")
            failed.isBound = e.isBound
            throw failed
        }
    }
}

/// A reference as go-containerregistry reads it with weak validation, for the `ImageRef` of Flux's old commit data:
/// `String()` the reference as given, `Identifier()` its tag (or digest), `Repository()` and `Registry()` with Docker
/// Hub's defaults filled in, `Name()` the whole of it.
struct ContainerReference {
    let original: String
    let registry: String
    let repository: String
    let tag: String?
    let digest: String?

    init(_ reference: String) {
        original = reference
        var base = reference
        var digest: String?
        if let at = reference.firstIndex(of: "@") {
            digest = String(reference[reference.index(after: at)...])
            base = String(reference[..<at])
        }
        var tag: String?
        if let colon = base.lastIndex(of: ":"), !base[colon...].contains("/") {
            tag = String(base[base.index(after: colon)...])
            base = String(base[..<colon])
        }
        let parts = base.split(separator: "/", maxSplits: 1).map(String.init)
        var registry = "index.docker.io"
        var repository = base
        if parts.count == 2, parts[0].contains(".") || parts[0].contains(":") || parts[0] == "localhost" {
            registry = parts[0] == "docker.io" ? "index.docker.io" : parts[0]
            repository = parts[1]
        }
        if registry == "index.docker.io", !repository.contains("/") { repository = "library/" + repository }
        self.registry = registry
        self.repository = repository
        self.digest = digest
        // weak validation fills in `latest` for a reference without tag or digest
        self.tag = digest == nil ? (tag ?? "latest") : tag
    }

    func value(policy: TemplateStruct) -> TemplateValue {
        let identifier = digest ?? tag ?? "latest"
        let name = digest.map { "\(registry)/\(repository)@\($0)" } ?? "\(registry)/\(repository):\(tag ?? "latest")"
        return .structure(TemplateStruct(type: "update.imageRef", methods: [
            "String": .string(original), "Identifier": .string(identifier), "Repository": .string(repository),
            "Registry": .string(registry), "Name": .string(name), "Policy": .structure(policy),
        ], stringer: original))
    }
}
