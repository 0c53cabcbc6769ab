import TagwardenBasics
import TagwardenModel
import TagwardenLint

/// The wiring of a repository's image automation, for `tagwarden graph`: per cluster and environment, the Flux
/// Kustomizations, the ImageUpdateAutomations they apply, the ImagePolicies each automation takes, the ImageRepositories
/// the policies read and their images, and the files whose `$imagepolicy` markers name the policies. An edge between two
/// environments, and a reference to nothing, is a problem: drawn red, or grey when its finding is suppressed. An object an
/// error-level finding names is red too (a file's, when the object is not drawn).
public struct WiringGraph: Sendable {
    public enum Kind: String, Sendable {
        case kustomization, automation, policy, repository, image, file, missing
    }

    public struct Node: Sendable {
        public let id: String
        public let kind: Kind
        public let label: String
        public let environment: String?
        /// Where it is defined, `file:line` (nil for an image or a missing object).
        public let location: String?
        /// A policy's or repository's spec as its builds deploy it (patches applied), each field with the place that
        /// supplied it: JSON only.
        public var spec: [(field: String, value: String, location: String)] = []
        /// The clusters that apply its file (`Clusters.Cluster.name`, "." for the repository's root); empty where no
        /// cluster here does.
        public var clusters: [String] = []
        /// The error-level findings that name it, `line N: rule: message` (for a file, those of its objects not drawn).
        public var errors: [String] = []
        /// The file that places it in its clusters.
        var file: FileID?
    }

    public struct Edge: Sendable {
        public enum State: String, Sendable { case ok, crossEnvironment = "cross-environment", broken, suppressed }
        public let from: String
        public let to: String
        public let state: State
        /// What the edge means, for JSON and tooltips (`applies`, `takes`, `reads`, `watches`, `marks`).
        public let relation: String
    }

    public var nodes: [Node] = []
    public var edges: [Edge] = []
    /// The environments, in the model's order, then nodes of none (`nil`).
    public var environments: [String?] = []
    /// The sets of clusters the nodes are in: each cluster alone in the model's order, then those several share, then
    /// none (`[]`); empty when the repository describes no cluster.
    public var clusters: [[String]] = []

    /// The graph of `model`; `findings` (the audit's, after suppressions) decide whether a problem edge is red or grey:
    /// one whose finding was suppressed is grey. `only` keeps one environment and what its edges reach.
    public static func build(_ model: Model, findings: [Finding], only: String? = nil, under prefix: String = "") -> WiringGraph {
        var g = WiringGraph()
        let flux = model.flux
        var reported: [String: Set<String>] = [:]
        for f in findings { reported["\(f.file):\(f.span.start.line)", default: []].insert(f.rule) }
        func location(_ o: ObjectID) -> String { "\(model.files[model.objects[o].file].path):\(model.objects[o].kindSpan.start.line)" }
        /// Where a field's value is written: its object's file, or the patch's.
        func place(_ v: Located, of o: ObjectID) -> String { "\(model.files[v.file ?? model.objects[o].file].path):\(v.span.start.line)" }
        func name(_ o: ObjectID, _ namespace: String?) -> String { "\(namespace ?? model.objectNamespace[o] ?? "default")/\(model.objects[o].name ?? "?")" }
        var ids: Set<String> = []
        func add(_ node: Node, file: FileID?) {
            guard ids.insert(node.id).inserted else { return }
            g.nodes.append(node)
            g.nodes[g.nodes.count - 1].file = file
        }
        func state(_ from: String?, _ to: String?, problemAt: String? = nil, broken: Bool = false) -> Edge.State {
            let problem = broken || (from != nil && to != nil && from != to)
            guard problem else { return .ok }
            if let at = problemAt, reported[at] == nil { return .suppressed }
            return broken ? .broken : .crossEnvironment
        }

        // the markers Flux reads where they stand
        let markers = model.markers.indices.filter { model.markers[$0].context == .value && model.markers[$0].ref != nil }
        /// The one environment of `envs`, if they have one.
        func one(_ envs: [String?]) -> String? {
            let set = Set(envs.compactMap { $0 })
            return set.count == 1 ? set.first : nil
        }
        // the Flux Kustomizations, and the files each builds (the Model's reading of their paths)
        var filesOf: [ObjectID: [FileID]] = [:]
        for (file, ks) in model.clusters.kustomizationsOfFile { for k in ks { filesOf[k, default: []].append(file) } }
        var appliedBy: [FileID: [ObjectID]] = [:]
        for (k, files) in filesOf { for f in files { appliedBy[f, default: []].append(k) } }
        // an object of no environment is drawn in the one environment of what it serves, if there is one
        var objectsOf: [FileID: [ObjectID]] = [:]
        for o in model.objects.indices { objectsOf[model.objects[o].file, default: []].append(o) }
        func kustomizationEnvironment(_ o: ObjectID) -> String? {
            model.objectEnvironment[o] ?? one((filesOf[o] ?? []).flatMap { f in (objectsOf[f] ?? []).map { model.objectEnvironment[$0] } })
        }
        func policyEnvironment(_ p: PolicyID) -> String? {
            flux.policies[p].environment ?? one((flux.uses[p] ?? []).map { model.markers[$0].environment })
        }
        func automationEnvironment(_ a: AutomationID) -> String? {
            flux.automations[a].environment ?? one((markersOf[a] ?? []).map { model.markers[$0].environment })
        }
        var policiesOf: [RepositoryID: [PolicyID]] = [:]
        for p in flux.policies.indices { if let r = flux.policies[p].repository { policiesOf[r, default: []].append(p) } }
        var markersOf: [AutomationID: [MarkerID]] = [:]
        for k in markers { for a in model.markers[k].automations { markersOf[a, default: []].append(k) } }
        func repositoryEnvironment(_ r: RepositoryID) -> String? {
            flux.repositories[r].environment ?? one((policiesOf[r] ?? []).map(policyEnvironment))
        }

        /// A marker's edge to its policy crosses environments when the linter says so (`marker-env-mismatch`, which
        /// knows environments by tag prefix too); when the two environments differ and it does not, it was suppressed.
        func markerState(_ k: MarkerID, _ p: PolicyID, at: String) -> Edge.State {
            if reported[at]?.contains("marker-env-mismatch") == true { return .crossEnvironment }
            let mine = model.markers[k].environment, theirs = flux.policies[p].environment
            return mine != nil && theirs != nil && mine != theirs ? .suppressed : .ok
        }

        // Flux Kustomizations, and the automations each applies
        for o in filesOf.keys.sorted() {
            // named with the path it builds
            var builds = ""
            if case .kustomization(let spec)? = model.objects[o].flux, let path = spec.path { builds = "\npath: " + path }
            add(Node(id: "k\(o)", kind: .kustomization, label: "Kustomization \(name(o, nil))\(builds)", environment: kustomizationEnvironment(o),
                     location: location(o)), file: model.objects[o].file)
        }
        for (a, automation) in flux.automations.withIDs {
            let o = automation.object
            add(Node(id: "a\(a)", kind: .automation, label: "ImageUpdateAutomation \(name(o, automation.namespace))",
                     environment: automationEnvironment(a), location: location(o)), file: model.objects[o].file)
            for k in (appliedBy[model.objects[o].file] ?? []).sorted() {
                g.edges.append(Edge(from: "k\(k)", to: "a\(a)", state: state(model.objectEnvironment[k], automation.environment), relation: "applies"))
            }
            // an automation sees the policies of its namespace in its own cluster (several clusters are several clusters)
            let clusters = Set(model.clusters.of(model.objects[o].file))
            for p in flux.policies.indices where flux.policies[p].namespace == automation.namespace && flux.selectorTakes(automation: a, policy: p)
                && (clusters.isEmpty || !clusters.isDisjoint(with: model.clusters.of(model.objects[flux.policies[p].object].file))) {
                g.edges.append(Edge(from: "a\(a)", to: "p\(p)", state: state(automation.environment, flux.policies[p].environment), relation: "takes"))
            }
        }
        // policies, their repositories and images
        for (p, policy) in flux.policies.withIDs {
            var node = Node(id: "p\(p)", kind: .policy, label: "ImagePolicy \(policy.namespace ?? "default")/\(policy.name)",
                            environment: policyEnvironment(p), location: location(policy.object))
            let spec = policy.spec
            let fields: [(String, Located?)] = [
                ("imageRepositoryRef.name", spec.repositoryName), ("filterTags.pattern", spec.pattern), ("filterTags.extract", spec.extract),
                ("policy.semver.range", spec.semverRange), ("policy.alphabetical.order", spec.alphabeticalOrder),
                ("policy.numerical.order", spec.numericalOrder),
            ]
            node.spec = fields.compactMap { name, v in v.map { (name, $0.value, place($0, of: policy.object)) } }
            let policyAt = spec.policyField.map { place($0, of: policy.object) } ?? location(policy.object)
            if spec.hasAlphabetical, spec.alphabeticalOrder == nil { node.spec.append(("policy.alphabetical", "", policyAt)) }
            if spec.hasNumerical, spec.numericalOrder == nil { node.spec.append(("policy.numerical", "", policyAt)) }
            add(node, file: model.objects[policy.object].file)
            if let r = policy.repository {
                g.edges.append(Edge(from: "p\(p)", to: "r\(r)", state: state(policy.environment, flux.repositories[r].environment), relation: "reads"))
            } else {
                let ref = policy.spec.repositoryName?.value ?? "?"
                let missing = "x-r-\(policy.namespace ?? "")-\(ref)".map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
                add(Node(id: missing, kind: .missing, label: "no ImageRepository \(ref)", environment: policyEnvironment(p), location: nil),
                    file: model.objects[policy.object].file)
                g.edges.append(Edge(from: "p\(p)", to: missing, state: state(nil, nil, problemAt: location(policy.object), broken: true), relation: "reads"))
            }
        }
        for (r, repository) in flux.repositories.withIDs {
            var node = Node(id: "r\(r)", kind: .repository, label: "ImageRepository \(repository.namespace ?? "default")/\(repository.name)",
                            environment: repositoryEnvironment(r), location: location(repository.object))
            if let image = repository.spec.image { node.spec = [("image", image.value, place(image, of: repository.object))] }
            add(node, file: model.objects[repository.object].file)
            if let image = repository.spec.image?.value {
                let id = "i\(r)"
                add(Node(id: id, kind: .image, label: image, environment: repositoryEnvironment(r), location: nil),
                    file: model.objects[repository.object].file)
                g.edges.append(Edge(from: "r\(r)", to: id, state: .ok, relation: "watches"))
            }
        }
        /// A file's node, with the Flux Kustomizations that apply it.
        func addFile(_ f: FileID, environment: String?) -> String {
            let id = "f\(f)"
            if !ids.contains(id) {
                add(Node(id: id, kind: .file, label: model.files[f].path, environment: environment, location: model.files[f].path), file: f)
                for kz in (appliedBy[f] ?? []).sorted() {
                    g.edges.append(Edge(from: "k\(kz)", to: id, state: state(model.objectEnvironment[kz], environment), relation: "applies"))
                }
            }
            return id
        }
        // files with markers, and the policies their markers name
        var fileEdges: Set<String> = []
        for k in markers {
            let marker = model.markers[k], ref = marker.ref!
            let path = model.files[marker.file].path
            let fileID = addFile(marker.file, environment: marker.environment)
            let at = "\(path):\(marker.span.start.line)"
            if let p = marker.policy {
                let key = "\(fileID)>p\(p)"
                guard fileEdges.insert(key).inserted else { continue }
                g.edges.append(Edge(from: fileID, to: "p\(p)", state: markerState(k, p, at: at), relation: "marks"))
            } else if marker.candidates.isEmpty {
                let missing = "x-p-\(ref.namespace)-\(ref.name)".map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
                add(Node(id: missing, kind: .missing, label: "no ImagePolicy \(ref.namespace)/\(ref.name)", environment: marker.environment, location: nil),
                    file: marker.file)
                guard fileEdges.insert("\(fileID)>\(missing)").inserted else { continue }
                g.edges.append(Edge(from: fileID, to: missing, state: state(nil, nil, problemAt: at, broken: true), relation: "marks"))
            } else {
                for p in marker.candidates where fileEdges.insert("\(fileID)>p\(p)").inserted {
                    g.edges.append(Edge(from: fileID, to: "p\(p)", state: markerState(k, p, at: at), relation: "marks"))
                }
            }
        }
        // the objects error-level findings name: their nodes, or their files'
        var objectNode: [ObjectID: String] = [:]
        for o in filesOf.keys { objectNode[o] = "k\(o)" }
        for (a, automation) in flux.automations.withIDs { objectNode[automation.object] = "a\(a)" }
        for (p, policy) in flux.policies.withIDs { objectNode[policy.object] = "p\(p)" }
        for (r, repository) in flux.repositories.withIDs { objectNode[repository.object] = "r\(r)" }
        var errorsOf: [String: [String]] = [:]
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            var fileAt: [String: FileID] = [:]
            for f in model.files.indices { fileAt[model.files[f].path] = f }
            for finding in errors {
                guard let f = fileAt[finding.file] else { continue }
                let o = finding.object.flatMap { ref in (objectsOf[f] ?? []).first { model.objectRef($0) == ref } }
                let id = o.flatMap { objectNode[$0] }
                    ?? addFile(f, environment: o.flatMap { model.objectEnvironment[$0] } ?? one((objectsOf[f] ?? []).map { model.objectEnvironment[$0] }))
                errorsOf[id, default: []].append("line \(finding.span.start.line): \(finding.rule): \(finding.message)")
            }
        }
        if !errorsOf.isEmpty {
            for n in g.nodes.indices { g.nodes[n].errors = errorsOf[g.nodes[n].id] ?? [] }
        }
        // each node in the clusters that apply its file
        let clusters = model.clusters, clusterNames = clusters.clusters.mapRows(\.displayName)
        for n in g.nodes.indices {
            guard let f = g.nodes[n].file else { continue }
            g.nodes[n].clusters = clusters.of(f).map { clusterNames[$0] }
        }
        // a Kustomization that applies nothing of the image automation, and has no error, is not part of this picture
        let connected = Set(g.edges.flatMap { [$0.from, $0.to] })
        g.nodes.removeAll { $0.kind == .kustomization && !connected.contains($0.id) && $0.errors.isEmpty }
        if !prefix.isEmpty && prefix != "." {
            // what is defined under the directory asked for, and what it reaches
            let own = Set(g.nodes.filter { n in n.location.map { $0.hasPrefix(prefix + "/") } ?? false }.map(\.id))
            g.edges = g.edges.filter { own.contains($0.from) || own.contains($0.to) }
            let kept = own.union(g.edges.flatMap { [$0.from, $0.to] })
            g.nodes = g.nodes.filter { kept.contains($0.id) }
        }
        if let only {
            // the environment's nodes, and those its edges reach
            let own = Set(g.nodes.filter { $0.environment == only }.map(\.id))
            g.edges = g.edges.filter { own.contains($0.from) || own.contains($0.to) }
            let kept = own.union(g.edges.flatMap { [$0.from, $0.to] })
            g.nodes = g.nodes.filter { kept.contains($0.id) }
        }
        g.environments = model.environments.environments.map(\.name) + [nil]
        g.clusters = clusterNames.isEmpty ? [] : clusterNames.map { [$0] } + [[]]
        g.regroup()
        return g
    }

    /// Keeps the environments and clusters that hold a node; clusters some node's file shares go after the others.
    mutating func regroup() {
        environments = environments.filter { e in nodes.contains { $0.environment == e } }
        guard !clusters.isEmpty else { return }
        let shared = Set(nodes.map(\.clusters)).subtracting(clusters).sorted { $0.lexicographicallyPrecedes($1) }
        clusters = (clusters.filter { !$0.isEmpty } + shared + [[]]).filter { c in nodes.contains { $0.clusters == c } }
    }

    /// The part of the graph that touches `files`: the nodes defined in them, and their neighbours.
    public func touching(files: Set<String>) -> WiringGraph {
        let own = Set(nodes.filter { n in
            guard let location = n.location else { return false }
            let file = location.lastIndex(of: ":").map { String(location[..<$0]) } ?? location
            return files.contains(file) || files.contains(location)
        }.map(\.id))
        var g = self
        g.edges = edges.filter { own.contains($0.from) || own.contains($0.to) }
        let kept = own.union(g.edges.flatMap { [$0.from, $0.to] })
        g.nodes = nodes.filter { kept.contains($0.id) }
        g.regroup()
        return g
    }

    // MARK: rendering

    /// The nodes to draw in each box: by cluster when the repository describes clusters (`cluster` is then the box's
    /// title), and in each by environment; a node of no environment stands in its cluster's box, or, without clusters,
    /// in a box "no environment".
    func boxes() -> [(cluster: String?, environments: [(environment: String?, nodes: [Node])])] {
        func byEnvironment(_ members: [Node]) -> [(environment: String?, nodes: [Node])] {
            environments.map { e in (e, members.filter { $0.environment == e }) }.filter { !$0.nodes.isEmpty }
        }
        func title(_ c: [String]) -> String {
            switch c.count {
            case 0: return "no cluster here"
            case 1: return "cluster \(c[0])"
            case 2, 3: return "clusters \(c.joined(separator: ", "))"
            default: return "clusters \(c[0]), \(c[1]) and \(c.count - 2) more"
            }
        }
        guard !clusters.isEmpty else { return [(nil, byEnvironment(nodes))] }
        return clusters.map { c in (title(c), byEnvironment(nodes.filter { $0.clusters == c })) }
    }

    /// Mermaid (`flowchart LR`): a subgraph per environment; problem edges red (grey when suppressed).
    public func mermaid() -> String {
        var out = "flowchart LR\n"
        func text(_ s: String) -> String {
            // Mermaid's quoted labels: a quote is an entity, and markup characters are escaped (most labels have none)
            if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x3C && $0 != 0x3E && $0 != 0x23 && $0 != 0x60 }) { return s }
            var o = ""
            for c in s.unicodeScalars {
                switch c {
                case "\"": o += "#quot;"
                case "<": o += "#lt;"
                case ">": o += "#gt;"
                case "#": o += "#35;"
                case "`": o += "#96;"
                case "\n": o += "<br/>"
                default: o.unicodeScalars.append(c.value < 0x20 ? "?" : c)
                }
            }
            return o
        }
        func shape(_ n: Node) -> String {
            let l = "\"" + text(n.label) + "\""
            switch n.kind {
            case .kustomization: return "[\(l)]"
            case .automation: return "[[\(l)]]"
            case .policy: return "{{\(l)}}"
            case .repository: return "[(\(l))]"
            case .image: return "([\(l)])"
            case .file: return "[/\(l)/]"
            case .missing: return "((\(l)))"
            }
        }
        for (c, box) in boxes().enumerated() {
            let indent = box.cluster == nil ? "  " : "    "
            if let cluster = box.cluster { out += "  subgraph cluster\(c)[\"\(text(cluster))\"]\n" }
            for (k, group) in box.environments.enumerated() {
                if group.environment == nil, box.cluster != nil {
                    for n in group.nodes { out += "\(indent)\(n.id)\(shape(n))\n" }
                    continue
                }
                out += "\(indent)subgraph \(box.cluster == nil ? "" : "c\(c)")env\(k)[\"\(text(group.environment ?? "no environment"))\"]\n"
                for n in group.nodes { out += "\(indent)  \(n.id)\(shape(n))\n" }
                out += "\(indent)end\n"
            }
            if box.cluster != nil { out += "  end\n" }
        }
        var red: [Int] = [], grey: [Int] = []
        for (k, e) in edges.enumerated() {
            out += e.state == .ok ? "  \(e.from) --> \(e.to)\n" : "  \(e.from) -->|\(e.state.rawValue)| \(e.to)\n"
            switch e.state {
            case .broken, .crossEnvironment: red.append(k)
            case .suppressed: grey.append(k)
            case .ok: break
            }
        }
        if !red.isEmpty { out += "  linkStyle \(red.map(String.init).joined(separator: ",")) stroke:#d00,stroke-width:2px,color:#d00\n" }
        if !grey.isEmpty { out += "  linkStyle \(grey.map(String.init).joined(separator: ",")) stroke:#999,stroke-dasharray:4 4\n" }
        let missing = nodes.filter { $0.kind == .missing }.map(\.id)
        if !missing.isEmpty {
            out += "  classDef missing fill:#fee,stroke:#d00,color:#d00\n  class \(missing.joined(separator: ",")) missing\n"
        }
        let failing = nodes.filter { !$0.errors.isEmpty }.map(\.id)
        if !failing.isEmpty {
            out += "  classDef error fill:#fdd,stroke:#d00,stroke-width:2px,color:#900\n  class \(failing.joined(separator: ",")) error\n"
        }
        return out
    }

    /// Graphviz DOT: a cluster per environment, left to right; problem edges red (grey, dashed, when suppressed).
    public func dot() -> String {
        func quoted(_ s: String) -> String {
            var o = "\""
            for c in s.unicodeScalars {
                switch c {
                case "\"": o += "\\\""
                case "\\": o += "\\\\"
                case "\n": o += "\\n"
                default: o.unicodeScalars.append(c.value < 0x20 ? "?" : c)
                }
            }
            return o + "\""
        }
        func attributes(_ n: Node) -> String {
            switch n.kind {
            case .kustomization: return "shape=folder"
            case .automation: return "shape=box, style=\"rounded,bold\""
            case .policy: return "shape=hexagon"
            case .repository: return "shape=cylinder"
            case .image: return "shape=box, style=rounded, fontname=\"monospace\""
            case .file: return "shape=note, fontname=\"monospace\""
            case .missing: return "shape=octagon, color=\"#dd0000\", fontcolor=\"#dd0000\""
            }
        }
        var out = "digraph tagwarden {\n  rankdir=LR;\n  node [fontsize=10];\n  edge [fontsize=9];\n"
        func node(_ n: Node, _ indent: String) -> String {
            let tooltip = ([n.location].compactMap { $0 } + n.errors).joined(separator: "\n")
            let failing = n.errors.isEmpty ? "" : ", color=\"#dd0000\", fontcolor=\"#dd0000\", penwidth=2"
            return "\(indent)\(n.id) [label=\(quoted(n.label)), \(attributes(n))\(failing)\(tooltip.isEmpty ? "" : ", tooltip=" + quoted(tooltip))];\n"
        }
        for (c, box) in boxes().enumerated() {
            let indent = box.cluster == nil ? "  " : "    "
            if let cluster = box.cluster { out += "  subgraph cluster_c\(c) {\n    label=\(quoted(cluster));\n    color=\"#444444\";\n" }
            for (k, group) in box.environments.enumerated() {
                if group.environment == nil, box.cluster != nil {
                    for n in group.nodes { out += node(n, indent) }
                    continue
                }
                out += "\(indent)subgraph cluster_\(box.cluster == nil ? "" : "c\(c)_")\(k) {\n\(indent)  label=\(quoted(group.environment ?? "no environment"));\n"
                    + "\(indent)  style=rounded;\n\(indent)  color=\"#888888\";\n"
                for n in group.nodes { out += node(n, indent + "  ") }
                out += "\(indent)}\n"
            }
            if box.cluster != nil { out += "  }\n" }
        }
        for e in edges {
            // only a problem edge is labelled: forty "takes" would hide the picture
            var style = "tooltip=\(quoted(e.relation))"
            switch e.state {
            case .broken, .crossEnvironment:
                style += ", label=\(quoted(e.state.rawValue)), color=\"#dd0000\", fontcolor=\"#dd0000\", penwidth=2"
            case .suppressed: style += ", label=\"suppressed\", color=\"#999999\", fontcolor=\"#999999\", style=dashed"
            case .ok: break
            }
            out += "  \(e.from) -> \(e.to) [\(style)];\n"
        }
        return out + "}\n"
    }

    public func json() -> JSON {
        .object([
            ("environments", .array(environments.map { $0.map(JSON.string) ?? .null })),
            ("clusters", .array(clusters.map { .array($0.map(JSON.string)) })),
            ("nodes", .array(nodes.map { n in
                .object([("id", .string(n.id)), ("kind", .string(n.kind.rawValue)), ("label", .string(n.label)),
                         ("environment", n.environment.map(JSON.string) ?? .null), ("clusters", .array(n.clusters.map(JSON.string))),
                         ("location", n.location.map(JSON.string) ?? .null), ("errors", .array(n.errors.map(JSON.string)))]
                         + (n.spec.isEmpty ? [] : [("spec", .array(n.spec.map { f in
                             .object([("field", .string(f.field)), ("value", .string(f.value)), ("location", .string(f.location))])
                         }))]))
            })),
            ("edges", .array(edges.map { e in
                .object([("from", .string(e.from)), ("to", .string(e.to)), ("relation", .string(e.relation)), ("state", .string(e.state.rawValue))])
            })),
        ])
    }
}
