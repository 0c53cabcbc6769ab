#if canImport(Glibc)
import Glibc
#endif

/// Reading files and directories with the errors a user can act on.
public enum FileSystem {
    /// Reads a regular file whole; anything else (a FIFO, a device, an unreadable or too large file) is an error.
    public static func readFile(_ path: String, limit: Int) -> Result<[UInt8], TagwardenError> {
        readFile(at: AT_FDCWD, path, limit: limit)
    }

    /// The same, for a path relative to the directory `dirFD`.
    public static func readFile(at dirFD: Int32, _ path: String, limit: Int) -> Result<[UInt8], TagwardenError> {
        let fd = openat(dirFD, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(TagwardenError("cannot be read: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(TagwardenError("cannot be read: \(String(cString: strerror(errno)))")) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(TagwardenError("not a regular file")) }
        let size = Int(st.st_size)
        if size > limit { return .failure(TagwardenError("larger than the \(ByteCount.formatSize(limit)) limit (\(ByteCount.formatSize(size)))")) }
        var failure: Int32?
        // the bytes are read straight into the array's storage, which is not zeroed first
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, got in
            while got < size {
                let n = read(fd, buffer.baseAddress! + got, size - got)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if n == 0 { break }
                got += n
            }
        }
        if let failure { return .failure(TagwardenError("cannot be read: \(String(cString: strerror(failure)))")) }
        return .success(bytes)
    }

    /// The names in a directory, without `.` and `..`.
    public static func directoryEntries(_ path: String) throws -> [String] {
        guard let d = opendir(path) else { throw TagwardenError("cannot list \(path)") }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }
}
