/// Protocol Buffers' wire format, for the few OTLP messages gqlgate sends:
/// varints, 64- and 32-bit fixed fields and length-delimited fields. Every
/// message is written into the one buffer: an embedded message's length is
/// put before it once it is written (in place when it fits one byte, the
/// usual case for an attribute).
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func tag(_ field: Int, _ wireType: UInt64) {
        varint(UInt64(field) << 3 | wireType)
    }

    /// A varint field (ints, enums, bools); zero is left out, as proto3 does.
    mutating func varintField(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, 0)
        varint(value)
    }

    /// A varint member of a `oneof`: written even when zero, since its presence is what it says.
    mutating func oneofVarintField(_ field: Int, _ value: UInt64) {
        tag(field, 0)
        varint(value)
    }

    mutating func fixed64Field(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, 1)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func doubleField(_ field: Int, _ value: Double) {
        tag(field, 1)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func bytesField(_ field: Int, _ value: some Collection<UInt8>) {
        tag(field, 2)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A bytes field holding `word` as 8 big-endian bytes (a span id).
    mutating func bigEndianField(_ field: Int, _ word: UInt64) {
        tag(field, 2)
        varint(8)
        withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A bytes field holding `high` then `low` as 16 big-endian bytes (a trace id).
    mutating func bigEndianField(_ field: Int, _ high: UInt64, _ low: UInt64) {
        tag(field, 2)
        varint(16)
        withUnsafeBytes(of: high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: low.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string field; the empty string is left out.
    mutating func stringField(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        oneofStringField(field, value)
    }

    /// A string member of a `oneof`: written even when empty.
    mutating func oneofStringField(_ field: Int, _ value: String) {
        var value = value
        value.withUTF8 { bytesField(field, $0) }
    }

    /// An embedded message, written by `body`.
    mutating func messageField(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        tag(field, 2)
        let lengthAt = bytes.count
        bytes.append(0)  // the length, when it fits one byte
        body(&self)
        let length = bytes.count - lengthAt - 1
        guard length >= 0x80 else {
            bytes[lengthAt] = UInt8(length)
            return
        }
        var prefix = ProtobufWriter()
        prefix.varint(UInt64(length))
        bytes.replaceSubrange(lengthAt...lengthAt, with: prefix.bytes)
    }
}
