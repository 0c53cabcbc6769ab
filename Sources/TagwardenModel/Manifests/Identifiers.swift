import TagwardenBasics

/// A file of the run (`Model.files`).
@frozen public struct FileID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// An object of the run (`Model.objects`): a manifest's document, or a variant `EffectiveObjects` made of one.
@frozen public struct ObjectID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// An image reference (`Model.images`).
@frozen public struct ImageID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// A `$imagepolicy` comment (`Model.markers`).
@frozen public struct MarkerID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// An ImagePolicy of `FluxIndex.policies`.
@frozen public struct PolicyID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// An ImageRepository of `FluxIndex.repositories`.
@frozen public struct RepositoryID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// An ImageUpdateAutomation of `FluxIndex.automations`.
@frozen public struct AutomationID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// A cluster of `Clusters.clusters`.
@frozen public struct ClusterID: TableID {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
}

/// The run's files, by `FileID`.
public typealias Files = Table<FileID, FileFacts>
/// The run's objects, by `ObjectID`.
public typealias Objects = Table<ObjectID, ManifestObject>
