import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenModel

/// What `tagwarden promote` is asked: an image, the environment it is promoted from and to, and optionally the digest
/// staging was tested with and the production tag.
public struct PromotionRequest: Sendable {
    public var image: String
    public var from: String
    public var to: String
    public var digest: String?
    public var tag: String?

    public init(image: String, from: String, to: String, digest: String? = nil, tag: String? = nil) {
        self.image = image
        self.from = from
        self.to = to
        self.digest = digest
        self.tag = tag
    }
}

/// A promotion that cannot be made as asked because of what the registry or the repository holds (staging's tag moved,
/// the production tag names another build): exit code 1, not a usage error.
public struct PromotionRefused: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// The safe promotion of a tested artifact: the build staging runs (tag and digest, from the staging manifests) is
/// tagged for production in the registry without a rebuild, and the production manifests are rewritten to
/// `tag@digest` as edits of their bytes. This is the plan: what staging runs, where production names the image, and the
/// production tag; `rewrite` makes the edits once the digest is known.
public struct Promotion: Sendable {
    /// A field of a production manifest that names the image.
    public struct Site: Sendable {
        /// The model's image.
        public let image: ImageID
        public let path: String
        public let line: Int
        /// The reference as it reads now (for the diff's summary and the rollback note).
        public let before: String
    }

    /// The image as `docker.io/library/…` normalises it, and as the request wrote it.
    public let image: String
    public let imageAsGiven: String
    public let repository: RegistryRepository
    public let from: Environment
    public let to: Environment
    /// What staging runs: its tag (nil when staging pins a digest alone) and the digest its manifests pin (or
    /// `--digest`); the fields that say so, `file:line`.
    public let stagingTag: String?
    public let stagingDigest: String?
    public let stagingSites: [String]
    /// What the staging fields hold as written (the whole reference, or the tag of an image in parts): what history is
    /// searched for, to say since when staging has run the build.
    public let stagingText: String
    /// The version identity (`vX.Y.Z-<sha>-<ts>`) after staging's prefix, when the tag has one.
    public let identity: String?
    public let productionTag: String
    public let sites: [Site]
    /// The ImageRepository's cluster credentials that cannot be read here, for a note.
    public let clusterCredential: String?

    /// Plans the promotion of `request.image` in `model` (the repository at the commit promoted from).
    public static func plan(_ model: Model, request: PromotionRequest) throws -> Promotion {
        guard let wanted = ImageReference.normalizeName(request.image) else {
            throw TagwardenError("'\(request.image)' is not an image repository name (no tag or digest: ghcr.io/acme/web)")
        }
        let from = try model.environments.resolve(request.from), to = try model.environments.resolve(request.to)
        guard from.name != to.name else { throw TagwardenError("--from and --to are both \(from.name)") }

        // the fields that name the image, by environment: the tag a field writes runs unless every build retags it
        func sites(in env: Environment) -> [ImageID] {
            var seen = Set<[Int]>()
            return model.images.indices.filter { i in
                let img = model.images[i]
                guard img.environment == env.name, !img.retagged, img.invalid == nil,
                      model.repositoryName(i)?.normalized == wanted else { return false }
                return seen.insert([img.file.index, img.span.start.offset]).inserted
            }
        }
        func site(_ i: ImageID) -> String { "\(model.files[model.images[i].file].path):\(model.images[i].span.start.line)" }

        // what staging runs
        var builds: [String: (tag: String?, digest: String?, sites: [String], text: String)] = [:]
        var order: [String] = []
        for i in sites(in: from) {
            let img = model.images[i]
            let tag = img.tag?.value, digest = img.digest
            if tag == nil && digest == nil { continue }
            if let want = request.digest, let digest, digest != want { continue }
            let key = (tag ?? "") + "@" + (digest ?? "")
            if builds[key] == nil { order.append(key) }
            let text = !img.isParts && img.name != nil ? img.text : (tag ?? digest!)
            builds[key, default: (tag, digest, [], text)].sites.append(site(i))
        }
        // a field that names the tag without a digest runs what the pinned field of the same tag pins
        for key in order where builds[key]!.digest == nil {
            let tag = builds[key]!.tag
            let pinned = order.filter { builds[$0]!.tag == tag && builds[$0]!.digest != nil }
            if pinned.count == 1 {
                builds[pinned[0]]!.sites += builds[key]!.sites
                builds[key] = nil
            }
        }
        order.removeAll { builds[$0] == nil }
        guard !order.isEmpty else {
            let pinned = request.digest.map { " pinned to \($0)" } ?? ""
            throw TagwardenError("no \(from.name) manifest runs \(request.image)\(pinned): nothing to promote (see tagwarden env for where \(from.name) is)")
        }
        guard order.count == 1 else {
            let list = order.map { k in "\(k.hasPrefix("@") ? String(k.dropFirst()) : k.hasSuffix("@") ? String(k.dropLast()) : k) (\(builds[k]!.sites.joined(separator: ", ")))" }
            throw TagwardenError("\(from.name) runs \(order.count) builds of \(request.image): \(list.joined(separator: "; ")); "
                                 + "make \(from.name) agree, or pin the build you mean in \(from.name) and give its --digest")
        }
        let build = builds[order[0]]!

        // the production tag: the environment's prefix before staging's version identity, unless given
        let identity = build.tag.flatMap { PromotionEvidence.identity(tag: $0, prefix: from.tagPrefix) }
        let productionTag: String
        if let given = request.tag {
            if let identity, let named = PromotionEvidence.identity(tag: given, prefix: to.tagPrefix), named != identity {
                throw TagwardenError("--tag \(given) names the version identity \(named), but \(from.name) runs \(identity): a production tag "
                                     + "carries the identity of the build it names")
            }
            productionTag = given
        } else {
            guard let tag = build.tag else {
                throw TagwardenError("\(from.name) pins \(request.image) by digest alone (\(build.sites.joined(separator: ", "))): give the production tag with --tag")
            }
            guard let identity else {
                throw TagwardenError("\(from.name)'s tag \(tag) is not a version identity (vX.Y.Z-<sha>-<ts>\(from.tagPrefix.map { " after \($0)" } ?? "")): "
                                     + "give the production tag with --tag")
            }
            guard let prefix = to.tagPrefix else {
                throw TagwardenError("\(to.name) has no tag prefix (\(to.origin["tagPrefix"] ?? "none configured or inferred")): give the production tag with --tag, "
                                     + "or set tagPrefix for \(to.name) in .tagwarden.yaml")
            }
            productionTag = prefix + identity
        }
        guard ImageReference.isTag(productionTag) else {
            throw TagwardenError("'\(productionTag)' is not a valid tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})")
        }
        if let re = to.tagRegex, let pattern = to.tagPattern, !re.matches(productionTag) {
            throw TagwardenError("the production tag \(productionTag) does not match \(to.name)'s tag pattern \(pattern)")
        }

        // where production names the image
        let production = sites(in: to)
        guard !production.isEmpty else {
            throw TagwardenError("no \(to.name) manifest names \(request.image): nothing to rewrite (promote rewrites the production manifests; add the image there first)")
        }
        let substituted = production.filter { model.images[$0].substitution != nil || model.images[$0].provenance != nil }
        if !substituted.isEmpty {
            throw TagwardenError("\(substituted.map(site).joined(separator: ", ")): the \(to.name) reference is made elsewhere (a substitution "
                                 + "or a values file): promote cannot rewrite it in place")
        }

        var insecure = false
        var clusterCredential: String?
        for r in model.flux.repositories {
            guard let image = r.spec.image?.value, ImageReference.normalizeName(image) == wanted else { continue }
            insecure = insecure || r.spec.insecure
            if let secret = r.spec.secretRef { clusterCredential = "secret \(secret)" }
            else if let provider = r.spec.provider, provider != "generic" { clusterCredential = "provider \(provider)" }
        }
        return Promotion(image: wanted, imageAsGiven: request.image, repository: RegistryRepository(image: request.image, insecure: insecure),
                         from: from, to: to, stagingTag: build.tag, stagingDigest: build.digest, stagingSites: build.sites, stagingText: build.text,
                         identity: identity, productionTag: productionTag,
                         sites: production.map { i in
                             Site(image: i, path: model.files[model.images[i].file].path, line: model.images[i].span.start.line,
                                  before: model.images[i].text)
                         },
                         clusterCredential: clusterCredential)
    }

    /// The production manifests rewritten to the production tag and `digest`: a reference field becomes
    /// `name:tag@digest` (the name as written); a kustomize `images:` entry or chart values get the tag in their tag
    /// field and the digest in their `digest` field (added to an `images:` entry that lacks one). The result is read
    /// back as a model: every production field must name the new tag and digest, or nothing is written.
    public func rewrite(_ model: Model, files: [SourceFile], digest: String) throws -> Rewritten {
        var edits: [FileID: [(edit: Edit, line: Int, column: Int, old: String, new: String, object: ObjectID?)]] = [:]
        // a file is parsed again only where a key is added or a sibling looked up: the Model has the rest
        var parsed: [FileID: (y: YAMLFile, scalarAt: [Int: Int])] = [:]
        for site in sites {
            let img = model.images[site.image]
            let file = img.file
            let bytes = model.files[file].bytes
            func tree() -> (y: YAMLFile, scalarAt: [Int: Int]) {
                if let known = parsed[file] { return known }
                let y = YAMLFile(parsing: bytes)   // (kept: without the buffers a parse into it again would reuse)
                var at: [Int: Int] = [:]
                for (i, n) in y.nodes.enumerated() where n.kind == .scalar { at[n.span.start.offset] = i }
                parsed[file] = (y, at)
                return (y, at)
            }
            func node(at span: SourceSpan) throws -> Int {
                guard let n = tree().scalarAt[span.start.offset] else {
                    throw TagwardenError("\(site.path):\(span.start.line): the field could not be found again")
                }
                return n
            }
            func replace(_ span: SourceSpan, holding current: String, with value: String) throws {
                let style = Setters.style(at: span.start.offset, in: bytes)
                if style.isBlock {
                    throw TagwardenError("\(site.path):\(span.start.line): the field is a block scalar: promote does not rewrite those; write it on one line")
                }
                // a field that holds the value already is left as it is
                if current == value { return }
                // promote's values (`name:tag@digest`, a tag, a digest) hold no flow indicator: a flow collection around
                // the field does not change how they are quoted
                edits[file, default: []].append((Edit(span: span, replacement: Setters.encode(value, style: style, inFlow: false)),
                                                 span.start.line, span.start.column, current, value, img.object))
            }
            if !img.isParts && img.name != nil {
                // one field holds the whole reference
                try replace(img.span, holding: img.text, with: img.name! + ":" + productionTag + "@" + digest)
                continue
            }
            // an image in parts: its tag field, and its digest field
            let anchor: SourceSpan
            if let tag = img.tag {
                try replace(tag.span, holding: tag.value, with: productionTag)
                anchor = tag.span
            } else if img.origin == .kustomize {
                anchor = img.span
                try insert(key: "newTag", value: productionTag, after: try node(at: img.span), in: tree().y, file: file, object: img.object,
                           edits: &edits, site: site)
            } else {
                throw TagwardenError("\(site.path):\(site.line): the \(to.name) image has no tag field to write \(productionTag) to")
            }
            if let field = img.digestField {
                try replace(field.span, holding: field.value, with: digest)
                continue
            }
            let tagNode = try node(at: anchor)
            let y = tree().y
            if let sibling = sibling("digest", of: tagNode, in: y) {
                try replace(y.nodes[sibling].span, holding: y.value(sibling), with: digest)
            } else if img.origin == .kustomize {
                try insert(key: "digest", value: digest, after: tagNode, in: y, file: file, object: img.object, edits: &edits, site: site)
            } else {
                throw TagwardenError("\(site.path):\(site.line): the chart values name the \(to.name) tag but have no digest field to pin "
                                     + "\(digest) in: add `digest:` beside the tag if the chart reads it, or pin the image in a reference field")
            }
        }

        var rewrites: [FileRewrite] = []
        for (file, list) in edits.sorted(by: { $0.key < $1.key }) {
            let before = model.files[file].bytes
            let after: [UInt8]
            do { after = try Edit.apply(list.map(\.edit), to: before) } catch {
                throw TagwardenError("\(model.files[file].path): \(error.description)")
            }
            let changes = list.sorted { $0.edit.range.lowerBound < $1.edit.range.lowerBound }.map { e in
                SetterChange(file: model.files[file].path, line: e.line, column: e.column,
                             object: e.object.map { Setters.identity(model.objects[$0]) } ?? .none,
                             setter: "promote", oldValue: e.old, newValue: e.new)
            }
            rewrites.append(FileRewrite(path: model.files[file].path, before: before, after: after, changes: changes))
        }
        let after = files.applying(rewrites)
        let rewritten = try Model.build(after, config: model.config, profile: nil)
        try verify(rewritten, digest: digest)
        return Rewritten(rewrites: rewrites, files: after, model: rewritten)
    }

    /// The production manifests as the promotion leaves them: the files' changes, and the tree read again.
    public struct Rewritten {
        public let rewrites: [FileRewrite]
        public let files: [SourceFile]
        public let model: Model
    }

    /// The sibling value of `key` in the mapping that holds `node` as a value.
    func sibling(_ key: StaticString, of node: Int, in y: YAMLFile) -> Int? {
        let parent = y.nodes[node].parent
        guard parent >= 0, y.nodes[parent].kind == .mapping, let v = y.get(parent, key), y.nodes[v].kind == .scalar else { return nil }
        return v
    }

    /// Adds `key: value` to the mapping that holds `node` as a value: after it in a flow mapping, on the next line at
    /// its key's column in a block one.
    func insert(key: String, value: String, after node: Int, in y: YAMLFile, file: FileID, object: ObjectID?,
                edits: inout [FileID: [(edit: Edit, line: Int, column: Int, old: String, new: String, object: ObjectID?)]], site: Site) throws {
        let mapping = y.nodes[node].parent
        guard mapping >= 0, y.nodes[mapping].kind == .mapping,
              let keyNode = y.pairs(mapping).first(where: { $0.value == node })?.key else {
            throw TagwardenError("\(site.path):\(site.line): cannot add \(key): beside the field")
        }
        let bytes = y.bytes
        let end = y.nodes[node].span.end.offset
        let text = key + ": " + Setters.encode(value, style: .plain, inFlow: y.nodes[mapping].isFlow)
        let edit: Edit
        if y.nodes[mapping].isFlow {
            edit = Edit(range: end..<end, replacement: Array((", " + text).utf8))
        } else {
            var at = end
            while at < bytes.count, bytes[at] != 10 { at += 1 }
            let crlf = at > 0 && at < bytes.count && bytes[at - 1] == 13
            if crlf { at -= 1 }
            let indent = String(repeating: " ", count: y.nodes[keyNode].span.start.column - 1)
            edit = Edit(range: at..<at, replacement: Array(((crlf ? "\r\n" : "\n") + indent + text).utf8))
        }
        let line = y.nodes[node].span.start.line + (y.nodes[mapping].isFlow ? 0 : 1)
        let column = y.nodes[mapping].isFlow ? y.nodes[node].span.end.column + 2 : y.nodes[keyNode].span.start.column
        edits[file, default: []].append((edit, line, column, "", text, object))
    }

    /// The rewritten repository read as a model again: each production field names the tag and digest.
    func verify(_ after: Model, digest: String) throws {
        let wanted = image
        var found = 0
        for i in after.images.indices {
            let img = after.images[i]
            guard img.environment == to.name, !img.retagged, after.repositoryName(i)?.normalized == wanted else { continue }
            found += 1
            guard img.tag?.value == productionTag, img.digest == digest else {
                throw TagwardenError("\(after.files[img.file].path):\(img.span.start.line): the rewritten field reads as \(img.text), "
                                     + "not \(productionTag)@\(digest): nothing written")
            }
        }
        guard found >= sites.count else {
            throw TagwardenError("the rewritten \(to.name) manifests name \(imageAsGiven) \(found) times, not \(sites.count): nothing written")
        }
    }

    /// The markers on the fields the promotion rewrites, as the automations that run them judge the rewritten tree
    /// with `tags` (the registry's listing, the production tag included): a field an automation writes over is not the
    /// promotion's to keep.
    public func ownership(_ rewritten: Rewritten, tags: some TagSource) -> (fields: [AutomationOwnership.Field], notes: [String]) {
        guard !rewritten.rewrites.isEmpty else { return ([], []) }
        return AutomationOwnership.fields(rewritten.model, files: rewritten.files, image: image, tags: tags,
                                          paths: Set(rewritten.rewrites.map(\.path)))
    }

    /// What to tell the user of an automation's verdict on a promoted field.
    public func ownershipWarning(_ f: AutomationOwnership.Field) -> String? {
        guard let writes = f.writes else { return nil }
        return "\(f.file):\(f.line): ImageUpdateAutomation \(f.run) writes '\(writes)' over the promotion at its next run: "
            + "its marker \(f.setter) names policy \(f.policy), which selects that, not \(productionTag); make the \(to.name) policy select "
            + "the promoted tags (\(to.tagPrefix.map { "^\($0)" } ?? "the production tags")), or remove the marker"
    }

    // MARK: the commit

    /// Where the commit goes unless `--branch` says: `tagwarden/promote-<name>-<tag>`.
    public var branch: String {
        let last = image.split(separator: "/").last.map(String.init) ?? image
        return "tagwarden/promote-\(last)-\(productionTag)"
    }

    /// The last line of a promotion's message: what `rollback` finds it by.
    static let trailer = "Promoted-by: tagwarden promote"

    /// The message's line for an environment's reference: `Production: ` and the padding to the values' column.
    static func label(_ environment: String) -> String {
        "\(environment.capitalizedFirst):" + String(repeating: " ", count: max(1, 11 - environment.count))
    }

    /// The commit message: what is promoted (identity, digest, the staging commit it was tested at), the fields it
    /// replaces, and the review checklist of a safe promotion.
    public func message(digest: String, mediaType: String?, testedAt: String, since: (commit: String, subject: String)?,
                        rewrites: [FileRewrite], branch: String, owned: [AutomationOwnership.Field] = []) -> String {
        let name = imageAsGiven
        let title = "Promote \(name.split(separator: "/").last.map(String.init) ?? name) \(identity ?? productionTag) from \(from.name) to \(to.name)"
        var lines = [title, ""]
        lines.append("Image:      \(name)")
        if let identity { lines.append("Identity:   \(identity)") }
        lines.append("Digest:     \(digest)" + (mediaType.map { " (\($0))" } ?? ""))
        lines.append(Self.label(from.name) + "\(name)\(stagingTag.map { ":" + $0 } ?? "")@\(digest)")
        lines.append("Tested at:  \(testedAt)" + (since.map { " (\(from.name) has run it since \($0.commit.prefix(12)) \"\($0.subject)\")" } ?? ""))
        lines.append(Self.label(to.name) + "\(name):\(productionTag)@\(digest)")
        lines.append("")
        lines.append("Replaces:")
        for site in sites { lines.append("  \(site.path):\(site.line): \(site.before)") }
        lines.append("")
        lines.append("Review checklist:")
        lines.append("- [ ] Confirm \(from.name): \(name)\(stagingTag.map { ":" + $0 } ?? "@" + digest) ran and passed its checks at \(testedAt.prefix(12))")
        lines.append("- [ ] Promote the identity, not a rebuild: \(productionTag) is the same digest \(digest)")
        lines.append("- [ ] Open a pull request from \(branch) and have it reviewed")
        lines.append("- [ ] Verify Flux: after the merge, \(to.name) reconciles and runs \(name)@\(digest)")
        for f in owned where f.writes != nil {
            lines.append("- [ ] Resolve first: \(f.file):\(f.line) is written over by ImageUpdateAutomation \(f.run) at its next run "
                         + "(policy \(f.policy) selects \(f.writes!)): fix the policy or remove the marker")
        }
        let keepers = Set(owned.filter { $0.writes == nil }.map(\.run)).sorted()
        lines.append("- [ ] Prepare the rollback: reverting this commit restores the fields above (parent \(testedAt.prefix(12)))"
                     + (keepers.isEmpty ? "" : "; ImageUpdateAutomation \(keepers.joined(separator: ", ")) writes \(productionTag) back while "
                        + "its policy selects it: `tagwarden rollback \(imageAsGiven) --env \(to.name)` says what keeps a rollback"))
        lines.append("")
        lines.append(Self.trailer)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The oldest commit of an unbroken run, back from `head`, in which every staging file still holds `stagingText`: since
    /// when staging has run the build. Follows at most `limit` commits.
    public func stagingSince(_ repo: GitRepository, head: String, limit: Int = 1000) throws -> (commit: String, subject: String)? {
        let needle = stagingText
        let paths = Set(stagingSites.map { String($0[..<($0.lastIndex(of: ":") ?? $0.endIndex)]) })
        var since: String?
        for commit in try repo.commits(from: head, hiding: nil).prefix(limit) {
            let holds = paths.allSatisfy { path in
                guard let entry = repo.treeEntry(commit: commit, path: path), case .bytes(let b) = repo.readBlob(entry.oid, limit: 16 << 20) else { return false }
                return Self.holdsReference(b, needle)
            }
            guard holds else { break }
            since = commit
        }
        return since.map { ($0, repo.commitSummary($0)?.subject ?? "") }
    }
}

extension Promotion {
    /// Whether `bytes` hold `reference` whole: not as part of a longer reference (`web:1.4` in `web:1.4@sha256:…` or
    /// `web:1.4.1`, `arangodb:3` in `myarangodb:3`).
    static func holdsReference(_ bytes: [UInt8], _ reference: String) -> Bool {
        let needle = Array(reference.utf8)
        func part(_ c: UInt8) -> Bool {
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || Array("._-:@/".utf8).contains(c)
        }
        var from = bytes.startIndex
        while let r = bytes[from...].firstRange(of: needle) {
            let before = r.lowerBound > bytes.startIndex ? bytes[r.lowerBound - 1] : 32
            let after = r.upperBound < bytes.endIndex ? bytes[r.upperBound] : 32
            if !part(before) && !part(after) { return true }
            from = r.lowerBound + 1
        }
        return false
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
