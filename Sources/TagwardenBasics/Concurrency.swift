import Dispatch
import Synchronization

/// `body` over `0..<count` in chunks of `chunkSize`, the chunks on all cores; the results in index order.
public func concurrentChunks<T: Sendable>(_ count: Int, chunkSize: Int, _ body: @Sendable (Range<Int>) -> [T]) -> [T] {
    let chunks = (count + chunkSize - 1) / chunkSize
    let results = Mutex<[[T]]>(Array(repeating: [], count: chunks))
    DispatchQueue.concurrentPerform(iterations: chunks) { c in
        let part = body(c * chunkSize..<min(count, (c + 1) * chunkSize))
        results.withLock { $0[c] = part }
    }
    var out: [T] = []
    out.reserveCapacity(count)
    results.withLock { for part in $0 { out += part } }
    return out
}
