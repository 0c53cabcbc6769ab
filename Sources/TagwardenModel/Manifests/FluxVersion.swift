import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// A Flux distribution version (`v2.3.0`, `2.7`): what a repository runs, detected or configured.
public struct FluxVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    /// nil when only `major.minor` is known (`fluxVersion: "2.7"`, a FluxInstance's `2.7.x`).
    public var patch: Int?

    public init(_ major: Int, _ minor: Int, _ patch: Int? = nil) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// The newest Flux whose behaviour Tagwarden knows: what an unknown version is taken to be.
    public static let current = FluxVersion(2, 9)

    /// `2.7`, `v2.6.1`, `2.3.x`, `v2.4.0-rc.1`; nil for anything else.
    public static func parse(_ s: String) -> FluxVersion? {
        var t = Substring(s)
        if t.first == "v" || t.first == "V" { t = t.dropFirst() }
        if let cut = t.firstIndex(where: { $0 == "-" || $0 == "+" }) { t = t[..<cut] }
        let parts = t.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let major = Int(parts[0]), let minor = Int(parts[1]), major >= 0, minor >= 0,
              parts[0].allSatisfy(\.isASCIIDigit), parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
        var patch: Int?
        if parts.count == 3 {
            if let p = Int(parts[2]), parts[2].allSatisfy(\.isASCIIDigit) { patch = p }
            else if !["x", "X", "*"].contains(parts[2]) { return nil }
        }
        return FluxVersion(major, minor, patch)
    }

    public static func < (a: FluxVersion, b: FluxVersion) -> Bool {
        (a.major, a.minor, a.patch ?? 0) < (b.major, b.minor, b.patch ?? 0)
    }

    /// `2.3` (the minor version is what the version map turns on); `2.3.1` when the patch is known.
    public var description: String { "\(major).\(minor)" + (patch.map { ".\($0)" } ?? "") }

    /// The minor release, without the patch: `2.3` of `2.3.1`.
    public var release: FluxVersion { FluxVersion(major, minor) }

    /// How this Flux parses tags as versions.
    public var tagParsing: TagParsing { self >= FluxVersion(2, 7) ? .current : .legacy }

    /// Minor releases from this one to `later` (`2.7` to `2.9`: 2); 0 when `later` is not later.
    package func minorsUntil(_ later: FluxVersion) -> Int {
        later.major != major ? (later > self ? 10 : 0) : max(0, later.minor - minor)
    }
}

/// Which Flux serves which image-automation apiVersion: image-reflector-controller's
/// ImageRepository and ImagePolicy, image-automation-controller's ImageUpdateAutomation.
public enum FluxAPIs {
    public static let group = "image.toolkit.fluxcd.io"

    /// The Flux versions that serve `version` of `kind`: from `since` (nil: every Flux 2) until before `removedIn` (nil:
    /// still served); nil for an apiVersion no Flux serves. Read from the controllers' CustomResourceDefinitions at each
    /// release and the controller versions flux2's manifests name: v1alpha1 from the first; v1alpha2 from 0.13
    /// (image-reflector-controller v0.9, image-automation-controller v0.9); v1beta1 from 0.16 (v0.11, v0.14); both
    /// alphas gone in 0.37 (v0.23, v0.27); ImageRepository and ImagePolicy v1beta2 from 0.40 (v0.25), the automation's
    /// from 2.3 (v0.38); v1beta1 gone in 2.7, v1beta2 in 2.9.
    public static func lifetime(kind: String, version: String) -> (since: FluxVersion?, removedIn: FluxVersion?)? {
        let automation = kind == "ImageUpdateAutomation"
        switch version {
        case "v1alpha1": return (nil, FluxVersion(0, 37))
        case "v1alpha2": return (FluxVersion(0, 13), FluxVersion(0, 37))
        case "v1beta1": return (FluxVersion(0, 16), FluxVersion(2, 7))
        case "v1beta2": return (automation ? FluxVersion(2, 3) : FluxVersion(0, 40), FluxVersion(2, 9))
        case "v1": return (FluxVersion(2, 7), nil)
        default: return nil
        }
    }

    /// Whether `flux` serves `version` of `kind` by the version map.
    public static func serves(_ flux: FluxVersion, kind: String, version: String) -> Bool {
        guard let life = lifetime(kind: kind, version: version) else { return false }
        return (life.since.map { flux.release >= $0 } ?? true) && (life.removedIn.map { flux.release < $0 } ?? true)
    }

    /// The apiVersions of `kind` that `flux` serves, newest first (`v1`, `v1beta2`, `v1beta1`, `v1alpha2`, `v1alpha1`).
    public static func served(by flux: FluxVersion, kind: String) -> [String] {
        versions.filter { serves(flux, kind: kind, version: $0) }
    }

    /// Every apiVersion of the image-automation kinds, newest first.
    public static let versions = ["v1", "v1beta2", "v1beta1", "v1alpha2", "v1alpha1"]
}
