/// An image reference with what the repository makes of it: the environment it runs in and whether it is promoted.
/// The reference's own fields (`name`, `tag`, `digest`, `span` …) read through it.
@dynamicMemberLookup
public final class ResolvedImage: Sendable {
    /// The reference as written (or as a substitution or a values file made it).
    public let use: ImageUse
    /// Its object's environment, else that of what makes it run (a Flux Kustomization's substitution, a release's
    /// values), else its file's.
    public let environment: String?
    /// Promoted from environment to environment: an ImageRepository watches it, a marker updates it, or
    /// `promotedImages` names it.
    public let promoted: Bool
    /// Promoted only by assumption: the ImageRepositories (of `FluxIndex.repositories`) whose image has variables not
    /// known here and whose text it may be (`Model.promotionAssumption` says so). Empty when its promotion is a fact.
    public let assumedWatchers: [RepositoryID]
    /// The markers on its fields that Flux reads where they stand, in source order: one for a reference, up to three
    /// for an image given in parts (`:name`, `:tag`, `:digest`).
    public let markers: [MarkerID]
    /// The environments the environment rules judge it in: its own; else, for a shared base's image, each environment
    /// that deploys it (`deployedIn`); else none (`[nil]`).
    public var judgedIn: [String?] {
        if let environment { return [environment] }
        return use.deployedIn.isEmpty ? [nil] : use.deployedIn
    }

    init(use: ImageUse, environment: String?, promoted: Bool, assumedWatchers: [RepositoryID] = [], markers: [MarkerID]) {
        self.use = use
        self.environment = environment
        self.promoted = promoted
        self.assumedWatchers = assumedWatchers
        self.markers = markers
    }

    @inlinable public subscript<T>(dynamicMember path: KeyPath<ImageUse, T>) -> T { use[keyPath: path] }
}

extension Model {
    /// The image of the ImageRepository behind the marker on image `i`'s field: what a field that sets only the tag
    /// is the tag of.
    public func markedRepository(_ i: ImageID) -> String? {
        guard let k = images[i].markers.first(where: { markers[$0].policy != nil }), let p = markers[k].policy,
              let r = flux.policies[p].repository else { return nil }
        return flux.repositories[r].spec.image?.value
    }

    /// For a release's values field that sets only a tag in a patch file (a kustomization's `patches`): the repository
    /// its base release writes beside it (`image.repository` where the patch sets `image.tag`), where every HelmRelease of
    /// that name (and namespace) outside patch files writes one and the same (tkubica12/gitops-flux-arc's rings); nil
    /// otherwise.
    public func patchedReleaseRepository(_ i: ImageID) -> (repository: String, release: ObjectID)? {
        let img = images[i]
        guard img.name == nil, img.origin == .helmParts, let path = img.valuesPath, path.count >= 2, let o = img.object,
              graph.patchedBy[files[img.file].path] != nil, objects[o].kind == "HelmRelease", let name = objects[o].name else { return nil }
        var found: (repository: String, release: ObjectID)?
        for (k, r) in objects.withIDs where r.kind == "HelmRelease" && r.name == name && graph.patchedBy[files[r.file].path] == nil
            && (objects[o].declaredNamespace == nil || r.declaredNamespace == objects[o].declaredNamespace) {
            let y = files[r.file].yaml
            guard let values = ValuesFiles.releaseValues(r, in: y), let n = ValuesFiles.valuesNode(y, values, at: path.dropLast()),
                  let repo = y.get(n, "repository"), y.nodes[repo].kind == .scalar, !y.isNull(repo), found.map({ $0.repository == y.value(repo) }) ?? true
            else { return nil }
            found = (y.value(repo), k)
        }
        return found
    }

    /// The repository image `i` is of, as written (its name, or for a field that sets only the tag the marked
    /// policy's image), and normalised (`nginx` → `docker.io/library/nginx`); nil when neither is known.
    public func repositoryName(_ i: ImageID) -> (written: String, normalized: String)? {
        guard let name = images[i].name ?? markedRepository(i), let normalized = ImageReference.normalizeName(name) else { return nil }
        return (name, normalized)
    }
}
