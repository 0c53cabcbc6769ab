// libFuzzer's entry for scripts/fuzz-registry-parsers: one reading of `RegistryAnswers` per run, as FUZZ_TARGET names
// it, with the property each must keep. A trap, a sanitizer report or a broken property is a crash libFuzzer keeps.
#if canImport(Glibc)
import Glibc
#endif

let target: String = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    switch target {
    case "challenge":
        let (scheme, parameters) = RegistryAnswers.challenge(text)
        precondition(!scheme.contains(" ") && parameters.count <= text.utf8.count)
    case "link":
        if let next = RegistryAnswers.nextLink(text, origin: "https://registry.example:443") {
            precondition(next.hasPrefix("http://") || next.hasPrefix("https://"))
        }
    case "retry-after":
        if let seconds = RegistryAnswers.retryAfter(text) { precondition(seconds.isFinite && seconds >= 0) }
    case "tag-list":
        if let tags = try? RegistryAnswers.tagList(bytes) { precondition(tags.count <= size) }
    case "manifest":
        if let digests = RegistryAnswers.manifestDigests(bytes) { precondition(digests.count <= size) }
    default:
        fatalError("FUZZ_TARGET must be challenge, link, retry-after, tag-list or manifest")
    }
    return 0
}
