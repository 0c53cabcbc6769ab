/// Sizes as messages state them: `512 MiB`, `1.5 MiB`, `12 KiB`, `300 bytes`.
public enum ByteCount {
    public static func formatSize(_ n: Int) -> String {
        if n >= 1024 * 1024, n % (1024 * 1024) == 0 { return "\(n / (1024 * 1024)) MiB" }
        if n >= 1024 * 1024 { return String(format1(Double(n) / 1048576.0)) + " MiB" }
        if n >= 1024 { return "\(n / 1024) KiB" }
        return "\(n) bytes"
    }

    static func format1(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
