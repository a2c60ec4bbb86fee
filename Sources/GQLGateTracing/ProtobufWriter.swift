/// Protocol Buffers' wire format, for the few OTLP messages gqlgate sends:
/// varints, 64- and 32-bit fixed fields and length-delimited fields.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

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

    /// A string field; the empty string is left out.
    mutating func stringField(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        bytesField(field, value.utf8)
    }

    /// An embedded message, written by `body`.
    mutating func messageField(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        body(&inner)
        bytesField(field, inner.bytes)
    }
}
