import TagwardenBasics
import TagwardenYAML

extension Model {
    /// Marks the container images whose field a kustomization's `replacements:` may write: a target whose `select` fits
    /// the image's object (its kind and name, where given) and one of whose `fieldPaths` goes through `image`, in a build
    /// that takes the object's file. kustomize copies a value there that is not followed here (Kavinraja-G/homelab's
    /// karakeep takes its tag from a generated ConfigMap), so the image's findings assume the field runs as written.
    static func markReplacedImages(_ images: inout Table<ImageID, ImageUse>, objects: Objects, files: Files, builds: LazyBuildSets,
                                   replacements: ReplacementEntries) {
        for k in replacements.keys.sorted() {
            var selects: [(kind: String?, name: String?)] = []
            for (entry, y) in replacements[k]! {
                for target in y.get(entry, "targets").map(y.childNodes) ?? [] {
                    guard let paths = y.get(target, "fieldPaths"), y.childNodes(paths).contains(where: { throughImage(y.value($0)) }) else { continue }
                    let select = y.get(target, "select")
                    selects.append((select.flatMap { y.string($0, "kind") }, select.flatMap { y.string($0, "name") }))
                }
            }
            guard !selects.isEmpty else { continue }
            let path = files[objects[k].file].path
            let taken = builds.files(under: Path.dirname(path))
            for i in images.indices where images[i].origin == .container && images[i].premise == nil && taken.contains(images[i].file) {
                guard let o = images[i].object.map({ objects[$0] }),
                      selects.contains(where: { ($0.kind ?? o.kind) == o.kind && ($0.name ?? o.name) == o.name }) else { continue }
                images[i].premise = "assuming the replacements: of \(path) leave this field as written: they copy a value into an "
                    + "image field, which is not followed here"
            }
        }
    }

    /// `spec.template.spec.containers.0.image`, `spec.containers.[name=web].image`: a field path that ends in an image.
    static func throughImage(_ fieldPath: String) -> Bool {
        fieldPath == "image" || fieldPath.hasSuffix(".image")
    }
}
