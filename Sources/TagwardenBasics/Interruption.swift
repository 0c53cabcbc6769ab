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
    /// The last lock path installed, kept after `lockReleased` (a handler may still be reading it): never freed, and
    /// never unreachable either, so that a leak check sees it held.
    static let kept = Atomic<Int>(0)
    /// How many changes are under way.
    static let changing = Atomic<Int>(0)
    /// The signal that came during a change, or 0.
    static let pending = Atomic<Int32>(0)
    /// The descriptor this process opened the lock file with, or -1 (not opened yet, or given up).
    static let lockDescriptor = Atomic<Int32>(-1)

    /// Handles the signals from now on, removing `lockPath` when one ends the process while this process holds that lock
    /// or can take it (`removable`). Installed before the lock file is made, so that no signal finds the file made and
    /// the handlers not yet there. A signal the process was started ignoring (`nohup`, a background job) stays ignored.
    public static func install(lockPath: String) {
        // the string is never freed: a handler on another thread may be reading it
        let path = Int(bitPattern: strdup(lockPath))
        kept.store(path, ordering: .sequentiallyConsistent)
        lock.store(path, ordering: .sequentiallyConsistent)
        for s in [SIGINT, SIGTERM, SIGHUP] {
            var old = sigaction()
            // SIG_IGN is the handler 1
            guard sigaction(s, nil, &old) == 0,
                  (old.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } ?? 0) != 1 else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            _ = sigaction(s, &action, nil)
        }
    }

    /// The lock file is open as `fd` (-1: closed again): a signal removes it only when `fd` holds its lock or can take it.
    public static func lockOpened(_ fd: Int32) {
        lockDescriptor.store(fd, ordering: .sequentiallyConsistent)
    }

    /// The lock is gone: a signal from now on ends the process at once, still saying so, removing nothing.
    public static func lockReleased() {
        lock.store(0, ordering: .sequentiallyConsistent)
        lockDescriptor.store(-1, ordering: .sequentiallyConsistent)
    }

    /// Whether the lock file at `path` may be removed as the process ends: `descriptor`, this process's (-1: none yet),
    /// holds its lock or takes it now, or a descriptor opened here takes it (no one holds it: a file this process made
    /// before it recorded it, or one a dead run left). Removed under the lock, as `UpdateLock.release` removes it, never
    /// from under another run. Only system calls a signal handler may make.
    static func removable(_ path: UnsafePointer<CChar>, descriptor: Int32) -> Bool {
        var fd = descriptor
        let opened = fd < 0
        if opened { fd = open(path, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { if opened { close(fd) } }
        var held = stat(), named = stat()
        return flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &held) == 0 && stat(path, &named) == 0
            && held.st_ino == named.st_ino && held.st_dev == named.st_dev
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

    /// What the process says as a signal ends it (written from the handler: a constant, with write(2) alone).
    static let interrupted: StaticString = "tagwarden: interrupted: every file and branch is as it was before or as this run makes it\n"

    /// Whether the lock at `path` is to be removed, `descriptor` giving the run's descriptor as recorded now. A handler
    /// on another thread than the run's (a signal that comes while the run's thread blocks signals, as `posix_spawn`
    /// does) may find no descriptor recorded, then find the lock held: the run recorded and locked its own in between.
    /// It asks again with that one.
    static func removing(_ path: UnsafePointer<CChar>, descriptor: () -> Int32) -> Bool {
        let first = descriptor()
        if removable(path, descriptor: first) { return true }
        guard first < 0 else { return false }
        let recorded = descriptor()
        return recorded >= 0 && removable(path, descriptor: recorded)
    }

    static func end(_ s: Int32) {
        if let path = UnsafePointer<CChar>(bitPattern: lock.load(ordering: .sequentiallyConsistent)),
           removing(path, descriptor: { lockDescriptor.load(ordering: .sequentiallyConsistent) }) { unlink(path) }
        _ = write(STDERR_FILENO, interrupted.utf8Start, interrupted.utf8CodeUnitCount)
        signal(s, SIG_DFL)
        raise(s)
    }

    /// The signal is noted first, then the change checked: a change that ends meanwhile sees the note, or the handler
    /// sees no change under way, so no signal is lost.
    static let handler: @convention(c) (Int32) -> Void = { s in
        pending.store(s, ordering: .sequentiallyConsistent)
        if changing.load(ordering: .sequentiallyConsistent) == 0 { end(s) }
    }
}
