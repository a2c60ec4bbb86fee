/// Standard base64 (RFC 4648 §4, with padding), as WebSocket handshake keys and
/// HTTP Basic credentials use it.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes`.
    package static func encode<Input: Collection>(_ bytes: Input) -> String where Input.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next(), third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(second == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 63)])
            out.append(third == nil ? UInt8(ascii: "=") : alphabet[Int(group & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes padded base64; nil for anything else.
    package static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let padding = index + 4 == input.count ? input[index...].reversed().prefix { $0 == UInt8(ascii: "=") }.count : 0
            guard padding <= 2 else { return nil }
            var group: UInt32 = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                let value: UInt32
                if offset >= 4 - padding {
                    value = 0
                } else if let found = sextet(byte) {
                    value = found
                } else {
                    return nil
                }
                group = group << 6 | value
            }
            out.append(UInt8(group >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(group >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(group & 0xFF)) }
            index += 4
        }
        return out
    }

    private static func sextet(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
