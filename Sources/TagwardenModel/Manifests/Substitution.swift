import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// Flux's post-build variable substitution, as far as image references need it: a Flux Kustomization with
/// `spec.postBuild` replaces `${VAR}` in everything it builds (kustomize-controller, fluxcd/pkg/envsubst).
/// A reference written with variables is judged as each Kustomization that applies its file makes it.
public struct Substitution: Sendable {
    /// The reference as written.
    public var written: String
    /// The Flux Kustomizations (object indices) that apply the file and make this text of it.
    public var kustomizations: [ObjectID]
    /// Variables used without a default that they do not define: Flux (unless its StrictPostBuildSubstitutions
    /// feature gate is on) puts an empty string in their place.
    public var undefined: [String]
    /// Why the text stays as written: the Kustomization has no `postBuild`, or the object is labelled or
    /// annotated `kustomize.toolkit.fluxcd.io/substitute: disabled`; nil when Flux substitutes.
    public var notApplied: String?
    /// A second text of the same field (another Kustomization makes another): not counted again as an image.
    public var isRepeat: Bool
    /// The Flux Kustomization whose `spec.patches` or `spec.images` hold the reference, where what the others make of
    /// it still has variables (`$${image}` makes `${image}`): it patches its own build with that text and then
    /// substitutes its variables, as kustomize-controller builds before it substitutes.
    public var then: ObjectID? = nil
}

/// fluxcd/pkg/envsubst's reading of `${…}`, for the forms a reference uses: `${var}`, the default forms
/// `${var:=d}` `${var:-d}` `${var=d}` (and `:?` `:+`, which it treats alike: the value when it is not empty,
/// else the default), defaults holding further `${…}`, and `$$` for a `$`. Other expressions (`${var:1}`,
/// `${var^^}`, `${#var}`, `${var/a/b}`) are not evaluated here.
package enum Envsubst {
    enum Value {
        case defined(String)
        /// no variable of the name: Flux substitutes an empty string
        case undefined
        /// a source this repository does not show might define it
        case unknown
    }

    /// The text Flux makes of `s`, and the variables it found undefined; nil when a value cannot be known
    /// here, the expression is not one evaluated here, or Flux cannot parse it.
    static func expand(_ s: String, _ lookup: @escaping (String) -> Value) -> (text: String, undefined: [String])? {
        var p = Parser(bytes: Array(s.utf8), lookup: lookup)
        guard let out = p.text() else { return nil }
        return (String(decoding: out, as: UTF8.self), p.undefined)
    }

    /// The variables `s` reads, each once, in the order they are written; nil when Flux cannot parse it.
    package static func variables(_ s: String) -> [String]? {
        guard s.containsBytes("$") else { return [] }
        var p = Parser(bytes: Array(s.utf8), lookup: { _ in .defined("") })   // empty: every default is read too
        guard p.text() != nil else { return nil }
        return p.names
    }

    private struct Parser {
        let bytes: [UInt8]
        let lookup: (String) -> Value
        var i = 0
        var undefined: [String] = []
        /// Every variable name, once, in the order written.
        var names: [String] = []
        /// `${…}` inside defaults, counted: a string of thousands nested would otherwise exhaust the stack
        var depth = 0

        func at(_ k: Int) -> UInt8? { k < bytes.count ? bytes[k] : nil }

        /// Text with its `${…}` expanded: the whole string, where `$$` is read as `$`, or (`inFunction`) a default up
        /// to and past its closing brace, where nothing is an escape (Flux's scanner reads a function's parameters
        /// without its escape mode: `$$` stays `$$`, and `$${X}` is `$` before `${X}`).
        mutating func text(inFunction: Bool = false) -> [UInt8]? {
            var out: [UInt8] = []
            while let c = at(i) {
                if inFunction, c == UInt8(ascii: "}") {
                    i += 1
                    return out
                }
                let next = at(i + 1)
                if c == UInt8(ascii: "$"), next == UInt8(ascii: "{") {
                    i += 2
                    guard let v = function() else { return nil }
                    out += v
                } else if !inFunction, c == UInt8(ascii: "$"), next == UInt8(ascii: "$") {
                    out.append(c)
                    i += 2
                } else {
                    out.append(c)
                    i += 1
                }
            }
            return inFunction ? nil : out   // a default without its closing brace: Flux refuses the file
        }

        /// Go's `unicode.IsLetter(r) || unicode.IsDigit(r)` for a non-ASCII scalar.
        static func isIdentScalar(_ s: Unicode.Scalar) -> Bool {
            switch s.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber: return true
            default: return false
            }
        }

        /// The scalar that starts at byte `k`, and its length; nil for a malformed sequence.
        func scalar(at k: Int) -> (Unicode.Scalar, Int)? {
            var it = bytes[k...].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let s) = decoder.decode(&it) else { return nil }
            return (s, UTF8.width(s))
        }

        static func isIdent(_ c: UInt8) -> Bool {
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == UInt8(ascii: "_")
        }

        /// After `${`: a variable, or a variable with a default.
        mutating func function() -> [UInt8]? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= 32 else { return nil }
            let start = i
            // a name: letters, digits (Unicode's, as Go's unicode.IsLetter and IsDigit take them) and `_`, at least one
            while let c = at(i) {
                if Parser.isIdent(c) { i += 1; continue }
                guard c >= 0x80, let (scalar, length) = scalar(at: i), Parser.isIdentScalar(scalar) else { break }
                i += length
            }
            guard i > start, let next = at(i) else { return nil }
            let name = String(decoding: bytes[start..<i], as: UTF8.self)
            if !names.contains(name) { names.append(name) }
            switch next {
            case UInt8(ascii: "}"):
                i += 1
                switch lookup(name) {
                case .defined(let v): return Array(v.utf8)
                case .undefined:
                    if !undefined.contains(name) { undefined.append(name) }
                    return []
                case .unknown: return nil
                }
            case UInt8(ascii: ":"):
                guard let op = at(i + 1), [UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: "+")].contains(op) else {
                    return nil   // ${var:offset:length}
                }
                i += 2
            case UInt8(ascii: "="):
                i += 1
            default:
                return nil   // ${var-d} does not parse in Flux's fork; casing, trimming, replacing: not evaluated
            }
            guard let fallback = text(inFunction: true) else { return nil }   // the default, up to the closing brace
            switch lookup(name) {
            case .defined(let v) where !v.isEmpty: return Array(v.utf8)
            case .defined, .undefined: return fallback
            case .unknown: return nil
            }
        }
    }
}

/// The variables of the Flux Kustomizations that apply each file (`spec.postBuild`): `substitute`, then the ConfigMaps
/// of `substituteFrom` the repository holds (a later source wins, `substitute` over all).
struct PostBuildVariables {
    let objects: Objects
    let namespaces: Table<ObjectID, String?>
    let environments: Table<ObjectID, String?>
    let configMaps: [String: [ObjectID]]
    /// File → the Flux Kustomizations whose build takes it.
    let kustomizationsOfFile: [FileID: [ObjectID]]
    /// ConfigMaps that a kustomization taking them may change (`changedByBuilds`): their data as written is not what
    /// the cluster gets, and what they define is not known here.
    let changedConfigMaps: Set<ObjectID>
    /// Files of Kustomizations whose `postBuild` a parent's patch sets: what they substitute is not known here.
    let patchedFiles: Set<FileID>
    /// File of a Kustomization → the values the config's `clusters:` give the variables of the clusters that apply it
    /// (`substitute`): what the repository does not give, such as a ConfigMap made outside it.
    let declared: [FileID: [String: String]]
    /// The clusters that apply a file (`Clusters.of`): of several ConfigMaps of one name, a Kustomization substitutes
    /// from the one its own cluster applies, as the topology reads its paths.
    let clustersOf: @Sendable (FileID) -> [ClusterID]

    init(objects: Objects, namespaces: Table<ObjectID, String?>, environments: Table<ObjectID, String?>, configMaps: [String: [ObjectID]],
         kustomizationsOfFile: [FileID: [ObjectID]], changedConfigMaps: Set<ObjectID> = [], declared: [FileID: [String: String]] = [:],
         clustersOf: @escaping @Sendable (FileID) -> [ClusterID] = { _ in [] }) {
        self.declared = declared
        self.changedConfigMaps = changedConfigMaps
        self.clustersOf = clustersOf
        self.objects = objects
        self.namespaces = namespaces
        self.environments = environments
        self.configMaps = configMaps
        self.kustomizationsOfFile = kustomizationsOfFile
        var patched = Set<FileID>()
        for (f, ks) in kustomizationsOfFile where ks.contains(where: { objects[$0].fluxKustomization?.patchesPostBuild == true }) {
            patched.insert(f)
        }
        patchedFiles = patched
    }

    /// Whether any Flux Kustomization of the repository substitutes variables.
    var anyActive: Bool {
        objects.contains { $0.isFluxKustomization && $0.fluxKustomization?.postBuild?.isActive == true }
    }

    /// The Kustomization's variables; nil when it substitutes nothing (no `postBuild`), or a parent's patch gives it
    /// variables its file does not show.
    /// The config's values, where the repository does not give one, complete it: a variable its sources leave unknown
    /// or undefined takes the value the config declares for the Kustomization's cluster.
    /// A `substitute` value written with `${…}` (`radix_acr_repo_url: ${radix_acr_repo_url}`) is what the builds that
    /// apply the Kustomization's own file make of it, when they agree; not known where nothing here applies that file.
    func lookup(_ k: ObjectID, depth: Int = 0) -> ((String) -> Envsubst.Value)? {
        guard let post = objects[k].fluxKustomization?.postBuild, post.isActive else { return nil }
        let configured = declared[objects[k].file] ?? [:]
        if patchedFiles.contains(objects[k].file) {
            guard !configured.isEmpty else { return nil }
            return { name in configured[name].map { .defined($0) } ?? .unknown }
        }
        return { name in
            if let v = post.substitute[name] {
                guard v.containsBytes("${"), depth < 8, !objects[k].substitutionDisabled else { return .defined(v) }
                var made: String?
                let parents = (kustomizationsOfFile[objects[k].file] ?? []).filter { $0 != k }
                // (a Kustomization written with variables that nothing here applies is substituted by what applies it,
                // which is not seen: kommander-applications' `${releaseNamespace}` ones)
                if parents.isEmpty { return .unknown }
                for parent in parents {
                    guard objects[parent].fluxKustomization?.postBuild?.isActive == true else { continue }
                    guard let outer = lookup(parent, depth: depth + 1), let r = Envsubst.expand(v, outer), made == nil || made == r.text else {
                        return .unknown
                    }
                    made = r.text
                }
                return .defined(made ?? v)
            }
            var value = Envsubst.Value.undefined
            for source in post.substituteFrom {
                // a Secret is not read (it is usually encrypted), nor a ConfigMap the repository does not hold
                guard source.kind == "ConfigMap", let data = configData(source.name, kustomization: k) else {
                    value = .unknown
                    continue
                }
                if let v = data[name] { value = .defined(v) }
            }
            if case .defined = value { return value }
            return configured[name].map { .defined($0) } ?? value
        }
    }

    func configData(_ name: String, kustomization k: ObjectID) -> [String: String]? {
        var found = configMaps[(namespaces[k] ?? "") + "/" + name] ?? []
        // several clusters in one repository: the one the Kustomization's cluster applies, else of its environment
        if found.count > 1 {
            let mine = Set(clustersOf(objects[k].file))
            let applied = mine.isEmpty ? [] : found.filter { !mine.isDisjoint(with: clustersOf(objects[$0].file)) }
            found = applied.count == 1 ? applied : found.filter { environments[$0] == environments[k] }
        }
        return found.count == 1 && !changedConfigMaps.contains(found[0]) ? objects[found[0]].configData : nil
    }

    /// The ConfigMaps (of `candidates`) whose file a kustomization takes that may change what it holds, itself or
    /// further up its chain: a patch or Component (pauwels-labs/flux-infra's per-cluster overlay patches the base's
    /// empty `data` with the registry host), a generator, a transformer or replacement, a configuration file.
    static func changedByBuilds(_ candidates: [ObjectID], objects: Objects, files: Files, graph: IncludeGraph) -> Set<ObjectID> {
        guard !graph.isEmpty else { return [] }
        let memo = IncludeGraph.Memo<String, Bool>(cycle: false)
        func changed(_ path: String, _ depth: Int) -> Bool {
            memo.value(path) {
                graph.includers(of: path, depth: depth).contains { k in
                    let o = objects[k]
                    return o.kustomizeChangesResources || !o.configMapGenerators.isEmpty || !o.kustomizeUnknowns.isEmpty
                        || !o.kustomizeConfigFiles.isEmpty || changed(graph.directory(of: k), depth + 1)
                }
            }
        }
        return Set(candidates.filter { changed(files[objects[$0].file].path, 0) })
    }

    /// The texts the builds that apply `file` and substitute make of `text`, each once; nil when one of them cannot be
    /// known here (a Secret, a variable a parent's patch gives) or none substitutes.
    func expansions(_ text: String, file: FileID) -> [String]? {
        expansionsByBuild(text, file: file).map(FluxIndex.distinctTexts)
    }

    /// What each build that applies `file` and substitutes makes of `text`, with the Flux Kustomization of the build;
    /// nil as `expansions`.
    func expansionsByBuild(_ text: String, file: FileID) -> [(kustomization: ObjectID, text: String)]? {
        var out: [(kustomization: ObjectID, text: String)] = []
        for k in kustomizationsOfFile[file] ?? [] {
            guard objects[k].fluxKustomization?.postBuild?.isActive == true else { continue }
            guard let lookup = lookup(k), let r = Envsubst.expand(text, lookup) else { return nil }
            out.append((k, r.text))
        }
        return out.isEmpty ? nil : out
    }
}

extension Substitution {
    /// The texts Flux makes of the references in `pending`, one image per distinct text and environment.
    /// A file that no Kustomization with `postBuild` applies keeps its references unjudged: they are filled
    /// in by something Tagwarden does not see.
    static func resolve(_ pending: [ImageUse], variables: PostBuildVariables) -> [ImageUse] {
        guard !pending.isEmpty, variables.anyActive else { return [] }
        let objects = variables.objects, namespaces = variables.namespaces, environments = variables.environments
        var out: [ImageUse] = []
        var seen = Set<String>()
        for use in pending {
            guard seen.insert("\(use.file):\(use.span.start.offset)").inserted,
                  let ks = variables.kustomizationsOfFile[use.file], ks.contains(where: { objects[$0].fluxKustomization?.postBuild?.isActive == true })
            else { continue }
            // the sources the substituting Kustomizations read the file from (a Kustomization's own namespace when not given)
            func source(_ k: ObjectID) -> FluxKustomizationSpec.SourceRef? {
                guard var src = objects[k].fluxKustomization?.source else { return nil }
                if src.namespace == nil { src.namespace = namespaces[k] }
                return src
            }
            let substitutingSources = Set(ks.filter { objects[$0].fluxKustomization?.postBuild?.isActive == true }.map(source))
            var made: [(image: ImageUse, environment: String?, substitution: Substitution)] = []
            for k in ks {
                // its postBuild may come from a parent's patch: what it substitutes is not known here
                guard let spec = objects[k].fluxKustomization, !variables.patchedFiles.contains(objects[k].file) else { continue }
                var img: ImageUse
                var undefined: [String] = []
                var notApplied: String?
                var then: ObjectID?
                if let lookup = variables.lookup(k), !(use.object.map { objects[$0].substitutionDisabled } ?? false) {
                    guard let r = substituted(use, lookup) else { continue }
                    (img, undefined) = r
                    // a Flux Kustomization's own patch or entry that keeps variables after this one: its build substitutes them
                    if let inner = use.object, inner != k, let innerSpec = objects[inner].fluxKustomization, Extractor.isTemplated(img.text) {
                        if let innerLookup = variables.lookup(inner) {
                            guard let r = substituted(img, innerLookup) else { continue }
                            img = r.0
                            for u in r.1 where !undefined.contains(u) { undefined.append(u) }
                            then = inner
                        } else if innerSpec.postBuild?.isActive == true {
                            continue   // its postBuild comes from a patch: what it substitutes is not known here
                        }
                    }
                } else {
                    // one that reads the file from another source (another repository at the same path) is not this file's
                    guard substitutingSources.contains(source(k)) else { continue }
                    img = asWritten(use)
                    notApplied = spec.postBuild?.isActive == true
                        ? "the object is marked kustomize.toolkit.fluxcd.io/substitute: disabled" : "it has no postBuild"
                }
                // a text that is no reference is reported once, whichever clusters make it
                let env = img.invalid == nil ? environments[k] : nil
                if let m = made.firstIndex(where: { $0.image.text == img.text && $0.environment == env }) {
                    made[m].substitution.kustomizations.append(k)
                    for u in undefined where !made[m].substitution.undefined.contains(u) { made[m].substitution.undefined.append(u) }
                } else {
                    made.append((img, env, Substitution(written: use.text, kustomizations: [k], undefined: undefined,
                                                        notApplied: notApplied, isRepeat: !made.isEmpty, then: then)))
                }
            }
            for var m in made {
                m.image.substitution = m.substitution
                // it runs where the Kustomization that made it applies it
                m.image.environmentObject = m.substitution.kustomizations[0]
                out.append(m.image)
            }
        }
        return out
    }

    /// The image Flux makes of `use`: a whole reference expanded as one text, a reference in parts part by part
    /// (a tag stays where its field is); nil when a part cannot be expanded here.
    private static func substituted(_ use: ImageUse, _ lookup: @escaping (String) -> Envsubst.Value) -> (ImageUse, [String])? {
        var undefined: [String] = []
        func expand(_ s: String?) -> String?? {
            guard let s, Extractor.isTemplated(s) else { return .some(s) }
            guard let r = Envsubst.expand(s, lookup) else { return nil }
            for u in r.undefined where !undefined.contains(u) { undefined.append(u) }
            return .some(r.text)
        }
        var img = use.copy()
        if use.isParts {
            guard let name = expand(use.name), let tag = expand(use.tag?.value), let digest = expand(use.digest) else { return nil }
            img.name = name
            img.tag = use.tag.map { Located(value: tag ?? "", span: $0.span, type: $0.type) }
            img.digest = digest
            img.compose()
        } else {
            guard let text = expand(use.text), let text else { return nil }
            img.text = text
            img.parse(text)
        }
        return (img, undefined)
    }

    /// `use` as written, `${…}` and all: what a cluster that does not substitute deploys.
    private static func asWritten(_ use: ImageUse) -> ImageUse {
        var img = use.copy()
        if use.isParts { img.compose() } else { img.parse(use.text) }
        return img
    }

    /// What a finding about the image adds: how the text came to be.
    package func note(_ model: Model) -> String {
        // by file too: the clusters of one repository often call theirs alike (flux-system/apps)
        let several = kustomizations.count > 1
        let names = (several ? "Flux Kustomizations " : "Flux Kustomization ") + kustomizations.map { k in
            model.qualifiedName(k) + " in " + model.path(model.objects[k].file)
        }.joined(separator: ", ")
        if let notApplied {
            return " (\(names) \(several ? "apply" : "applies") it as written: \(notApplied))"
        }
        var note = " (written '\(written)', substituted by \(names)"
        if let then {
            note += ", then by Flux Kustomization \(model.qualifiedName(then)) in \(model.path(model.objects[then].file)), which writes it into its own build"
        }
        if !undefined.isEmpty {
            note += "; \(undefined.joined(separator: ", ")) \(undefined.count == 1 ? "is" : "are") not defined there, so Flux puts an empty string in its place"
        }
        return note + ")"
    }
}

/// What text written with variables that nothing here gives a value may be, whatever their values: the literal text
/// between them, in order (`${image_registry}/web`: anything that ends with `/web`). Only a text whose last path
/// segment is written out makes one: `ghcr.io/acme/${app}` or `${image}` could be any image.
public struct VariablePattern: Sendable {
    /// The text as written.
    public let written: String
    private let parts: [[UInt8]]

    init?(_ written: String) {
        // every variable made one byte that no reference holds, whatever its default
        guard let made = Envsubst.expand(written, { _ in .defined("\u{0}") }), let last = made.text.utf8.lastIndex(of: 0),
              let slash = made.text.utf8[last...].firstIndex(of: UInt8(ascii: "/")), slash != made.text.utf8.indices.last else { return nil }
        self.written = written
        parts = made.text.utf8.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
    }

    /// Whether some values of the variables make `text` of it: it starts and ends with the outer texts, and holds the
    /// others in order between them.
    public func matches(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = parts.first, let last = parts.last, bytes.count >= first.count + last.count,
              bytes.starts(with: first), bytes.suffix(last.count).elementsEqual(last) else { return false }
        let end = bytes.count - last.count
        var at = first.count
        return bytes.withUnsafeBytes { hay in
            parts.dropFirst().dropLast().allSatisfy { middle in
                middle.isEmpty || middle.withUnsafeBytes { n in
                    guard let found = SourceText.find(hay, n, from: at), found + middle.count <= end else { return false }
                    at = found + middle.count
                    return true
                }
            }
        }
    }
}

extension Model {
    /// Why an ImageRepository's image written with variables is not known: the variables, and the config key that gives
    /// them values.
    public static func unresolvedImage(_ image: String, variables: [String]) -> String {
        let names = variables.map { "${\($0)}" }.joined(separator: ", ")
        return "its ImageRepository's image '\(image)' uses \(names), which nothing in this repository gives one value (a ConfigMap "
            + "or Secret made elsewhere, or builds that disagree): set \(variables.count == 1 ? "it" : "them") under substitute: "
            + "of its cluster in \(Config.fileName)"
    }

    /// What a finding about image `i` assumes when only an ImageRepository whose image has variables not known here
    /// makes it promoted (`ResolvedImage.assumedWatchers`): that the first of them watches it. nil when it is a fact.
    public func promotionAssumption(_ i: ImageID) -> String? {
        guard let first = images[i].assumedWatchers.first else { return nil }
        let r = flux.repositories[first], names = r.unresolvedVariables
        return "assuming ImageRepository \(r.namespace ?? "flux-system")/\(r.name) ('\(r.imagePattern?.written ?? "")') watches it: "
            + "\(names.joined(separator: ", ")) \(names.count == 1 ? "is" : "are") not defined here; set \(names.count == 1 ? "it" : "them") "
            + "under substitute: of its cluster in \(Config.fileName)"
    }
}
