import Testing
@testable import TagwardenBasics
@testable import TagwardenRegex
@testable import TagwardenYAML
@testable import TagwardenGit
@testable import TagwardenPolicy
@testable import TagwardenModel
@testable import TagwardenLint
@testable import TagwardenReport

@Suite struct DirectoryClueTests {
    let model = EnvironmentModel(environments: [
        Environment(name: "staging", aliases: ["stage", "stg"]),
        Environment(name: "production", aliases: ["prod", "Prödüktion"]),
    ], source: "test", baseDir: "")

    @Test(arguments: [
        ("apps/prod/web.yaml", "production"),
        ("apps/PROD/web.yaml", "production"),
        ("Staging/web.yaml", "staging"),
        ("clusters/stg/prod/web.yaml", "staging"),       // the first directory that names one
        ("apps/prödüktion/web.yaml", "production"),      // a non-ASCII alias, case-insensitively
        ("apps/PRÖDÜKTION/web.yaml", "production"),
        ("apps/production-eu/web.yaml", nil),
        ("apps/prods/web.yaml", nil),
        ("prod.yaml", nil),                              // a file name is not a directory
    ] as [(String, String?)])
    func directory(_ path: String, _ expected: String?) {
        #expect(model.clues(path: path).directory == expected)
    }
}
