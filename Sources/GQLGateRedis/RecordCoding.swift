/// The binary layout of what gqlgate keeps in Redis and sends through it
/// (stored answers, invalidation messages): big-endian integers, texts as
/// a 32-bit length and UTF-8, lists of texts as a 32-bit count and texts.
enum RecordCoding {
    static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    static func append(_ text: String, to out: inout [UInt8]) {
        append(UInt32(text.utf8.count), to: &out)
        out.append(contentsOf: text.utf8)
    }

    static func append(_ texts: [String], to out: inout [UInt8]) {
        append(UInt32(texts.count), to: &out)
        for text in texts { append(text, to: &out) }
    }

    /// Root arguments: a count, then each name (sorted) and its values (sorted).
    static func append(_ arguments: [String: Set<String>], to out: inout [UInt8]) {
        append(UInt32(arguments.count), to: &out)
        for (name, values) in arguments.sorted(by: { $0.key < $1.key }) {
            append(name, to: &out)
            append(values.sorted(), to: &out)
        }
    }

    /// Reads a record front to back; every read is nil past the end.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            guard let slice = take(MemoryLayout<T>.size) else { return nil }
            return slice.reduce(T.zero) { $0 << 8 | T($1) }
        }

        mutating func text() -> String? {
            guard let count = integer(UInt32.self), let slice = take(Int(count)) else { return nil }
            return String(validating: slice, as: UTF8.self)
        }

        mutating func texts() -> [String]? {
            guard let count = integer(UInt32.self), Int(count) <= bytes.count - offset else { return nil }
            var texts: [String] = []
            for _ in 0..<count {
                guard let text = text() else { return nil }
                texts.append(text)
            }
            return texts
        }

        mutating func arguments() -> [String: Set<String>]? {
            guard let count = integer(UInt32.self), Int(count) <= bytes.count - offset else { return nil }
            var arguments: [String: Set<String>] = [:]
            for _ in 0..<count {
                guard let name = text(), let values = texts() else { return nil }
                arguments[name] = Set(values)
            }
            return arguments
        }
    }
}
