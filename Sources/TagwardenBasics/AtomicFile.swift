#if canImport(Glibc)
import Glibc
#endif

/// Writes a file. A regular file (or a new one) is replaced atomically: a temporary file in its directory,
/// written, synced, given the old file's mode, then renamed over it; a symlink is followed, and what it points
/// to is replaced, never the link. Anything else (a device, a FIFO, a socket) is opened and written: renaming
/// over `/dev/null` would replace the device with a file.
public func writeFileAtomically(_ path: String, _ text: String) throws {
    try writeFileAtomically(path, bytes: Array(text.utf8))
}

/// `writeFileAtomically` of bytes.
public func writeFileAtomically(_ path: String, bytes: [UInt8]) throws {
    func failure(_ what: String = path) -> TagwardenError {
        TagwardenError("cannot write \(what): \(String(cString: strerror(errno)))")
    }
    var target = path
    var st = stat()
    if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK {
        // the link's final target, even when it does not exist yet (a dangling link names the file to create)
        var hops = 0
        while lstat(target, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK {
            hops += 1
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(target, &buf, buf.count - 1)
            guard hops <= 40, n > 0 else { errno = ELOOP; throw failure() }
            let link = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            target = link.hasPrefix("/") ? link : Path.dirname(target).isEmpty ? link : Path.dirname(target) + "/" + link
        }
    }
    let exists = stat(target, &st) == 0
    if exists, (st.st_mode & S_IFMT) != S_IFREG {
        guard (st.st_mode & S_IFMT) != S_IFDIR else { errno = EISDIR; throw failure() }
        let fd = open(target, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure() }
        defer { close(fd) }
        guard writeAll(fd, bytes) else { throw failure() }
        return
    }
    let dir = Path.dirname(target)
    var template = Array(((dir.isEmpty ? "" : dir + "/") + "." + Path.basename(target) + ".tmp-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw failure() }
    let tmp = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    var open = true
    do {
        guard writeAll(fd, bytes) else { throw failure() }
        // the replaced file keeps its mode; a new one gets what the umask allows
        var mode = st.st_mode & 0o7777
        if !exists {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        guard fchmod(fd, mode) == 0, fsync(fd) == 0 else { throw failure() }
        close(fd)
        open = false
        guard rename(tmp, target) == 0 else { throw failure() }
    } catch {
        if open { close(fd) }
        unlink(tmp)
        throw error
    }
}

/// Writes all of `bytes` to `fd` (again after a short write or EINTR); false on an error, with `errno` set.
@discardableResult
public func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        done += n
    }
    return true
}

/// Removes what a `writeFileAtomically(target, …)` killed midway left: its temporary files beside `target`
/// (`.NAME.tmp-XXXXXX`). A write that ends, even in an error, leaves none.
public func removeLeftoverTemporaries(of target: String) {
    let dir = Path.dirname(target)
    let prefix = "." + Path.basename(target) + ".tmp-"
    guard let entries = try? FileSystem.directoryEntries(dir.isEmpty ? "." : dir) else { return }
    for name in entries where name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 {
        unlink((dir.isEmpty ? "" : dir + "/") + name)
    }
}
