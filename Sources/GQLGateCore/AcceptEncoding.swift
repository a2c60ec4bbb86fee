/// Reads a client's `Accept-Encoding` (RFC 9110 §12.5.3).
package enum AcceptEncoding {
    /// The coding of `offered` (in the server's order of preference) that
    /// `header` rates highest, ties going to the earlier one; nil when it
    /// accepts none of them (no header, `identity` only, or `q=0`). `*`
    /// rates the codings the header does not name; `x-gzip` is `gzip`.
    /// Read in place, byte by byte: it runs on every large answer, cache hits included.
    package static func preferred(_ header: String?, offered: [ContentCoding]) -> ContentCoding? {
        guard var header, !offered.isEmpty else { return nil }
        let ratings = header.withUTF8 { Ratings(parsing: $0) }
        var best: (coding: ContentCoding, q: Int)?
        for coding in offered {
            let q = ratings.q(of: coding) ?? ratings.anyOther ?? 0
            if q > 0, q > (best?.q ?? 0) { best = (coding, q) }
        }
        return best?.coding
    }

    /// The qvalues a header gives, in thousandths.
    private struct Ratings {
        var br: Int?
        var gzip: Int?
        var anyOther: Int?

        func q(of coding: ContentCoding) -> Int? {
            switch coding {
            case .br: br
            case .gzip: gzip
            }
        }

        init(parsing bytes: UnsafeBufferPointer<UInt8>) {
            var index = 0
            while index < bytes.count {
                while index < bytes.count, bytes[index].isASCIISpace || bytes[index] == UInt8(ascii: ",") { index += 1 }
                let nameStart = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: ";") { index += 1 }
                let name = bytes.trimmingASCIISpaces(nameStart..<index)
                var q = 1000
                while index < bytes.count, bytes[index] == UInt8(ascii: ";") {
                    index += 1
                    let parameterStart = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: ";") { index += 1 }
                    if let value = qValue(bytes, bytes.trimmingASCIISpaces(parameterStart..<index)) { q = value }
                }
                switch name.count {
                case 1 where bytes[name.lowerBound] == UInt8(ascii: "*"): anyOther = q
                case 2 where bytes.equalsIgnoringASCIICase(name, "br"): br = q
                case 4 where bytes.equalsIgnoringASCIICase(name, "gzip"), 6 where bytes.equalsIgnoringASCIICase(name, "x-gzip"): gzip = q
                default: break
                }
            }
        }

        /// The value of a `q=` parameter in thousandths (0 when it is not a qvalue); nil for another parameter.
        private func qValue(_ bytes: UnsafeBufferPointer<UInt8>, _ parameter: Range<Int>) -> Int? {
            guard parameter.count >= 2, bytes[parameter.lowerBound] | 0x20 == UInt8(ascii: "q") else { return nil }
            var index = parameter.lowerBound + 1
            while index < parameter.upperBound, bytes[index].isASCIISpace { index += 1 }
            guard index < parameter.upperBound, bytes[index] == UInt8(ascii: "=") else { return nil }
            let value = bytes.trimmingASCIISpaces((index + 1)..<parameter.upperBound)
            return AcceptEncoding.quality(UnsafeBufferPointer(rebasing: bytes[value])) ?? 0
        }
    }

    /// A qvalue (`0`, `0.5`, `1.000`) in thousandths; nil when it is not one.
    static func quality(_ text: Substring) -> Int? {
        var text = String(text)
        return text.withUTF8 { quality($0) }
    }

    private static func quality(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
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
