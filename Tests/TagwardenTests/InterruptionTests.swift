import Testing
import Foundation
@testable import TagwardenBasics

/// What a signal's handler may remove as it ends the process: the update lock only where this process holds it or can
/// take it, never another run's.
@Suite struct InterruptionTests {
    let dir = NSTemporaryDirectory() + "tagwarden-interruption-" + UUID().uuidString

    init() throws { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }

    func removable(_ path: String, descriptor: Int32 = -1) -> Bool {
        path.withCString { Interruption.removable($0, descriptor: descriptor) }
    }

    /// Whether `taken` comes true within five seconds. A lock this test expects to take may be held a moment longer by
    /// a process another suite spawns meanwhile: the child holds a copy of every descriptor, and with it their locks,
    /// from its fork until it starts its program (the descriptors close on exec). Only taking a lock waits so: another
    /// holder can only make a lock held, never free.
    func eventually(_ taken: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if taken() { return true }
            usleep(10_000)
        }
        return false
    }

    /// A descriptor of the file at `path` that holds its lock (as another run's would: `flock` locks are per open file,
    /// so another descriptor of this process stands for another process).
    func locked(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(fd >= 0 && eventually { flock(fd, LOCK_EX | LOCK_NB) == 0 })
        return fd
    }

    @Test func aLockIsRemovedOnlyUnderItsLock() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/tagwarden-update.lock"
        #expect(!removable(path), "no file")
        // a file made before this process recorded it, or a dead run's: no one holds it
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(eventually { removable(path) })
        // another run's
        let other = try locked(path)
        #expect(!removable(path))
        let mine = open(path, O_RDWR | O_CLOEXEC)
        #expect(mine >= 0 && !removable(path, descriptor: mine), "opened but not locked by this process")
        close(other)
        // this process's, held or taken now
        #expect(eventually { removable(path, descriptor: mine) })
        #expect(removable(path, descriptor: mine))
        // the file this process locked was removed and another made in its place: not this process's to remove
        unlink(path)
        let next = try locked(path)
        #expect(!removable(path, descriptor: mine))
        close(next)
        #expect(!removable(path, descriptor: mine), "another file at the path, even unlocked")
        #expect(eventually { removable(path) })
        close(mine)
    }

    /// A handler on another thread finds no descriptor recorded; before it tries the lock, the run opens, records and
    /// locks its own (`UpdateLock`): the handler asks again with it, and removes the lock. Another run's it still leaves.
    @Test func aLockTheRunTookMeanwhileIsRemoved() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/tagwarden-update.lock"
        var run: Int32 = -1
        var asked = 0
        let removed = path.withCString { p in
            Interruption.removing(p) {
                asked += 1
                if asked == 1 {
                    // the run, meanwhile
                    run = (try? locked(path)) ?? -1
                    return -1
                }
                return run
            }
        }
        #expect(run >= 0 && asked == 2 && removed)
        close(run)
        // (another file: a process the suite spawns meanwhile may hold a copy of the descriptor just closed until it
        // starts its program, and with it the lock)
        let otherPath = dir + "/other.lock"
        let other = try locked(otherPath)
        asked = 0
        let taken = otherPath.withCString { p in Interruption.removing(p) { asked += 1; return -1 } }
        #expect(!taken && asked == 2, "another run's lock")
        close(other)
    }
}
