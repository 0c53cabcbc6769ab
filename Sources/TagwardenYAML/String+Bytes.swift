import TagwardenBasics

extension String {
    /// Whether this string's UTF-8 ends with `suffix`'s, as Go's `strings.HasSuffix` compares paths, kinds and groups:
    /// bytes, not Characters (`hasSuffix` breaks graphemes, about 170 instructions a call, on paths asked about for every
    /// file).
    package func hasBytesSuffix(_ suffix: StaticString) -> Bool {
        SourceText.hasByteSuffix(utf8, UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount))
    }

    /// Whether the UTF-8 of `needle` occurs in this string's UTF-8 (`SourceText.find` over the string's own storage).
    package func containsBytes(_ needle: StaticString) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ hay in
            needle.withUTF8Buffer { n in SourceText.find(UnsafeRawBufferPointer(hay), UnsafeRawBufferPointer(n), from: 0) != nil }
        }) {
            return found
        }
        var contiguous = self
        contiguous.makeContiguousUTF8()
        return contiguous.containsBytes(needle)
    }
}
