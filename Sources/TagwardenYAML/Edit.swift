/// One change to a file's bytes: the bytes in `range` of the original are replaced by `replacement`.
public struct Edit: Sendable, Equatable {
    /// The replaced bytes, as offsets into the original; an empty range is an insertion.
    public var range: Range<Int>
    /// The bytes written in their place; empty for a deletion.
    public var replacement: [UInt8]

    /// An edit replacing the bytes in `range` with `replacement`.
    public init(range: Range<Int>, replacement: [UInt8]) {
        self.range = range
        self.replacement = replacement
    }

    /// An edit replacing the bytes a span covers with the UTF-8 of `replacement`.
    public init(span: SourceSpan, replacement: String) {
        self.init(range: span.start.offset..<span.end.offset, replacement: Array(replacement.utf8))
    }
}

/// Why a set of edits cannot be applied.
public enum EditError: Error, Equatable, CustomStringConvertible {
    /// The edit's range reaches outside the original bytes.
    case outOfBounds(Edit)
    /// The two edits' ranges share bytes, or one inserts inside the other's range (the earlier first).
    case overlapping(Edit, Edit)

    /// One line naming the byte ranges at fault.
    public var description: String {
        switch self {
        case .outOfBounds(let edit):
            "edit of bytes \(edit.range.lowerBound)..<\(edit.range.upperBound) lies outside the file"
        case .overlapping(let a, let b):
            "edits of bytes \(a.range.lowerBound)..<\(a.range.upperBound) and \(b.range.lowerBound)..<\(b.range.upperBound) overlap"
        }
    }
}

extension Edit {
    /// The original bytes with every edit made, each range read in the original; every other byte is kept as it is.
    ///
    /// Edits may come in any order. Insertions at one offset are made in the order given, and an insertion at either
    /// end of a replaced range is not an overlap; an edit given twice, identically, is made once.
    public static func apply(_ edits: [Edit], to bytes: [UInt8]) throws(EditError) -> [UInt8] {
        for edit in edits where edit.range.lowerBound < 0 || edit.range.upperBound > bytes.count {
            throw .outOfBounds(edit)
        }
        // Sorted by start, then end (an insertion before a replacement starting at its offset); stable, so insertions
        // at one offset keep the order given.
        let sorted = edits.enumerated().sorted { a, b in
            let (x, y) = (a.element.range, b.element.range)
            if x.lowerBound != y.lowerBound { return x.lowerBound < y.lowerBound }
            if x.upperBound != y.upperBound { return x.upperBound < y.upperBound }
            return a.offset < b.offset
        }.map(\.element)

        var kept: [Edit] = []
        kept.reserveCapacity(sorted.count)
        var sameRangeStart = 0  // where the kept edits with the last kept edit's range begin
        for edit in sorted {
            if let last = kept.last {
                if last.range == edit.range {
                    if kept[sameRangeStart...].contains(edit) { continue }
                    if !edit.range.isEmpty { throw .overlapping(last, edit) }
                } else {
                    if last.range.upperBound > edit.range.lowerBound { throw .overlapping(last, edit) }
                    sameRangeStart = kept.count
                }
            }
            kept.append(edit)
        }

        var size = bytes.count
        for edit in kept { size += edit.replacement.count - edit.range.count }
        var result: [UInt8] = []
        result.reserveCapacity(size)
        var cursor = 0
        for edit in kept {
            result.append(contentsOf: bytes[cursor..<edit.range.lowerBound])
            result.append(contentsOf: edit.replacement)
            cursor = edit.range.upperBound
        }
        result.append(contentsOf: bytes[cursor...])
        return result
    }

    /// The UTF-8 text with every edit made, ranges being UTF-8 byte offsets; see `apply(_:to:)` on bytes.
    public static func apply(_ edits: [Edit], to text: String) throws(EditError) -> String {
        String(decoding: try apply(edits, to: Array(text.utf8)), as: UTF8.self)
    }
}
