import Dispatch

/// `body` over `0..<count` in chunks of `chunkSize`, the chunks on all cores; the results in index order.
public func concurrentChunks<T: Sendable>(_ count: Int, chunkSize: Int, _ body: @Sendable (Range<Int>) -> [T]) -> [T] {
    let chunks = (count + chunkSize - 1) / chunkSize
    let results = Locked<[[T]]>(Array(repeating: [], count: chunks))
    DispatchQueue.concurrentPerform(iterations: chunks) { c in
        let part = body(c * chunkSize..<min(count, (c + 1) * chunkSize))
        results.withLock { $0[c] = part }
    }
    var out: [T] = []
    out.reserveCapacity(count)
    results.withLock { for part in $0 { out += part } }
    return out
}

/// `body(&state, i)` for each of `0..<count`, in chunks of `chunkSize` on all cores, each chunk with a `state` of its own
/// from `makeState` (a parser's buffers); the results in index order. Each result is made in its place in the array
/// returned: where `concurrentChunks` copies every chunk's results into one array (a retain and a release of every
/// reference a result holds: a file's facts hold dozens), nothing is copied here.
public func concurrentMap<T: Sendable, State>(_ count: Int, chunkSize: Int, makeState: @Sendable () -> State,
                                              _ body: @Sendable (inout State, Int) -> T) -> [T] {
    guard count > 0 else { return [] }
    let chunks = (count + chunkSize - 1) / chunkSize
    return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
        // each chunk initializes its own elements, and every one is initialized before this returns
        let out = UncheckedPointer(buffer.baseAddress!)
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            var state = makeState()
            for i in c * chunkSize..<min(count, (c + 1) * chunkSize) { (out.pointer + i).initialize(to: body(&state, i)) }
        }
        initialized = count
    }
}

/// A pointer handed to threads that each write elements of their own.
private struct UncheckedPointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}

/// `body` for each of `0..<count` on `width` threads at once, for work that waits (network requests), not for work
/// that computes; each thread gets its own `state` from `make` (a connection, say). The results in index order.
public func concurrentWaiting<T: Sendable, State>(_ count: Int, width: Int, make: @Sendable () -> State,
                                                  _ body: @Sendable (inout State, Int) -> T) -> [T] {
    let next = Locked(0)
    let results = Locked<[T?]>(Array(repeating: nil, count: count))
    let group = DispatchGroup()
    // the closures outlive no call: every thread is waited for before this returns
    withoutActuallyEscaping(make) { make in
        withoutActuallyEscaping(body) { body in
            for _ in 0..<max(1, min(width, count)) {
                DispatchQueue.global().async(group: group) {
                    var state = make()
                    while true {
                        let i = next.withLock { n -> Int in defer { n += 1 }; return n }
                        guard i < count else { break }
                        let r = body(&state, i)
                        results.withLock { $0[i] = r }
                    }
                }
            }
            group.wait()
        }
    }
    return results.withLock { $0.map { $0! } }
}

/// `work` on another thread, started now; `value` waits for its result. For what the caller needs later, computed while
/// it does other work.
public final class Started<T: Sendable>: Sendable {
    private let result = Locked<T?>(nil)
    private let group = DispatchGroup()

    public init(_ work: @escaping @Sendable () -> T) {
        DispatchQueue.global().async(group: group) { [self] in
            let made = work()
            result.withLock { $0 = made }
        }
    }

    public var value: T {
        group.wait()
        return result.withLock { $0! }
    }
}

/// Destroys `value` on another thread: for a large structure the caller is done with (thousands of objects to free),
/// whose release would otherwise hold up the work that follows on this one. The value is moved into a box that the
/// other thread empties, so its last reference is dropped there whichever thread finishes first.
public func releaseElsewhere<T>(_ value: consuming T) {
    let box = ReleaseBox(value)
    DispatchQueue.global().async { box.value = nil }
}

private final class ReleaseBox<T>: @unchecked Sendable {
    // (written once here, and once by the thread that empties it: nothing reads it)
    var value: T?
    init(_ value: consuming T) { self.value = value }
}
