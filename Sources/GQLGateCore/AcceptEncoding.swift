/// Reads a client's `Accept-Encoding` (RFC 9110 §12.5.3).
public enum AcceptEncoding {
    /// The coding of `offered` (in the server's order of preference) that
    /// `header` rates highest, ties going to the earlier one; nil when it
    /// accepts none of them (no header, `identity` only, or `q=0`). `*`
    /// rates the codings the header does not name; `x-gzip` is `gzip`.
    public static func preferred(_ header: String?, offered: [ContentCoding]) -> ContentCoding? {
        guard let header, !offered.isEmpty else { return nil }
        var named: [(coding: ContentCoding, q: Int)] = []
        var anyOther: Int?
        for element in header.utf8.split(separator: UInt8(ascii: ",")) {
            let parts = Substring(element).split(separator: ";", omittingEmptySubsequences: false)
            let name = parts[0].trimmingASCIISpaces()
            var q = 1000
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingASCIISpaces().lowercased() == "q" else { continue }
                q = quality(pair[1].trimmingASCIISpaces()) ?? 0
            }
            if name == "*" {
                anyOther = q
            } else if let coding = coding(named: name) {
                named.append((coding, q))
            }
        }
        var best: (coding: ContentCoding, q: Int)?
        for coding in offered {
            let q = named.first { $0.coding == coding }?.q ?? anyOther ?? 0
            if q > 0, q > (best?.q ?? 0) { best = (coding, q) }
        }
        return best?.coding
    }

    private static func coding(named name: Substring) -> ContentCoding? {
        switch name.lowercased() {
        case "br": .br
        case "gzip", "x-gzip": .gzip
        default: nil
        }
    }

    /// A qvalue (`0`, `0.5`, `1.000`) in thousandths; nil when it is not one.
    static func quality(_ text: Substring) -> Int? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var value = Int(first - UInt8(ascii: "0")) * 1000
        guard bytes.count > 1 else { return value }
        guard bytes[1] == UInt8(ascii: "."), bytes.count <= 5 else { return nil }
        var scale = 100
        for digit in bytes.dropFirst(2) {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }
}
