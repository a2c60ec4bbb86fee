import GQLGateCore

/// A document's canonical text: its tokens, each as written, joined by one
/// space. Texts that differ only in whitespace, commas or comments get the
/// same one, and different token sequences never do (the canonical text
/// lexes back to its tokens). One pass over the text, whatever its nesting.
///
/// The definition-set form also ignores the order of definitions: each
/// top-level definition's canonical text, sorted, joined by one space (the
/// definitions can be told apart again by their brackets, so different sets
/// never share one).
enum CanonicalDocument {
    /// The canonical text's UTF-8 bytes.
    static func bytes(of query: String) -> [UInt8] {
        var text = query
        return text.withUTF8 { source in
            var out: [UInt8] = []
            out.reserveCapacity(source.count)
            var tokens = DocumentTokenizer(source)
            while let token = tokens.next() {
                if !out.isEmpty { out.append(UInt8(ascii: " ")) }
                out.append(contentsOf: source[token])
            }
            return out
        }
    }

    /// SHA-256 of the canonical text.
    static func digest(of query: String) -> SHA256.Digest {
        bytes(of: query).withUnsafeBytes { SHA256.hash(data: $0) }
    }

    /// SHA-256 of the definition-set form: the same for texts that differ
    /// only in whitespace, commas, comments or the order of their definitions.
    static func definitionSetDigest(of query: String) -> SHA256.Digest {
        var text = query
        var definitions: [[UInt8]] = text.withUTF8 { source in
            var definitions: [[UInt8]] = []
            var current: [UInt8] = []
            var depth = 0
            var tokens = DocumentTokenizer(source)
            while let token = tokens.next() {
                if !current.isEmpty { current.append(UInt8(ascii: " ")) }
                current.append(contentsOf: source[token])
                guard token.count == 1 else { continue }
                switch source[token.lowerBound] {
                case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 {
                        definitions.append(current)
                        current = []
                    }
                default: break
                }
            }
            if !current.isEmpty { definitions.append(current) }
            return definitions
        }
        definitions.sort { $0.lexicographicallyPrecedes($1) }
        var hasher = SHA256()
        for (index, definition) in definitions.enumerated() {
            if index > 0 { hasher.update(data: [UInt8(ascii: " ")]) }
            hasher.update(data: definition)
        }
        return hasher.finalize()
    }
}
