import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
/// Patches written inline in a kustomization (`patches: [{patch: |- …}]`): a JSON patch or a strategic merge patch
/// (of a workload, or of a HelmRelease's values) in a string. Their images are read where they stand in the file.
/// Only literal block scalars (`|`, `|-`, `|+`) are read: their lines are the file's lines less the block's
/// indentation, so every position inside maps back to the file; a patch in a quoted or folded string is not.
extension Extractor {
    mutating func inlinePatch(_ n: Int, object: ObjectID) {
        guard let (patch, map) = embeddedYAML(n) else { return }
        var ex = Extractor(y: patch, fileIndex: fileIndex, facts: FileFacts(path: facts.path, bytes: []))
        for doc in patch.documents {
            let root = doc.root
            if patch.nodes[root].kind == .sequence {
                ex.jsonPatch(root)
            } else if patch.nodes[root].kind == .mapping, let kind = patch.scalarString(patch.get(root, "kind")) {
                ex.workloadImages(root, kind: kind, group: ManifestObject.group(of: patch.scalarString(patch.get(root, "apiVersion")) ?? ""),
                                  object: object)
            }
        }
        facts.images += map.adopt(ex.facts.images, object: object)
        // `${…}` in the patch: Flux substitutes the build output, the patched object included
        facts.substitutable += map.adopt(ex.facts.substitutable, object: object)
    }

    /// The YAML written in a literal block scalar that mentions an image, with the map of its positions back to the
    /// file; nil for any other scalar, or text that does not parse.
    func embeddedYAML(_ n: Int) -> (YAMLFile, BlockLines)? {
        guard y.nodes[n].kind == .scalar, y.nodes[n].style == .literal else { return nil }
        let content = Array(y.value(n).utf8)
        guard SourceText.contains("image", in: content), let map = BlockLines(file: y.bytes, header: y.nodes[n].span.start, content: content)
        else { return nil }
        let inner = YAMLFile(parsing: content)
        return inner.error == nil ? (inner, map) : nil
    }
}

/// Where the lines of a literal block scalar's value stand in the file.
struct BlockLines {
    /// Per line of the value: its offset in the value, its offset in the file, its line number in the file.
    private var lines: [(content: Int, file: Int, line: Int)] = []
    /// The block's indentation, in spaces.
    private var indent = 0

    /// `header` is the position of the `|` that opens the block.
    init?(file: [UInt8], header: SourcePosition, content: [UInt8]) {
        var contentStart = 0
        var f = header.offset
        while f < file.count, file[f] != 10 { f += 1 }
        var line = header.line
        var indentFound = false
        while contentStart <= content.count {
            // the next file line
            f += 1
            line += 1
            guard f <= file.count else { return nil }
            var contentEnd = contentStart
            while contentEnd < content.count, content[contentEnd] != 10 { contentEnd += 1 }
            if !indentFound, contentEnd > contentStart {
                // the first line with text fixes the indentation: the file's spaces before it less its own
                var fileSpaces = 0
                while f + fileSpaces < file.count, file[f + fileSpaces] == 32 { fileSpaces += 1 }
                var ownSpaces = 0
                while contentStart + ownSpaces < contentEnd, content[contentStart + ownSpaces] == 32 { ownSpaces += 1 }
                guard fileSpaces >= ownSpaces else { return nil }
                indent = fileSpaces - ownSpaces
                indentFound = true
            }
            lines.append((contentStart, f, line))
            contentStart = contentEnd + 1
            while f < file.count, file[f] != 10 { f += 1 }
        }
        guard indentFound else { return nil }
    }

    func position(_ p: SourcePosition) -> SourcePosition {
        let l = lines[min(max(p.line - 1, 0), lines.count - 1)]
        return SourcePosition(offset: l.file + indent + (p.offset - l.content), line: l.line, column: p.column + indent)
    }

    func span(_ s: SourceSpan) -> SourceSpan { SourceSpan(start: position(s.start), end: position(s.end)) }

    /// Images found in the block's own tree, placed in the file and given to `object`.
    func adopt(_ images: [ImageUse], object: ObjectID) -> [ImageUse] {
        images.map { img in
            var img = img
            img.span = span(img.span)
            if let t = img.tag { img.tag = Located(value: t.value, span: span(t.span), type: t.type) }
            img.object = object
            img.nodes = []   // nodes of the block's own tree: no marker of the file refers to them
            return img
        }
    }
}
