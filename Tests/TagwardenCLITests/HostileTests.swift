import TagwardenFixtures
import Foundation
import Testing

/// What a pull request author who wants a bad image through, or the runner down, can put in a repository: each
/// test is the hostile input, the exit code, the exact finding or error, and a bound on time and memory.
@Suite struct HostileTests {
    func automation(template: String) -> String {
        "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageUpdateAutomation\nmetadata: {name: a, namespace: flux-system}\nspec:\n"
            + "  sourceRef: {kind: GitRepository, name: flux-system}\n"
            + "  git: {commit: {author: {email: bot@example.com}, messageTemplate: '\(template)'}, push: {branch: main}}\n"
            + "  update: {path: ./}\n"
    }

    // MARK: 1. parsers: bounded, linear, no recursion

    @Test func templateNestedTenThousandDeepParsesAsGoDoesAndOneMoreIsGosError() throws {
        let r = try TempRepo(git: false)
        try r.declareOneCluster()
        let n = 10_000
        try r.write("ok/auto.yaml", automation(template: "{{" + String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n) + "}}"))
        try r.write("deep/auto.yaml", automation(template: "{{" + String(repeating: "(", count: n + 1) + "1" + String(repeating: ")", count: n + 1) + "}}"))
        let res = try bounded(["audit", ".", "--format", "json"], in: r.path, seconds: 30, rssMB: 300)
        #expect(res.code == 1, "\(res.stderr)")
        let invalid = res.findingObjects.filter { $0["rule"] as? String == "automation-invalid-template" }
        #expect(invalid.map { "\($0["file"]!)" } == ["deep/auto.yaml"])
        #expect((invalid.first?["message"] as? String)?.contains("max expression depth exceeded") == true)
    }

    @Test func regexOfNineHundredFiftyNestedGroupsParsesAndOverAThousandIsGosError() throws {
        let r = try TempRepo(git: false)
        try r.declareOneCluster()
        func policy(_ name: String, depth: Int) -> String {
            "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: \(name), namespace: flux-system}\nspec:\n"
                + "  imageRepositoryRef: {name: web}\n  filterTags:\n    pattern: '^" + String(repeating: "(", count: depth) + "v1"
                + String(repeating: ")", count: depth) + "$'\n  policy: {alphabetical: {order: asc}}\n"
        }
        try r.write("ok.yaml", policy("ok", depth: 950))
        try r.write("deep.yaml", policy("deep", depth: 1001))
        let res = try bounded(["audit", ".", "--format", "json"], in: r.path, seconds: 30, rssMB: 300)
        #expect(res.code == 1, "\(res.stderr)")
        let invalid = res.findingObjects.filter { $0["rule"] as? String == "policy-invalid-regex" }
        #expect(invalid.map { "\($0["file"]!):\($0["line"]!)" } == ["deep.yaml:7"])
        #expect((invalid.first?["message"] as? String)?.contains("expression nests too deeply") == true)
    }

    @Test func aThreeHundredKilobyteIgnoreGlobNeitherCrashesNorCrawls() throws {
        let r = try TempRepo(git: false)
        try r.declareOneCluster("ignore: [\"" + String(repeating: "**/", count: 100_000) + "x.yaml\"]\n")
        try r.write("a/b/x.yaml", pod("x", images: ["nginx:latest"]))
        try r.write("a/b/y.yaml", pod("y", images: ["nginx:latest"]))
        let res = try bounded(["audit", ".", "--format", "json"], in: r.path, seconds: 30, rssMB: 300)
        #expect(res.code == 1, "\(res.stderr)")
        #expect(res.findings == ["image-latest-tag a/b/y.yaml:8:14"])
    }

    @Test func aDamagedListingsCacheIsDiscarded() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/a.yaml", pod("a", images: ["nginx:latest"]))
        _ = try r.audit("-q")
        let cache = r.path + "/.git/tagwarden/listings"
        var text = try String(contentsOfFile: cache, encoding: .utf8)
        // a number past Int.max where a modification time stands
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var fields = lines[1].split(separator: "\t", omittingEmptySubsequences: false)
        fields[1] = "9999999999999999999"
        text = ([lines[0], fields.joined(separator: "\t")[...]] + lines.dropFirst(2)).joined(separator: "\n")
        try text.write(toFile: cache, atomically: true, encoding: .utf8)
        let res = try r.audit("--format", "json")
        #expect(res.code == 1 && res.findings == ["image-latest-tag apps/a.yaml:8:14"], "\(res.stderr) \(res.findings)")
        #expect(try !String(contentsOfFile: cache, encoding: .utf8).contains("9999999999999999999"))
    }

    // MARK: 6. CPU: a bounded analysis per run

    @Test func patternsThatEachOutgrowTheirBudgetShareOneAndSayWhereItStopped() throws {
        let r = try TempRepo(git: false)
        try r.declareOneCluster("environments:\n  - {name: staging, paths: [\"staging/**\"], tagPrefix: staging-}\n"
                    + "  - {name: production, paths: [\"production/**\"], tagPrefix: production-}\n")
        var text = "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: r, namespace: flux-system}\nspec: {image: ghcr.io/a/b}\n"
        var markers = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: flux-system}\ndata:\n"
        for i in 0..<60 {
            text += "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: p\(i), namespace: flux-system}\n"
                + "spec:\n  imageRepositoryRef: {name: r}\n  filterTags: {pattern: 'a[a-z]{30}x\(i)'}\n  policy: {alphabetical: {order: asc}}\n"
            markers += "  k\(i): ghcr.io/a/b:production-1 # {\"$imagepolicy\": \"flux-system:p\(i)\"}\n"
        }
        try r.write("production/policies.yaml", text + markers)
        let res = try bounded(["audit", ".", "--format", "json"], in: r.path, seconds: 60, rssMB: 1000)
        #expect(res.code == 1, "\(res.stderr)")
        let crosses = res.findingObjects.filter { $0["rule"] as? String == "policy-crosses-environment" }.compactMap { $0["message"] as? String }
        #expect(crosses.count == 60)
        #expect(crosses.filter { $0.contains("is too complex to prove") }.count == 10)
        #expect(crosses.filter { $0.contains("was not analysed: the analysis budget of the run was spent") }.count == 50)
        let stopped = res.findingObjects.filter { $0["rule"] as? String == "policy-selects-nothing" }
        #expect(stopped.count == 1 && stopped.first?["severity"] as? String == "note", "\(stopped)")
    }

    @Test func twoThousandUnknownMarkersAgainstTwoThousandPoliciesAreSuggestedForQuickly() throws {
        let r = try TempRepo(git: false)
        try r.declareOneCluster()
        var rng = SystemRandomNumberGenerator()
        func word() -> String { String((0..<8).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement(using: &rng)! }) }
        var policies = "", markers = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: flux-system}\ndata:\n"
        for i in 0..<2000 {
            policies += "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: app-\(word())-\(i), namespace: flux-system}\n"
                + "spec: {imageRepositoryRef: {name: r}, policy: {alphabetical: {order: asc}}}\n"
            markers += "  k\(i): nginx:1.0 # {\"$imagepolicy\": \"flux-system:svc-\(word())-\(i)\"}\n"
        }
        policies += "---\napiVersion: image.toolkit.fluxcd.io/v1\nkind: ImagePolicy\nmetadata: {name: web-production, namespace: flux-system}\n"
            + "spec: {imageRepositoryRef: {name: r}, policy: {alphabetical: {order: asc}}}\n"
        markers += "  web: nginx:1.0 # {\"$imagepolicy\": \"flux-system:web-prodution\"}\n"
        try r.write("policies.yaml", policies)
        try r.write("markers.yaml", markers)
        let res = try bounded(["audit", ".", "--format", "json"], in: r.path, seconds: 40, rssMB: 500)
        #expect(res.code == 1, "\(res.stderr)")
        let unknown = res.findingObjects.filter { $0["rule"] as? String == "marker-unknown-policy" }.compactMap { $0["message"] as? String }
        #expect(unknown.count == 2001)
        #expect(unknown.last == "no ImagePolicy flux-system/web-prodution in the repository, so Flux never updates this field: "
                + "did you mean 'flux-system:web-production'?")
    }

    // MARK: 2. --output

    @Test func outputWritesThroughAFIFOAndASymlinkAndReplacesOnlyRegularFiles() throws {
        let r = try TempRepo(git: false)
        try r.declareOneCluster()
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))
        let fifo = r.path + "/out.fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: r.path + "/to-fifo", withDestinationPath: "out.fifo")
        // a reader on the FIFO, as a CI step piping the report on
        let got = Locked(Data())
        let reading = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            got.value = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            reading.signal()
        }
        let res = try tagwarden(["audit", ".", "--format", "json", "-o", "to-fifo"], in: r.path)
        #expect(res.code == 1, "\(res.stderr)")
        #expect(reading.wait(timeout: .now() + 30) == .success)
        #expect(String(decoding: got.value, as: UTF8.self).contains("\"image-latest-tag\""))
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")
        #expect(lstat(r.path + "/to-fifo", &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK, "the symlink was replaced")

        // a symlink to a regular file: the file is replaced (its mode kept), the link stays
        try r.write("reports/last.json", "old")
        #expect(chmod(r.path + "/reports/last.json", 0o640) == 0)
        try FileManager.default.createSymbolicLink(atPath: r.path + "/report.json", withDestinationPath: "reports/last.json")
        #expect(try tagwarden(["audit", ".", "--format", "json", "-o", "report.json"], in: r.path).code == 1)
        #expect(lstat(r.path + "/report.json", &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK)
        #expect(stat(r.path + "/reports/last.json", &st) == 0 && st.st_mode & 0o777 == 0o640)
        #expect(try String(contentsOfFile: r.path + "/reports/last.json", encoding: .utf8).contains("\"image-latest-tag\""))
        // nothing left behind
        let left = try FileManager.default.contentsOfDirectory(atPath: r.path + "/reports")
        #expect(left == ["last.json"])
    }

    // MARK: 3. what a pull request gets through

    @Test func utf16AndUtf32ManifestsWithAByteOrderMarkAreRead() throws {
        let r = try TempRepo(git: false)
        func encoded(_ name: String, _ bom: [UInt8], _ encoding: String.Encoding) -> Data {
            Data(bom) + pod(name, images: ["evil/backdoor:latest"]).data(using: encoding)!
        }
        try r.write("u16le.yaml", encoded("a", [0xFF, 0xFE], .utf16LittleEndian))
        try r.write("u16be.yaml", encoded("b", [0xFE, 0xFF], .utf16BigEndian))
        try r.write("u32le.yaml", encoded("c", [0xFF, 0xFE, 0, 0], .utf32LittleEndian))
        try r.write("u32be.yaml", encoded("d", [0, 0, 0xFE, 0xFF], .utf32BigEndian))
        // a lone high surrogate: no UTF-16 at all
        try r.write("broken.yaml", Data([0xFF, 0xFE]) + "a: 1\n".data(using: .utf16LittleEndian)! + Data([0x00, 0xD8, 0x61, 0x00]))
        let res = try r.audit("--format", "json")
        #expect(res.code == 1, "\(res.stderr)")
        #expect(res.findings == ["file-skipped broken.yaml:1:1", "image-latest-tag u16be.yaml:8:14", "image-latest-tag u16le.yaml:8:14",
                                 "image-latest-tag u32be.yaml:8:14", "image-latest-tag u32le.yaml:8:14"])
        #expect(res.findingObjects.first?["severity"] as? String == "error")
    }

    /// Africa-Can-Do/podinfo-multi: kustomize splits a file's documents at `---` lines before it decodes it, so in a
    /// UTF-16 file it finds none, and decodes only the first document; the rest is never applied.
    @Test func onlyTheFirstDocumentOfAUtf16FileIsRead() throws {
        let r = try TempRepo(git: false)
        let text = pod("a", images: ["nginx:1.25.3"]) + "---\r\n" + pod("b", images: ["evil/backdoor:latest"])
        try r.write("two.yaml", Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!)
        let res = try r.audit("--format", "json")
        #expect(res.findings == ["file-skipped two.yaml:1:1"], "\(res.stderr)")
        #expect(res.findingObjects.first?["severity"] as? String == "warning")
        #expect((res.findingObjects.first?["message"] as? String)?.hasPrefix("skipped: its documents after the first (from line 9) are not read") == true)
    }

    @Test func filesAKustomizationNamesAreReadWhateverTheirExtension() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        try r.write("apps/kustomization.yaml", "resources:\n  - evil.json\n  - evil.txt\n  - web.yaml\n")
        try r.write("apps/evil.json", #"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}, "spec": {"containers": [{"name": "a", "image": "evil/json:latest"}]}}"#)
        try r.write("apps/evil.txt", pod("t", images: ["evil/txt:latest"]))
        try r.write("apps/web.yaml", pod("w", images: ["nginx:1.25.3"]))
        try r.write("notes.txt", pod("n", images: ["not/deployed:latest"]))   // no build names it
        try r.write("flow/kustomization.yaml", "resources: [evil]\n")          // a flow list, a file without extension
        try r.write("flow/evil", pod("f", images: ["evil/flow:latest"]))
        try r.commitAll("apps")
        for args in [["audit", "--format", "json"], ["audit", "--rev", "HEAD", "--format", "json"]] {
            let res = try tagwarden(args, in: r.path)
            #expect(res.code == 1, "\(res.stderr)")
            #expect(res.findings == ["image-latest-tag apps/evil.json:1:111", "image-latest-tag apps/evil.txt:8:14",
                                     "image-latest-tag flow/evil:8:14"], "\(args)")
        }
    }

    /// A repository with staging and production, promoted images, and the strict profile.
    func promotionRepo() throws -> TempRepo {
        let r = try TempRepo()
        try r.declareOneCluster("profile: strict\n")
        try r.write("flux/repo.yaml", "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: web}\nspec: {image: ghcr.io/acme/web}\n")
        try r.write("clusters/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.2.3-abc1234-1700000000@\(digestA)"]))
        try r.write("clusters/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:production-v1.2.3-abc1234-1700000000@\(digestA)"]))
        try r.commitAll("base")
        try r.git("checkout", "-q", "-b", "pr")
        return r
    }
    let digestA = "sha256:" + String(repeating: "1", count: 64)
    let digestB = "sha256:" + String(repeating: "2", count: 64)

    @Test func aPullRequestsOwnCommitsAreNoStagingEvidence() throws {
        let r = try promotionRepo()
        try r.write("clusters/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.2.4-def5678-1700000500@\(digestB)"]))
        try r.commitAll("staging uses B")
        try r.write("clusters/staging/web.yaml", pod("web", images: ["ghcr.io/acme/web:staging-v1.2.3-abc1234-1700000000@\(digestA)"]))
        try r.commitAll("revert staging")
        try r.write("clusters/production/web.yaml", pod("web", images: ["ghcr.io/acme/web:production-v1.2.4-def5678-1700000500@\(digestB)"]))
        try r.commitAll("production uses B")
        let res = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(res.code == 1, "\(res.stderr)")
        #expect(res.findings == ["promotion-untested-digest clusters/production/web.yaml:8:14"])
    }

    @Test func thePullRequestsConfigIsNotInForceAndWhatItLoosensIsAnError() throws {
        let r = try TempRepo()
        try r.write(".tagwarden.yaml", "rules:\n  image-floating-tag: {severity: error}\n")
        try r.write("apps/web.yaml", pod("web", images: ["nginx:1.25.3"]))
        try r.commitAll("base")
        try r.git("checkout", "-q", "-b", "pr")
        try r.write(".tagwarden.yaml", "ignore: [\"**\"]\nrules:\n  image-floating-tag: {enabled: false}\n")
        try r.write("apps/web.yaml", pod("web", images: ["evil/backdoor:latest"]))
        try r.commitAll("all clear")
        let res = try tagwarden(["check", "--base", "main", "--format", "json"], in: r.path)
        #expect(res.code == 1, "\(res.stderr)")
        #expect(res.findings == ["image-latest-tag apps/web.yaml:8:14", "config-weakened .tagwarden.yaml:1:10", "config-weakened .tagwarden.yaml:3:3"])
        let messages = res.findingObjects.dropFirst().compactMap { $0["message"] as? String }
        #expect(messages[0] == "this change to .tagwarden.yaml ignores '**'; the check ran with the base side's config, and later runs would not")
        #expect(messages[1].hasPrefix("this change to .tagwarden.yaml turns rule image-floating-tag off"))
        // a repository that reviews config changes otherwise
        let head = try tagwarden(["check", "--base", "main", "--config-from", "head", "--format", "json"], in: r.path)
        #expect(head.code == 0 && head.findings.isEmpty, "\(head.stdout)")
    }

    // MARK: 4, 5. output that repository content cannot forge

    @Test func repositoryContentNeverForgesALogLineOrDrivesTheTerminal() throws {
        let r = try TempRepo(git: false)
        try r.write(".tagwarden.yaml", "\"bogus\\n::error file=a.yaml,line=1::CONFIG-FORGED\\e[2J\": 1\n")
        let res = try r.audit()
        #expect(res.code == 2)
        #expect(res.stderr == "tagwarden: error: .tagwarden.yaml:1:1: unknown key 'bogus\\n::error file=a.yaml,line=1::CONFIG-FORGED\\e[2J' in the config; "
                + "allowed: profile, environments, rules, promotedImages, floatingTags, shortVersionReleases, ignore, maxFileSize, maxInputSize, fluxVersion, clusters\n")

        try r.declareOneCluster("environments:\n  - name: \"prod\\n::error::ENV-FORGED\\u202E\"\n    paths: [\"apps/**\"]\n")
        try r.write("::error file=x::y/p.yaml", pod("a", images: ["\"nginx:latest\\e[31m\\u202e\""]))
        for args in [["audit", "."], ["audit", ".", "--format", "github"], ["env", "."]] {
            let out = try tagwarden(args, in: r.path)
            #expect(out.code != 2 && out.code >= 0, "\(args): \(out.stderr)")
            for line in (out.stdout + out.stderr).split(separator: "\n") {
                #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0x07 }, "\(args): \(line)")
                if args.contains("github") {
                    #expect(!line.hasPrefix("::") || line.hasPrefix("::error file=%3A%3Aerror file=x%3A%3Ay/p.yaml,"), "\(line)")
                } else {
                    #expect(!line.hasPrefix("::"), "\(args): \(line)")
                }
            }
        }
        let github = try tagwarden(["audit", ".", "--format", "github"], in: r.path)
        #expect(github.stdout.contains("latest%1B[31m"))
    }

    @Test func markdownQuotesContentAsTextAndOneHugeFindingCannotHideTheOthers() throws {
        let r = try TempRepo(git: false)
        try r.declareOneCluster()
        try r.write("we`ird|name.yaml", pod("a", images: ["\"nginx:<img src=x><h3>All clear</h3>\"", "nginx:" + String(repeating: "a", count: 70_000)]))
        for i in 1...3 { try r.write("p\(i).yaml", pod("p\(i)", images: ["nginx:latest"])) }
        let res = try r.audit("--format", "markdown")
        #expect(res.code == 1)
        #expect(!res.stdout.contains("<h3>") && !res.stdout.contains("<img"))
        #expect(res.stdout.contains("&lt;h3&gt;All clear&lt;/h3&gt;"))
        #expect(res.stdout.contains("| we\\`ird\\|name.yaml:8:14 |"))
        #expect(!res.stdout.contains("not shown"), "a finding was pushed out")
        #expect(res.stdout.split(separator: "\n").filter { $0.hasPrefix("| 🔴") }.count == 5)
        #expect(res.stdout.utf8.count < 8_000)
    }

    // MARK: 8, 9, 10. a damaged repository fails closed, fast, and blobs are sized before they are read

    /// A repository whose `a.yaml` blob is a loose object cut to `bytes` bytes (nil: removed).
    func damagedRepo(cutTo bytes: Int?) throws -> (TempRepo, String) {
        let r = try TempRepo()
        try r.write("apps/a.yaml", pod("a", images: ["nginx:1.25.3"]) + "# " + String(repeating: "padding ", count: 2000) + "\n")
        try r.commitAll("base")
        try r.git("checkout", "-q", "-b", "pr")
        try r.write("apps/b.yaml", pod("b", images: ["nginx:1.25.3"]))
        try r.commitAll("pr")
        let oid = try r.git("rev-parse", "HEAD:apps/a.yaml").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let file = r.path + "/.git/objects/" + oid.prefix(2) + "/" + oid.dropFirst(2)
        chmod(file, 0o644)
        if let bytes { #expect(truncate(file, off_t(bytes)) == 0) } else { try FileManager.default.removeItem(atPath: file) }
        return (r, oid)
    }

    @Test(arguments: [20, 200])
    func aTruncatedLooseObjectFailsAtOnce(_ bytes: Int) throws {
        let (r, oid) = try damagedRepo(cutTo: bytes)
        let audit = try bounded(["audit", "--rev", "HEAD", "--format", "json"], in: r.path, seconds: 10)
        #expect(audit.code == 1, "\(audit.stderr)")
        #expect(audit.findings == ["file-skipped apps/a.yaml:1:1"])
        let message = audit.findingObjects.first?["message"] as? String ?? ""
        #expect(message.hasPrefix("skipped: loose object \(oid) is damaged: "), "\(message)")
        #expect(audit.findingObjects.first?["severity"] as? String == "error")
        let check = try bounded(["check", "--base", "main"], in: r.path, seconds: 10)
        #expect(check.code == 2)
        #expect(check.stderr.hasPrefix("tagwarden: error: apps/a.yaml in ") && check.stderr.contains("loose object \(oid) is damaged"), "\(check.stderr)")
    }

    @Test func aMissingBlobFailsClosed() throws {
        let (r, oid) = try damagedRepo(cutTo: nil)
        let audit = try r.audit("--rev", "HEAD", "--format", "json")
        #expect(audit.code == 1 && audit.findings == ["file-skipped apps/a.yaml:1:1"], "\(audit.stderr)")
        #expect(audit.findingObjects.first?["message"] as? String == "skipped: blob \(oid) is missing from the object database")
        let check = try tagwarden(["check", "--base", "main"], in: r.path)
        #expect(check.code == 2 && check.stderr.contains("blob \(oid) is missing from the object database"), "\(check.stderr)")
    }

    @Test func theRunsInputBudgetLeavesNoFileUnreadInSilence() throws {
        let r = try TempRepo(git: false)
        try r.write(".tagwarden.yaml", "maxInputSize: 1K\n")
        try r.write("a.yaml", pod("a", images: ["nginx:latest"]))                                  // 120 bytes: read
        try r.write("b.yaml", pod("b", images: ["nginx:1.25.3"]) + "# " + String(repeating: "x", count: 1000) + "\n")
        try r.write("c.yaml", pod("c", images: ["nginx:latest"]))                                  // fits again: read
        let res = try r.audit("--format", "json")
        #expect(res.code == 1, "\(res.stderr)")
        #expect(res.findings == ["image-latest-tag a.yaml:8:14", "file-skipped b.yaml:1:1", "image-latest-tag c.yaml:8:14"])
        let skipped = res.findingObjects.first { $0["rule"] as? String == "file-skipped" }
        #expect(skipped?["severity"] as? String == "error")
        #expect((skipped?["message"] as? String)?.hasPrefix("skipped: the run's input budget (maxInputSize, 1 KiB) is spent") == true)
    }

    @Test func aBlobOverTheLimitIsNeverInflated() throws {
        let r = try TempRepo()
        try r.declareOneCluster()
        // 200 MB of zeros: a loose object of a few hundred kilobytes
        let big = r.path + "/big.yaml"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let h = try #require(FileHandle(forWritingAtPath: big))
        try h.truncate(atOffset: 200 << 20)
        try h.close()
        try r.write("apps/a.yaml", pod("a", images: ["nginx:latest"]))
        try r.commitAll("big")
        let res = try bounded(["audit", "--rev", "HEAD", "--format", "json"], in: r.path, seconds: 30, rssMB: 120)
        #expect(res.code == 1, "\(res.stderr)")
        #expect(res.findings == ["image-latest-tag apps/a.yaml:8:14", "file-skipped big.yaml:1:1"])
    }
}
