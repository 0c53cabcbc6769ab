// The builders of the Flux and Kubernetes objects the tests write again and again, shared by both test targets. Each
// returns the YAML text of one object, or of a few files (path → text); the doc comments give the lines findings are
// asserted on.

/// A Pod with the given container images: the first `image:` is on line 8 (column 14 its value), each next one two
/// lines down (one more with a namespace).
public func pod(_ name: String, namespace: String? = nil, images: [String]) -> String {
    var s = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \(name)\n"
    if let namespace { s += "  namespace: \(namespace)\n" }
    s += "spec:\n  containers:\n"
    for (i, img) in images.enumerated() { s += "    - name: c\(i)\n      image: \(img)\n" }
    return s
}

/// A Deployment with one container: its `image:` is on line 9 (column 18 its value), followed by a `$imagepolicy`
/// marker naming `marker` (`namespace:name[:field]`) when one is given.
public func deployment(name: String = "web", namespace: String, image: String, marker: String? = nil) -> String {
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: \(name), namespace: \(namespace)}\nspec:\n  template:\n    spec:\n      containers:\n"
        + "        - name: \(name)\n          image: \(image)" + (marker.map { " # {\"$imagepolicy\": \"\($0)\"}" } ?? "") + "\n"
}

/// An ImageRepository (v1) of `image`: four lines.
public func imageRepository(name: String = "web", namespace: String = "flux-system", image: String = "ghcr.io/acme/web") -> String {
    "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: \(name), namespace: \(namespace)}\nspec: {image: \(image)}\n"
}

/// How an ImagePolicy orders the tags it keeps, when not by semver.
public enum TagOrder {
    /// `alphabetical: {}`, or with an `order:`.
    case alphabetical(String? = nil)
    /// `numerical: {order: …}`.
    case numerical(String)
}

/// An ImagePolicy on ImageRepository `repository` (its own name by default), in its namespace. Line 4 is `spec:`,
/// line 5 `imageRepositoryRef`; then `digestReflectionPolicy` when given, `filterTags` (one line, flow style) when a
/// pattern or an extract is given, and the policy: `semver` with its range unless an `order` is given.
public func imagePolicy(name: String = "web", namespace: String = "flux-system", repository: String? = nil, pattern: String? = nil,
                 extract: String? = nil, semver: String = ">=1.0.0", order: TagOrder? = nil, digestReflection: String? = nil,
                 apiVersion: String = "v1") -> String {
    var s = "apiVersion: image.toolkit.fluxcd.io/\(apiVersion)\nkind: ImagePolicy\nmetadata: {name: \(name), namespace: \(namespace)}\nspec:\n"
        + "  imageRepositoryRef: {name: \(repository ?? name)}\n"
    if let digestReflection { s += "  digestReflectionPolicy: \(digestReflection)\n" }
    let filter = [pattern.map { "pattern: '\($0)'" }, extract.map { "extract: '\($0)'" }].compactMap { $0 }
    if !filter.isEmpty { s += "  filterTags: {\(filter.joined(separator: ", "))}\n" }
    switch order {
    case nil: s += "  policy: {semver: {range: '\(semver)'}}\n"
    case .alphabetical(nil)?: s += "  policy: {alphabetical: {}}\n"
    case .alphabetical(let o?)?: s += "  policy: {alphabetical: {order: \(o)}}\n"
    case .numerical(let o)?: s += "  policy: {numerical: {order: \(o)}}\n"
    }
    return s
}

/// An ImageUpdateAutomation (v1) of GitRepository `source` that updates `path` and pushes to `branch`: seven lines,
/// `update.path` on the last (column 18 its value).
public func imageUpdateAutomation(name: String, namespace: String = "flux-system", source: String = "flux-system", path: String,
                           branch: String = "main") -> String {
    "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: \(name), namespace: \(namespace)}\nspec:\n"
        + "  sourceRef: {kind: GitRepository, name: \(source)}\n  git: {commit: {author: {email: bot@example.com}}, push: {branch: \(branch)}}\n"
        + "  update: {path: '\(path)'}\n"
}

/// A Flux Kustomization applying `path` (line 5), with `spec` lines (indented under `spec:`) after it.
public func fluxKustomization(name: String = "apps", namespace: String = "flux-system", path: String, spec: String = "") -> String {
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: \(name), namespace: \(namespace)}\nspec:\n  path: \(path)\n" + spec
}

/// Flux Kustomizations `name: path`, one document each: what a cluster applies.
public func fluxKustomizations(_ paths: [(name: String, path: String)]) -> String {
    paths.map { fluxKustomization(name: $0.name, path: $0.path) }.joined(separator: "---\n")
}

/// flux bootstrap's files for the cluster in `dir`: the flux-system Namespace of its components, labelled with the
/// Flux `version` (with `crds` after it), and the sync (GitRepository and the Kustomization whose path is `dir`).
public func bootstrapFiles(_ dir: String, flux version: String?, crds: String = "") -> [String: String] {
    var labels = "    app.kubernetes.io/part-of: flux\n"
    if let version { labels += "    app.kubernetes.io/version: \(version)\n" }
    return [
        "\(dir)/flux-system/gotk-components.yaml": """
        ---
        # This manifest was generated by flux. DO NOT EDIT.
        apiVersion: v1
        kind: Namespace
        metadata:
          name: flux-system
          labels:
        \(labels)---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: source-controller
          namespace: flux-system
        spec:
          template:
            spec:
              containers:
                - name: manager
                  image: ghcr.io/fluxcd/source-controller:v1.3.0

        """ + crds,
        "\(dir)/flux-system/gotk-sync.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata:
          name: flux-system
          namespace: flux-system
        spec:
          url: ssh://git@github.com/acme/fleet
          ref: {branch: main}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: flux-system
          namespace: flux-system
        spec:
          path: ./\(dir)
          sourceRef: {kind: GitRepository, name: flux-system}

        """,
        "\(dir)/flux-system/kustomization.yaml": "resources: [gotk-components.yaml, gotk-sync.yaml]\n",
    ]
}

/// An object of each image kind at each apiVersion, six lines each: kind, apiVersion.
public let imageAPIs: [(kind: String, version: String)] = [
    ("ImageRepository", "v1beta1"), ("ImagePolicy", "v1beta2"), ("ImageUpdateAutomation", "v1beta1"),
    ("ImageUpdateAutomation", "v1beta2"), ("ImageRepository", "v1"),
]

/// The objects of `imageAPIs` in one file: they start at lines 1, 7, 13, 19 and 25.
public func imageAPIObjects() -> String {
    imageAPIs.enumerated().map { i, api in
        "apiVersion: image.toolkit.fluxcd.io/\(api.version)\nkind: \(api.kind)\nmetadata:\n  name: o\(i)\n  namespace: flux-system\n"
    }.joined(separator: "---\n")
}

/// A cluster bootstrapped with Flux 2.7 (clusters/prod) whose Kustomization applies apps/prod (a Pod and a kustomize
/// LabelTransformer), and an archive no Kustomization applies: the same Pod with a latest image (line 9), a second
/// LabelTransformer of the same name and a v1beta1 ImagePolicy.
public func appliedRepoFiles() -> [String: String] {
    var files = bootstrapFiles("clusters/prod", flux: "v2.7.0")
    files["clusters/prod/apps.yaml"] = fluxKustomization(path: "./apps/prod")
    files["apps/prod/kustomization.yaml"] = "resources: [web.yaml]\ntransformers: [labels.yaml]\n"
    files["apps/prod/labels.yaml"] = "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: labels\nlabels: {team: web}\n"
        + "fieldSpecs: [{path: metadata/labels, create: true}]\n"
    files["apps/prod/web.yaml"] = pod("web", namespace: "web", images: ["ghcr.io/acme/web:1.0.0"])
    files["archive/web.yaml"] = pod("web", namespace: "web", images: ["ghcr.io/acme/web:latest"])
    files["archive/labels.yaml"] = "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: labels\nlabels: {team: old}\n"
    files["archive/api.yaml"] = "apiVersion: image.toolkit.fluxcd.io/v1beta1\nkind: ImagePolicy\nmetadata:\n  name: old\n  namespace: flux-system\n"
    return files
}

/// clusters/staging and clusters/production, each with its own ImagePolicy and ImageRepository flux-system/web
/// (staging's image on registry.staging.example, production's on ghcr.io), and a Deployment of each environment in
/// apps/<environment> whose image (line 9) is marked with that policy.
public func severalClustersWithTheSameNames() -> [String: String] {
    var files: [String: String] = [:]
    for (env, registry) in [("staging", "registry.staging.example"), ("production", "ghcr.io")] {
        files["clusters/\(env)/web.yaml"] = imagePolicy(pattern: "^\(env)-v(?P<v>[0-9]+\\.[0-9]+\\.[0-9]+)-", extract: "$v") + "---\n"
            + imageRepository(image: "\(registry)/acme/web")
        files["apps/\(env)/web.yaml"] = deployment(namespace: env, image: "\(registry)/acme/web:\(env)-v1.2.3-abc1234-1700000000",
                                                   marker: "flux-system:web")
    }
    return files
}
