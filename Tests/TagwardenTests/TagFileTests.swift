import Testing
import TagwardenBasics
@testable import TagwardenUpdate

@Suite struct TagFileTests {
    func parse(_ text: String) throws -> TagFile { try TagFile.parse(Array(text.utf8), path: "tags.yaml") }

    /// The message of the error `text` gives, failing the test when it parses.
    func failure(_ text: String) -> String {
        do {
            _ = try parse(text)
            Issue.record("parsed: \(text)")
            return ""
        } catch let e as TagwardenError {
            return e.message
        } catch {
            Issue.record("not a TagwardenError: \(error)")
            return ""
        }
    }

    let digest = "sha256:" + String(repeating: "ab", count: 32)

    @Test func jsonWithStringsAndDigests() throws {
        let f = try parse("""
            {"ghcr.io/acme/web": ["1.0.0", {"tag": "1.1.0", "digest": "\(digest)"}],
             "docker.io/library/nginx": []}
            """)
        #expect(f.images == ["ghcr.io/acme/web", "docker.io/library/nginx"])
        #expect(try f.tags(of: "ghcr.io/acme/web") == [TagRecord(tag: "1.0.0"), TagRecord(tag: "1.1.0", digest: digest)])
        #expect(try f.tags(of: "docker.io/library/nginx") == [])
        #expect(try f.tags(of: "ghcr.io/acme/api") == nil)
    }

    @Test func yamlTagsStayAsWritten() throws {
        // a tag YAML would read as a number is the text written, as a registry lists it
        let f = try parse("""
            ghcr.io/acme/web:
              - 1.10
              - 007
              - tag: v2
                digest: null
            """)
        #expect(try f.tags(of: "ghcr.io/acme/web") == [TagRecord(tag: "1.10"), TagRecord(tag: "007"), TagRecord(tag: "v2")])
    }

    @Test func errorsNameTheFileLineAndColumn() {
        #expect(failure("") == "tags.yaml: empty: expected a mapping of images to their tags")
        #expect(failure("- a\n") == "tags.yaml:1:1: expected a mapping of images to lists of tags")
        #expect(failure("web: 1.0\n") == "tags.yaml:1:6: the tags of web must be a list")
        #expect(failure("web: [1.0]\nweb: [2.0]\n") == "tags.yaml:2:1: image web is listed twice")
        #expect(failure("web:\n  - ''\n") == "tags.yaml:2:5: an empty tag in the tags of web")
        #expect(failure("web:\n  - [1]\n") == "tags.yaml:2:5: a tag must be a string or {tag: …, digest: …}")
        #expect(failure("web:\n  - {tag: a, size: 3}\n") == "tags.yaml:2:14: unknown field 'size': a tag has 'tag' and 'digest'")
        #expect(failure("web:\n  - {digest: \(digest)}\n") == "tags.yaml:2:5: a tag given as a mapping needs 'tag'")
        #expect(failure("web:\n  - {tag: a, digest: sha256:AB}\n")
                == "tags.yaml:2:22: sha256 digest must be lower-case hexadecimal")
        #expect(failure("a: b\n---\nc: d\n") == "tags.yaml: 2 documents: expected one mapping of images to their tags")
        #expect(failure("web: [a\n").hasPrefix("tags.yaml:2:1: not YAML or JSON: "))
    }
}
