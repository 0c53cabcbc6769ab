import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// "Did you mean" for a policy reference that names no ImagePolicy, from the likeliest meaning down:
/// a policy of that very name in another namespace; in the same namespace, a name with a word shortened,
/// spelt out, added or dropped (`web-prod` for `web-production`, `web` for `web-app`); else a reference
/// a few edits away — within a third of the *name's* length, so that `flux-system:` does not stretch the
/// budget until `page-checker` suggests `lab-home`. Nothing when no policy is that close.
public struct PolicySuggester {
    let byName: [String: [String]]     // name → the namespaces of the policies so named
    /// Namespace and a word key → the names of its policies whose first (or last) word starts with it: a rewording
    /// shares its first word's first three bytes with the name (or, words added in front, its last word's), so only
    /// those names are compared.
    let byFirstWord: [String: [Name]]
    let byLastWord: [String: [Name]]
    let refs: Suggester
    /// Shared by the rewordings and the nearest references.
    public let budget: SuggestionBudget

    public init(_ policies: Table<PolicyID, FluxIndex.Policy>, budget: SuggestionBudget = SuggestionBudget()) {
        var byName: [String: [String]] = [:], byFirstWord: [String: [Name]] = [:], byLastWord: [String: [Name]] = [:]
        var refs: [String] = []
        var seen = Set<String>()   // a policy each cluster of the repository defines is one candidate
        for p in policies {
            let namespace = p.namespace ?? "default"
            let ref = "\(namespace):\(p.name)"
            guard seen.insert(ref).inserted else { continue }
            byName[p.name, default: []].append(namespace)
            let name = Name(p.name)
            byFirstWord[PolicySuggester.key(namespace, name.words.first!), default: []].append(name)
            byLastWord[PolicySuggester.key(namespace, name.words.last!), default: []].append(name)
            refs.append(ref)
        }
        self.byName = byName
        self.byFirstWord = byFirstWord
        self.byLastWord = byLastWord
        self.refs = Suggester(refs, budget: budget)
        self.budget = budget
    }

    /// Up to three policies, likeliest first.
    public func suggest(namespace: String, name: String) -> [(namespace: String, name: String)] {
        if let same = byName[name] { return same.sorted().prefix(3).map { ($0, name) } }
        let words = Name(name).words
        var names = byFirstWord[PolicySuggester.key(namespace, words.first!)] ?? []
        let firstOnes = Set(names.map(\.text))
        names += (byLastWord[PolicySuggester.key(namespace, words.last!)] ?? []).filter { !firstOnes.contains($0.text) }
        guard budget.take(names.count) else { return [] }
        let similar = PolicySuggester.rewordings(of: name, in: names)
        if !similar.isEmpty { return similar.prefix(3).map { (namespace, $0) } }
        guard let ref = refs.nearest("\(namespace):\(name)", within: max(2, name.count / 3)) else { return [] }
        let colon = ref.firstIndex(of: ":")!   // names have no colon; namespaces neither
        return [(String(ref[..<colon]), String(ref[ref.index(after: colon)...]))]
    }

    static func key(_ namespace: String, _ word: Substring) -> String { namespace + "\u{0}" + word.prefix(3) }

    /// A policy name and its `-`-separated words, split once.
    struct Name {
        let text: String
        let words: [Substring]
        init(_ text: String) {
            self.text = text
            words = text.split(separator: "-", omittingEmptySubsequences: false)
        }
    }

    /// The names that say the same as `name` with a word shortened, spelt out, added or dropped: as many
    /// `-`-separated words, each the same or a prefix of at least three characters of the other's; or the
    /// same words with whole words before or after. Shortest first.
    static func rewordings(of name: String, in names: [Name]) -> [String] {
        let words = Name(name).words
        return names.filter { candidate in
            guard candidate.text != name else { return false }
            let otherWords = candidate.words
            if otherWords.count == words.count {
                return zip(words, otherWords).allSatisfy { a, b in
                    a == b || (min(a.count, b.count) >= 3 && (a.hasPrefix(b) || b.hasPrefix(a)))
                }
            }
            let (few, many) = words.count < otherWords.count ? (words, otherWords) : (otherWords, words)
            return many.starts(with: few) || many.reversed().starts(with: few.reversed())
        }.map(\.text).sorted { ($0.count, $0) < ($1.count, $1) }
    }
}
