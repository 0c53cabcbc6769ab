import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (and SIGTERM, SIGHUP) while files or a branch are being changed: a change under way is finished first, then
/// the lock is removed and the process ends as the signal would have ended it. Outside a change the process ends at
/// once, without its lock. So every file is either old or new, the branch at its old or its new commit, and no lock
/// or temporary file is left behind.
public enum Interruption {
    /// The lock file to remove: the address of a C string, or 0.
    static let lock = Atomic<Int>(0)
    /// How many changes are under way.
    static let changing = Atomic<Int>(0)
    /// The signal that came during a change, or 0.
    static let pending = Atomic<Int32>(0)

    /// Handles the signals from now on, removing `lockPath` when one ends the process.
    public static func install(lockPath: String) {
        // the string is never freed: a handler on another thread may be reading it
        lock.store(Int(bitPattern: strdup(lockPath)), ordering: .sequentiallyConsistent)
        for s in [SIGINT, SIGTERM, SIGHUP] { signal(s, handler) }
    }

    /// The lock is gone: signals end the process as they did.
    public static func uninstall() {
        lock.store(0, ordering: .sequentiallyConsistent)
        for s in [SIGINT, SIGTERM, SIGHUP] { signal(s, SIG_DFL) }
    }

    /// Runs `body`, a change that must be made whole; a signal that comes meanwhile takes effect after it.
    public static func whole<T>(_ body: () throws -> T) rethrows -> T {
        changing.add(1, ordering: .sequentiallyConsistent)
        defer {
            if changing.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 {
                let s = pending.exchange(0, ordering: .sequentiallyConsistent)
                if s != 0 { end(s) }
            }
        }
        return try body()
    }

    static func end(_ s: Int32) {
        if let path = UnsafePointer<CChar>(bitPattern: lock.load(ordering: .sequentiallyConsistent)) { unlink(path) }
        signal(s, SIG_DFL)
        raise(s)
    }

    static let handler: @convention(c) (Int32) -> Void = { s in
        if changing.load(ordering: .sequentiallyConsistent) > 0 {
            pending.store(s, ordering: .sequentiallyConsistent)
        } else {
            end(s)
        }
    }
}
