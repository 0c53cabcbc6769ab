import Dispatch
import TagwardenBasics

/// The facts one audit extracted, for a second audit of a tree that holds most of the same files (a check's two
/// trees): a file with the same path and the same bytes is not parsed again (its facts are moved to its place in the
/// second listing, which they carry). The first audit offers its facts once it has extracted them; the second waits
/// for them before it extracts, and parses only what differs.
public final class SharedExtraction: Sendable {
    struct Offered: Sendable {
        var id: FileID
        var unread: Bool
        var bytes: [UInt8]
        var facts: FileFacts
    }
    private let offered = Locked<[String: Offered]?>(nil)
    private let ready = DispatchGroup()

    public init() { ready.enter() }

    /// What an audit does with it: offer its facts, or take the other's.
    public enum Role: Sendable {
        case offer(SharedExtraction)
        case take(SharedExtraction)
    }

    /// The first audit's files and their facts; only the first offer counts.
    func offer(_ sources: [SourceFile], _ facts: Files) {
        let first = offered.withLock { o -> Bool in
            guard o == nil else { return false }
            var byPath: [String: Offered] = [:]
            byPath.reserveCapacity(sources.count)
            for i in sources.indices { byPath[sources[i].path] = Offered(id: FileID(i), unread: sources[i].unread, bytes: sources[i].bytes, facts: facts[FileID(i)]) }
            o = byPath
            return true
        }
        if first { ready.leave() }
    }

    /// Ends the wait with nothing offered, when the first audit stops before it extracts (an error); without effect
    /// after an offer.
    public func withdraw() {
        let first = offered.withLock { o -> Bool in
            guard o == nil else { return false }
            o = [:]
            return true
        }
        if first { ready.leave() }
    }

    /// What was offered, once it is: waits for the offer (or its withdrawal).
    func taken() -> Taken {
        ready.wait()
        return Taken(byPath: offered.withLock { $0 ?? [:] })
    }

    /// The offered facts, as the second audit looks them up.
    struct Taken: Sendable {
        let byPath: [String: Offered]

        /// The facts offered for file `id` of the second audit, when it is the same file, read the same way.
        func facts(for source: SourceFile, id: FileID) -> FileFacts? {
            guard let known = byPath[source.path], known.unread == source.unread, known.bytes == source.bytes else { return nil }
            return known.id == id ? known.facts : known.facts.moved(to: id)
        }
    }
}
