import TagwardenBasics
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
import TagwardenLint
import TagwardenReport
import TagwardenUpdate
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct PolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Work with ImagePolicies.",
        subcommands: [PolicyEval.self]
    )
}

struct PolicyEval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate an ImagePolicy against a tag list, exactly as Flux's image-reflector-controller would.",
        discussion: """
        Take the policy from the repository (--policy NS/NAME, with its ImageRepository's exclusionList), or give it \
        inline (--semver RANGE, --numerical asc|desc or --alphabetical asc|desc, with --pattern and --extract). \
        Tags come from a file or standard input (-): one per line, or JSON (an array of strings, or an object with \
        a "tags" array).

        Exit codes: 0 a tag is selected; 1 none is (the policy fails as it would in Flux); 2 invalid input \
        (an unknown policy, a bad range, pattern or order, an empty tag list).

        Examples:
          tagwarden policy eval --policy flux-system/web --tags tags.txt --explain
          crane ls ghcr.io/acme/web | tagwarden policy eval --semver '>=1.0.0' \\
            --pattern '^production-v(?P<v>.*)$' --extract '$v' --tags -
        """
    )

    @Argument(help: "With --policy: a directory in the repository that holds it.")
    var path: String = "."

    @Option(help: "The policy to evaluate, as NAMESPACE/NAME (or NAMESPACE:NAME).")
    var policy: String?

    @Option(help: "A semver range (Masterminds syntax, as Flux uses).")
    var semver: String?

    @Option(help: "Numerical order: asc (the highest number wins) or desc.")
    var numerical: String?

    @Option(help: "Alphabetical order over UTF-8 bytes: asc (the greatest wins) or desc.")
    var alphabetical: String?

    @Option(help: "filterTags.pattern: a Go regular expression, matched anywhere in the tag.")
    var pattern: String?

    @Option(help: "filterTags.extract: what to rank by, e.g. '$ts' or '${version}'.")
    var extract: String?

    @Option(name: .customLong("exclude"), help: "An exclusionList pattern (repeatable; default ^.*\\.sig$).")
    var exclusions: [String] = []

    @OptionGroup var source: TagOptions

    @Flag(help: "Say for every tag why it was dropped, ranked or selected.")
    var explain = false

    @Option(help: "Output format: text or json.")
    var format: DataFormat = .text

    @Option(help: "Evaluate as this Flux version does (tag parsing and prerelease rules changed in 2.7; default: with --policy, the Flux the repository's config names or its cluster installs, else current).")
    var fluxVersion: String?

    func validate() throws {
        let inline = [semver, numerical, alphabetical].compactMap { $0 }.count
        if policy != nil && (inline > 0 || pattern != nil || extract != nil) {
            throw ValidationError("--policy takes the policy from the repository: leave out --semver, --numerical, --alphabetical, --pattern and --extract")
        }
        if policy == nil && inline == 0 {
            // `policy eval flux-system/web` reads the policy's name as the path argument
            let hint = path != "." && access(path, F_OK) != 0 && path.split(separator: "/").count == 2 ? " (did you mean --policy \(path)?)" : ""
            throw ValidationError("name a policy (--policy NS/NAME) or give one (--semver, --numerical or --alphabetical)\(hint)")
        }
        if inline > 1 {
            // a Flux policy has exactly one of them; taking the first silently would evaluate another policy
            throw ValidationError("give one of --semver, --numerical and --alphabetical: an ImagePolicy has exactly one")
        }
        if let v = fluxVersion, FluxVersion.parse(v) == nil { throw ValidationError("--flux-version must look like 2.7") }
        if source.registry && policy == nil { throw ValidationError("--registry reads the tags of the policy's ImageRepository: name it with --policy NS/NAME") }
    }

    func fail(_ message: String) -> Int32 {
        if format == .json {
            writeStdout(JSON.object([("selected", .null), ("error", .string(message))]).serialized(pretty: true) + "\n")
        } else {
            writeStderr("tagwarden: error: \(message)\n")
        }
        return 2
    }

    func run() throws {
        let code = try evaluate()
        if code != 0 { throw ExitCode(code) }
    }

    func evaluate() throws -> Int32 {
        var registryTags: [String]?
        var flux = fluxVersion.flatMap(FluxVersion.parse)?.tagParsing ?? .current
        let definition: PolicyDefinition
        if let policy {
            let ws: Workspace
            do { ws = try Workspace.open(path: path, configPath: nil, knownRules: Catalogue.ids) } catch let e as TagwardenError { return fail(e.message) }
            let snapshot: SourceSnapshot
            do { snapshot = try ws.snapshot(rev: nil, maxFileSize: nil) } catch let e as TagwardenError { return fail(e.message) }
            let model = try Model.load(snapshot, config: ws.config, profile: nil)
            let parts = policy.split(whereSeparator: { $0 == "/" || $0 == ":" }).map(String.init)
            guard parts.count == 2 else { return fail("--policy must be NAMESPACE/NAME, not '\(policy)'") }
            var candidates = model.flux.policies(namespace: parts[0], name: parts[1])
            guard !candidates.isEmpty else {
                let names = PolicySuggester(model.flux.policies).suggest(namespace: parts[0], name: parts[1])
                    .map { "'\($0.namespace)/\($0.name)'" }
                let hint = names.isEmpty ? "" : " (did you mean \(names.joined(separator: " or "))?)"
                return fail("no ImagePolicy \(parts[0])/\(parts[1]) in \(ws.root)\(hint)")
            }
            // one per cluster: PATH says which
            func file(_ p: PolicyID) -> String { model.path(model.objects[model.flux.policies[p].object].file) }
            if candidates.count > 1, !ws.prefix.isEmpty {
                let under = candidates.filter { file($0) == ws.prefix || file($0).hasPrefix(ws.prefix + "/") }
                if !under.isEmpty { candidates = under }
            }
            guard candidates.count == 1 else {
                let files = candidates.map(file)
                return fail("\(parts[0])/\(parts[1]) is defined in \(files.dropLast().joined(separator: ", ")) and \(files.last!): "
                            + "give the directory of one as PATH")
            }
            let chosen = model.flux.policies[candidates[0]]
            // the Flux that runs it: the config's, else the one its cluster installs
            if fluxVersion == nil { flux = model.fluxVersion(ofFile: model.objects[chosen.object].file).tagParsing }
            definition = PolicyDefinition(spec: chosen.spec, repository: chosen.repository.map { model.flux.repositories[$0].spec })
            if source.registry {
                guard let r = chosen.repository, let image = model.flux.repositories[r].spec.image?.value else {
                    return fail("\(parts[0])/\(parts[1]) has no ImageRepository with a spec.image in the repository: nothing to list")
                }
                do {
                    let client = try source.access.client().client
                    registryTags = try client.tags(RegistryRepository(image: image, insecure: model.flux.repositories[r].spec.insecure))
                } catch let e as TagwardenError {
                    return fail(e.message)
                }
            }
        } else {
            let choice: PolicyDefinition.Choice
            if let s = semver { choice = .semver(s) } else if let a = alphabetical { choice = .alphabetical(a) } else { choice = .numerical(numerical!) }
            definition = PolicyDefinition(choice: choice, pattern: pattern, extract: extract, exclusionList: exclusions)
        }
        let evaluator: PolicyEvaluator
        do { evaluator = try PolicyEvaluator(definition, flux: flux) } catch { return fail(error.message) }
        let unknown = evaluator.unknownExtractGroups
        if !unknown.isEmpty {
            writeStderr("tagwarden: note: extract '\(definition.extract ?? "")' names no group \(unknown.map { "'\($0)'" }.joined(separator: ", ")) "
                        + "of the pattern: that part of every key is empty, as in Flux\n")
        }

        let text: String
        if let registryTags {
            text = registryTags.joined(separator: "\n")
        } else if source.tags == "-" {
            text = readAllStdin()
        } else {
            switch FileSystem.readFile(source.tags!, limit: 256 << 20) {
            case .success(let b): text = String(decoding: b, as: UTF8.self)
            case .failure(let e): return fail("\(source.tags!): \(e.message)")
            }
        }
        let list: [String]
        switch TagList.parse(text) {
        case .success(let l): list = l
        case .failure(let e): return fail("\(registryTags != nil ? "the registry" : source.tags == "-" ? "standard input" : source.tags!): \(e.message)")
        }
        if list.isEmpty { return fail(registryTags != nil ? "the registry has no tags for the repository" : "the tag list is empty: give one tag per line, or a JSON array of strings") }

        let result = evaluator.evaluate(list, explain: explain)
        if format == .json {
            var kv: [(String, JSON)] = [("selected", result.selected.map(JSON.string) ?? .null), ("error", result.error.map(JSON.string) ?? .null)]
            if let ref = result.latestRef { kv.append(("latestRef", .string(ref))) }
            if !result.ties.isEmpty { kv.append(("ties", .array(result.ties.map(JSON.string)))) }
            if explain {
                kv.append(("tags", .array(result.verdicts.map { v in
                    .object([("tag", .string(v.tag)), ("key", v.key.map(JSON.string) ?? .null),
                             ("verdict", .string(v.kind.rawValue)), ("reason", .string(v.reason))])
                })))
            }
            writeStdout(JSON.object(kv).serialized(pretty: true) + "\n")
        } else {
            var out = ""
            if explain {
                let width = min(48, result.verdicts.map(\.tag.count).max() ?? 0)
                for v in result.verdicts {
                    out += v.tag.padding(width) + "  " + v.kind.rawValue.padding(12) + "  " + v.reason + "\n"
                }
                out += "\n"
            }
            if let s = result.selected {
                out += "selected: \(s)\n"
                if let ref = result.latestRef { out += "latestRef: \(ref)\n" }
                if !result.ties.isEmpty { out += "note: Flux would choose at random among equal keys: \(result.ties.joined(separator: ", "))\n" }
            } else {
                out += "no tag selected: \(result.error ?? "nothing passes the policy")\n"
            }
            writeStdoutLines(out)
        }
        return result.selected == nil ? 1 : 0
    }

    func readAllStdin() -> String {
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(STDIN_FILENO, &buf, buf.count)
            if n <= 0 { break }
            bytes.append(contentsOf: buf[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
