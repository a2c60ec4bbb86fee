import GQLGateCore

/// Protocol Buffers' wire format, for the few OTLP messages gqlgate sends:
/// varints, 64-bit fixed fields and length-delimited fields. Every message
/// is written into one buffer of its own (no copy per append, no check of
/// uniqueness): an embedded message's length is put before it once it is
/// written, in place when it fits one byte (the usual case for an attribute).
struct ProtobufWriter: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 64)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    /// What was written.
    var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: start, count: count))
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(2 * capacity, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.update(from: start, count: count)
        start.deallocate()
        start = moved
        capacity = grown
    }

    private mutating func append(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        reserve(source.count)
        UnsafeMutableRawPointer(start + count).copyMemory(from: base, byteCount: source.count)
        count += source.count
    }

    mutating func varint(_ value: UInt64) {
        reserve(10)
        var value = value
        while value >= 0x80 {
            start[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count += 1
            value >>= 7
        }
        start[count] = UInt8(value)
        count += 1
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
        withUnsafeBytes(of: value.littleEndian) { append($0) }
    }

    mutating func doubleField(_ field: Int, _ value: Double) {
        tag(field, 1)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { append($0) }
    }

    /// A bytes field holding `word` as 8 big-endian bytes (a span id).
    mutating func bigEndianField(_ field: Int, _ word: UInt64) {
        tag(field, 2)
        varint(8)
        withUnsafeBytes(of: word.bigEndian) { append($0) }
    }

    /// A bytes field holding `high` then `low` as 16 big-endian bytes (a trace id).
    mutating func bigEndianField(_ field: Int, _ high: UInt64, _ low: UInt64) {
        tag(field, 2)
        varint(16)
        withUnsafeBytes(of: high.bigEndian) { append($0) }
        withUnsafeBytes(of: low.bigEndian) { append($0) }
    }

    /// A string field; the empty string is left out.
    mutating func stringField(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        oneofStringField(field, value)
    }

    /// A string member of a `oneof`: written even when empty.
    mutating func oneofStringField(_ field: Int, _ value: String) {
        var value = value
        value.withUTF8 { text in
            tag(field, 2)
            varint(UInt64(text.count))
            append(UnsafeRawBufferPointer(text))
        }
    }

    /// An embedded message, written by `body`.
    mutating func messageField(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        tag(field, 2)
        reserve(1)
        let lengthAt = count
        count += 1  // the length, when it fits one byte
        body(&self)
        let length = count - lengthAt - 1
        guard length >= 0x80 else {
            start[lengthAt] = UInt8(length)
            return
        }
        var digits = 1
        while length >> (7 * digits) != 0 { digits += 1 }
        reserve(digits - 1)
        UnsafeMutableRawPointer(start + lengthAt + digits).copyMemory(from: start + lengthAt + 1, byteCount: length)
        var value = length
        for index in 0..<digits {
            start[lengthAt + index] = UInt8(truncatingIfNeeded: value) | (index < digits - 1 ? 0x80 : 0)
            value >>= 7
        }
        count += digits - 1
    }
}
