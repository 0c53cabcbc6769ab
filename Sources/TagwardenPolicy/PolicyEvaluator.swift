import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
#if canImport(Glibc)
import Glibc
#endif

/// An ImagePolicy's choice of tags, as Flux's image-reflector-controller makes it (`applyPolicy`).
public struct PolicyDefinition: Sendable {
    public enum Choice: Sendable, Hashable {
        case semver(String)
        case alphabetical(String)   // order as written ("" = asc)
        case numerical(String)
    }

    public var choice: Choice?
    /// nil: no `filterTags` at all; a filter may have an empty pattern.
    public var pattern: String?
    public var extract: String?
    public var hasFilter: Bool
    /// ImageRepository `exclusionList`; nil or empty means the default `^.*\.sig$`.
    public var exclusionList: [String]?
    /// ImageRepository `spec.image`, for the result's name.
    public var image: String?

    public init(choice: Choice?, pattern: String? = nil, extract: String? = nil, hasFilter: Bool = false,
                exclusionList: [String]? = nil, image: String? = nil) {
        self.choice = choice
        self.pattern = pattern
        self.extract = extract
        self.hasFilter = hasFilter || pattern != nil || extract != nil
        self.exclusionList = exclusionList
        self.image = image
    }

    /// Everything that decides how tags fare (not the image's name): equal behaviours evaluate alike.
    public struct Behaviour: Hashable, Sendable {
        let choice: Choice?
        let pattern: String?, extract: String?
        let hasFilter: Bool
        let exclusionList: [String]?
    }

    public var behaviour: Behaviour {
        Behaviour(choice: choice, pattern: pattern, extract: extract, hasFilter: hasFilter, exclusionList: exclusionList)
    }
}

public struct TagVerdict: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case selected, excluded, filteredOut = "filtered-out", replaced, unparsable, outOfRange = "out-of-range",
             notNumeric = "not-numeric", ranked, tie
    }
    public var tag: String
    public var key: String?
    public var kind: Kind
    public var reason: String
}

public struct PolicyResult: Sendable {
    /// The chosen original tag.
    public var selected: String?
    /// `name:tag` as Flux's `latestRef` prints it.
    public var latestRef: String?
    /// Flux's error message when the policy fails (no tag, a numeric parse failure …).
    public var error: String?
    public var verdicts: [TagVerdict] = []
    /// Equal keys Flux would choose between in random map order; the rule here is documented in the README.
    public var ties: [String] = []
}

public struct PolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

public struct PolicyEvaluator: Sendable {
    public let definition: PolicyDefinition
    let regex: GoRegex?
    let extractTemplate: GoRegex.Template?
    let exclusions: [GoRegex]
    package let constraint: SemverConstraint?
    let ascending: Bool
    package let flux: TagParsing

    public static let defaultExclusion = #"^.*\.sig$"#
    static let defaultExclusionRegex = try? GoRegex(defaultExclusion)

    /// Validates the policy as Flux does when it builds the policer; invalid ones are `PolicyError`s.
    /// `compiled` is the pattern already compiled, when the caller has it.
    public init(_ d: PolicyDefinition, flux: TagParsing = .current, compiled: GoRegex? = nil) throws(PolicyError) {
        definition = d
        self.flux = flux
        guard let choice = d.choice else { throw PolicyError(message: "invalid policy: given ImagePolicyChoice object is invalid") }
        var asc = true
        var con: SemverConstraint?
        switch choice {
        case .semver(let r):
            do { con = try SemverConstraint(r) } catch { throw PolicyError(message: "invalid policy: semver parse error: \(error.message)") }
        case .alphabetical(let o), .numerical(let o):
            switch o.uppercased() {
            case "", "ASC": asc = true
            case "DESC": asc = false
            default: throw PolicyError(message: "invalid policy: invalid order argument provided: '\(o.uppercased())', must be one of: ASC, DESC")
            }
        }
        constraint = con
        ascending = asc
        if d.hasFilter, let compiled, compiled.pattern == (d.pattern ?? "") {
            regex = compiled
        } else if d.hasFilter {
            let p = d.pattern ?? ""
            do { regex = try GoRegex(p) } catch {
                throw PolicyError(message: "failed to filter tags: invalid regular expression pattern '\(p)': error parsing regexp: \(error.code): `\(error.expr)`")
            }
        } else {
            regex = nil
        }
        if let re = regex, let e = d.extract, !e.isEmpty { extractTemplate = re.template(e) } else { extractTemplate = nil }
        var ex: [GoRegex] = []
        let list = (d.exclusionList?.isEmpty ?? true) ? [PolicyEvaluator.defaultExclusion] : d.exclusionList!
        for p in list {
            if p == PolicyEvaluator.defaultExclusion, let re = PolicyEvaluator.defaultExclusionRegex { ex.append(re); continue }
            do { ex.append(try GoRegex(p)) } catch { throw PolicyError(message: "failed to compile regex \(p): \(error)") }
        }
        exclusions = ex
    }

    /// The key a tag is ranked by (the tag, or the `extract` expansion), or nil when the filter drops it.
    public func key(for tag: String) -> String? {
        guard let re = regex else { return tag }
        var t = tag
        return t.withUTF8 { bytes -> String? in
            if let tpl = extractTemplate { return re.expandFirstMatch(tpl, subject: bytes) }
            return re.matches(bytes: bytes) ? tag : nil
        }
    }

    public func isExcluded(_ tag: String) -> GoRegex? { exclusions.first { $0.matches(tag) } }

    /// The names in `extract` that the pattern has no group for: they expand to nothing, as in Go.
    public var unknownExtractGroups: [String] {
        guard let re = regex, let e = definition.extract, !e.isEmpty else { return [] }
        return GoRegex.scanTemplate(e).compactMap { piece in
            if case .reference(let name) = piece, re.groupIndex(name) < 0 { return name }
            return nil
        }
    }

    /// Byte order, descending: how the ImageRepository scan stores tags (and so the order a policy sees them).
    public static func databaseOrder(_ tags: [String]) -> [String] {
        tags.sorted { SourceText.byteLess($1, $0) }
    }

    /// Flux's `applyPolicy` on a tag list. Deterministic where Flux is not: keys are ranked as if in database
    /// order (descending bytes of their original tag) — among equal semver versions the first wins, among equal
    /// numbers the last, as Flux's loops do — and such ties are reported. Linear: no sort unless `explain`.
    public func evaluate(_ input: [String], explain: Bool = false) -> PolicyResult {
        var result = PolicyResult()
        var verdicts: [TagVerdict] = []
        // filter and extract: key → original tag. Flux's map keeps the last writer in descending order,
        // which is the smallest original tag.
        var keys: [String] = []
        var original: [String: String] = [:]
        original.reserveCapacity(min(input.count, 1 << 14))
        var keyOfTag: [String: String] = [:]
        for t in input {
            if let ex = isExcluded(t) {
                if explain { verdicts.append(TagVerdict(tag: t, kind: .excluded, reason: "matches the exclusion \(ex.pattern)")) }
                continue
            }
            guard let k = key(for: t) else {
                if explain { verdicts.append(TagVerdict(tag: t, kind: .filteredOut, reason: "no match of the pattern \(definition.pattern ?? "")")) }
                continue
            }
            if let o = original[k] {
                if SourceText.byteLess(t, o) { original[k] = t }
            } else {
                original[k] = t
                keys.append(k)
            }
            if explain { keyOfTag[t] = k }
        }
        if explain {
            for (t, k) in keyOfTag where original[k] != t {
                verdicts.append(TagVerdict(tag: t, key: k, kind: .replaced,
                                           reason: "its key '\(k)' is also the key of \(original[k]!), which Flux keeps"))
            }
        }
        guard !keys.isEmpty else {
            result.error = "version list argument cannot be empty"
            result.verdicts = explain ? sortedVerdicts(verdicts, input) : []
            return result
        }
        // "earlier in database order" = a greater original tag
        func earlier(_ a: String, _ b: String) -> Bool { SourceText.byteLess(original[b]!, original[a]!) }
        var best: String?
        var equal: [String] = []
        switch definition.choice! {
        case .semver:
            var bestVersion: SemVersion?
            for k in keys {
                guard let v = SemVersion.parseTag(k, flux: flux) else {
                    if explain { verdicts.append(TagVerdict(tag: original[k]!, key: k, kind: .unparsable, reason: "'\(k)' does not parse as a version")) }
                    continue
                }
                guard constraint!.check(v, flux: flux) else {
                    if explain { verdicts.append(TagVerdict(tag: original[k]!, key: k, kind: .outOfRange, reason: "\(k) is outside \(constraint!.text)")) }
                    continue
                }
                let c = bestVersion.map { v.compare($0) } ?? 1
                if c > 0 || (c == 0 && earlier(k, best!)) {
                    if c > 0 { equal = [] } else { equal.append(best!) }
                    bestVersion = v
                    best = k
                } else if c == 0 {
                    equal.append(k)
                }
            }
            if best == nil { result.error = "unable to determine latest version from provided list" }
        case .alphabetical:
            best = ascending ? keys.max(by: SourceText.byteLess) : keys.min(by: SourceText.byteLess)
        case .numerical:
            var bestValue: Double?
            for k in keys {
                switch GoFloat.parse(k) {
                case .failure:
                    if result.error == nil { result.error = "failed to parse invalid numeric value '\(k)'" }
                    if explain { verdicts.append(TagVerdict(tag: original[k]!, key: k, kind: .notNumeric, reason: "'\(k)' is not a number: Flux fails the whole policy")) }
                case .success(let v):
                    guard let bv = bestValue else { bestValue = v; best = k; continue }
                    if v == bv {
                        // the later in database order wins
                        if earlier(best!, k) { equal.append(best!); best = k } else { equal.append(k) }
                    } else if ascending ? v > bv : v < bv {
                        bestValue = v
                        best = k
                        equal = []
                    }
                }
            }
            if result.error != nil { best = nil; equal = [] }
        }
        result.ties = equal.isEmpty ? [] : (equal + [best!]).sorted(by: earlier)
        if let best {
            let tag = original[best]!
            result.selected = tag
            result.latestRef = definition.image.map { "\($0):\(tag)" }
        }
        if explain {
            var judged = Set(verdicts.map(\.tag))
            for k in keys where !judged.contains(original[k]!) {
                let t = original[k]!
                judged.insert(t)
                if k == best {
                    verdicts.append(TagVerdict(tag: t, key: k, kind: .selected, reason: result.ties.isEmpty ? "selected" : "selected (ties: \(result.ties.joined(separator: ", ")))"))
                } else if result.ties.contains(k) {
                    verdicts.append(TagVerdict(tag: t, key: k, kind: .tie, reason: "ranks equal to the selected key; Flux's choice between them is random"))
                } else {
                    verdicts.append(TagVerdict(tag: t, key: k, kind: .ranked, reason: "ranked below the selected key"))
                }
            }
            result.verdicts = sortedVerdicts(verdicts, input)
        }
        return result
    }

    /// Verdicts in database order, as the policy sees the tags.
    func sortedVerdicts(_ verdicts: [TagVerdict], _ input: [String]) -> [TagVerdict] {
        verdicts.sorted { SourceText.byteLess($1.tag, $0.tag) }
    }
}
