import Crypto

/// A document's canonical text: its tokens, each as written, joined by one
/// space. Texts that differ only in whitespace, commas or comments get the
/// same one, and different token sequences never do (the canonical text
/// lexes back to its tokens). One pass over the text, whatever its nesting.
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
}
