/// An error that reaches the user as one line: what went wrong and where (file, line, revision).
public struct TagwardenError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The git index is in a format libgit2 cannot read (a sparse or split index).
    public var isIndexFormat = false
    /// The repository is damaged: an object is missing or cannot be read.
    public var isDamage = false
    /// A bound of tagwarden's own was reached (a template's steps or output): it holds whichever Flux runs.
    public var isBound = false
    public init(_ message: String, damage: Bool = false) {
        self.message = message
        isDamage = damage
    }
    public var description: String { message }
}
