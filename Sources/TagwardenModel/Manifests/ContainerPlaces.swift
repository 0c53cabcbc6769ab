import TagwardenBasics
import TagwardenYAML

/// What a patch does to a workload's container lists, as far as which container keeps its image goes. A JSON patch
/// names a container by its place (`/spec/template/spec/containers/0/image`), and places move along a build: kustomize's
/// strategic merge puts the containers it names first, in its order, then the others in theirs (checked against
/// `kubectl kustomize`); a JSON patch inserts, removes, renames and replaces by place.
enum ContainerEdit: Hashable, Sendable {
    /// A strategic merge of a list: its items' names in order and whether each writes `image`, the names it deletes
    /// (`$patch: delete`), and whether it replaces the whole list (`$patch: replace`).
    case merge(list: String, names: [String?], writesImage: [Bool], deletes: Set<String>, replacesList: Bool)
    /// A JSON patch's `add`, `replace` or `remove` of the `image` of the container at a place.
    case setImage(list: String, at: Int)
    /// A JSON patch's write of the `name` of the container at a place.
    case rename(list: String, at: Int, name: String?)
    /// A JSON patch's `add` of a whole container at a place (nil: at the end, `-`).
    case insert(list: String, at: Int?, name: String?)
    case remove(list: String, at: Int)
    /// A JSON patch's `replace` of the whole container at a place.
    case replace(list: String, at: Int, name: String?)
    /// The whole list written anew or removed (or the workload deleted): no container of it keeps its image.
    case replaceList(list: String)

    static let lists = ["initContainers", "containers", "ephemeralContainers"]

    /// What patch document `root` of `y` does to the container lists of a workload of `kind` (API group `group`): a
    /// list is a JSON patch, a mapping a strategic merge.
    static func read(_ y: YAMLFile, root: Int, kind: String, group: String) -> [ContainerEdit] {
        var out: [ContainerEdit] = []
        if y.nodes[root].kind == .sequence {
            for op in y.childNodes(root) where y.nodes[op].kind == .mapping {
                guard let action = y.string(op, "op"), let path = y.string(op, "path") else { continue }
                let segments = EffectiveObjects.pointer(path)
                guard let c = segments.lastIndex(where: lists.contains) else { continue }
                let list = segments[c], rest = Array(segments[(c + 1)...])
                let value = y.get(op, "value")
                let name = value.flatMap { y.nodes[$0].kind == .mapping ? y.string($0, "name") : nil }
                switch (rest.count, action) {
                case (0, "add"), (0, "replace"), (0, "remove"):
                    out.append(.replaceList(list: list))
                case (1, "add"):
                    if rest[0] == "-" { out.append(.insert(list: list, at: nil, name: name)) }
                    else if let i = Int(rest[0]) { out.append(.insert(list: list, at: i, name: name)) }
                case (1, "replace"):
                    if let i = Int(rest[0]) { out.append(.replace(list: list, at: i, name: name)) }
                case (1, "remove"):
                    if let i = Int(rest[0]) { out.append(.remove(list: list, at: i)) }
                case (2, "add"), (2, "replace"), (2, "remove"):
                    guard let i = Int(rest[0]) else { continue }
                    if rest[1] == "image" { out.append(.setImage(list: list, at: i)) }
                    if rest[1] == "name" {
                        out.append(.rename(list: list, at: i, name: action == "remove" ? nil : value.flatMap { y.nodes[$0].kind == .scalar ? y.value($0) : nil }))
                    }
                default:
                    break
                }
            }
            return out
        }
        guard y.nodes[root].kind == .mapping else { return out }
        if y.string(root, "$patch") == "delete" { return lists.map { .replaceList(list: $0) } }
        let ex = Extractor(y: y, fileIndex: 0, facts: FileFacts(path: "", bytes: []))
        guard let spec = ex.podSpecNode(root, kind: kind, group: group), y.nodes[spec].kind == .mapping else { return out }
        for key: StaticString in ["initContainers", "containers", "ephemeralContainers"] {
            guard let n = y.get(spec, key) else { continue }
            let list = "\(key)"
            if y.nodes[n].kind != .sequence {
                if y.isNull(n) { out.append(.replaceList(list: list)) }
                continue
            }
            var names: [String?] = [], images: [Bool] = [], deletes = Set<String>(), replaces = false
            for item in y.childNodes(n) where y.nodes[item].kind == .mapping {
                let name = y.string(item, "name")
                switch y.string(item, "$patch") {
                case "replace": replaces = true
                case "delete": if let name { deletes.insert(name) }
                default:
                    names.append(name)
                    images.append(y.get(item, "image") != nil)
                }
            }
            out.append(.merge(list: list, names: names, writesImage: images, deletes: deletes, replacesList: replaces))
        }
        return out
    }
}

/// Where a container stands along a build: its list's container names, and its place in it.
struct ContainerPlace: Hashable, Sendable {
    var list: String
    var names: [String?]
    var at: Int

    /// Applies edit `e`: false when it replaces the container's image (or the container).
    /// Item `i` of the list (a negative index counts from the end, as kustomize's JSON patch library reads it); nil
    /// when there is none, and kustomize refuses the patch.
    private func index(_ i: Int) -> Int? {
        let j = i < 0 ? i + names.count : i
        return j >= 0 && j < names.count ? j : nil
    }

    mutating func apply(_ e: ContainerEdit) -> Bool {
        switch e {
        case let .merge(list, patchNames, writesImage, deletes, replacesList):
            guard list == self.list else { return true }
            if replacesList { return false }
            let me = names[at]
            if let me, deletes.contains(me) { return false }
            var mine: Int?
            if let me, let i = patchNames.firstIndex(of: me) {
                if writesImage[i] { return false }
                mine = i
            }
            // the patch's containers first, in its order; then the others, in theirs
            let named = Set(patchNames.compactMap { $0 })
            var merged = patchNames
            for (j, n) in names.enumerated() where n.map({ !named.contains($0) && !deletes.contains($0) }) ?? true {
                if j == at { mine = merged.count }
                merged.append(n)
            }
            guard let mine else { return true }
            names = merged
            at = mine
        case let .setImage(list, i):
            if list == self.list, index(i) == at { return false }
        case let .rename(list, i, name):
            if list == self.list, let i = index(i) { names[i] = name }
        case let .insert(list, i, name):
            guard list == self.list else { return true }
            // a negative index counts from the end, as kustomize's JSON patch library reads it
            let p = i.map { $0 < 0 ? $0 + names.count : $0 } ?? names.count
            guard p >= 0, p <= names.count else { return true }   // kustomize refuses it
            names.insert(name, at: p)
            if p <= at { at += 1 }
        case let .remove(list, i):
            guard list == self.list, let i = index(i) else { return true }
            if i == at { return false }
            names.remove(at: i)
            if i < at { at -= 1 }
        case let .replace(list, i, name):
            guard list == self.list, let i = index(i) else { return true }
            if i == at { return false }
            names[i] = name
        case let .replaceList(list):
            if list == self.list { return false }
        }
        return true
    }
}
