/// This build of Tagwarden.
public enum Version {
    /// Reports and caches carry it; `--version` prints it.
    public static let current = "0.1.0"
}
