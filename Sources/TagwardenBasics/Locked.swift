#if canImport(Glibc)
import Glibc
#endif

/// A value that threads share, behind a pthread mutex. (The standard library's `Mutex` waits on a futex inside its
/// own uninstrumented code on Linux, so ThreadSanitizer cannot see what it orders and reports the accesses it
/// serialises as races; a pthread mutex it sees.)
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
