import GQLGateCore
import GQLGateHTTPServer
import Glibc

/// A GraphQL request's bytes as `HitReplay` compares them: its method,
/// query string items, body, every header field but `X-Request-Id` (names
/// and values as the client sent them, in order) and its client
/// certificate's subject, each part length-prefixed so that no two
/// requests share a key. The header fields are read from the connection,
/// not as `HTTPHeaders`: a repeated hit never needs those.
struct ReplayKey: Hashable, Sendable {
    private let bytes: [UInt8]

    /// Keys of more bytes than this are not made (nor are such requests replayed).
    static let mostBytes = 16 << 10

    /// Nil for a request of more than `mostBytes`. On the server thread, while the delegate answers.
    init?(_ request: ServerRequest) {
        let body = request.body
        let queryItems = request.queryItems
        let subject = request.clientCertificateSubject
        // Room for every part and its length, measured first, then written once.
        var room = 4 + request.method.utf8.count + 1 + 4 + body.count + request.headerFieldRoom + 1 + (subject.map { 4 + $0.utf8.count } ?? 0)
        for item in queryItems { room += 8 + item.name.utf8.count + (item.value?.utf8.count ?? 0) }
        guard room <= Self.mostBytes else { return nil }
        bytes = [UInt8](unsafeUninitializedCapacity: room) { buffer, initialized in
            var writer = Writer(buffer: buffer)
            writer.write(request.method)
            for item in queryItems {
                writer.write(item.name)
                if let value = item.value { writer.write(value) } else { writer.writeLength(Int(UInt32.max)) }
            }
            writer.writeByte(0xFF)  // no length starts with it below 4 GiB: the end of the query items
            body.withUnsafeBytes { writer.write($0) }
            request.forEachHeaderField { name, value in
                guard !Self.isRequestID(name) else { return }
                writer.write(name)
                writer.write(value)
            }
            writer.writeByte(0xFF)  // the end of the header fields
            if let subject { writer.write(subject) }
            initialized = writer.overflowed ? 0 : writer.position
        }
        guard !bytes.isEmpty else { return nil }  // fields the room did not foresee: not remembered
    }

    static func == (lhs: ReplayKey, rhs: ReplayKey) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { l in rhs.bytes.withUnsafeBytes { r in memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 } }
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// How many bytes the key holds.
    var byteCount: Int { bytes.count }

    /// Whether `name` is `X-Request-Id`, in any case.
    private static func isRequestID(_ name: UnsafeRawBufferPointer) -> Bool {
        name.withMemoryRebound(to: UInt8.self) { $0.equalsIgnoringASCIICase(0..<$0.count, "x-request-id") }
    }

    /// Writes length-prefixed parts into a buffer with room for them; past
    /// its end it writes nothing more and says it `overflowed`.
    private struct Writer {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var position = 0
        var overflowed = false

        mutating func write(_ text: String) {
            // Native strings (every one a request holds) give their bytes in place; others are copied once.
            if text.utf8.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) == nil {
                var copy = text
                copy.withUTF8 { write(UnsafeRawBufferPointer($0)) }
            }
        }

        mutating func write(_ part: UnsafeRawBufferPointer) {
            writeLength(part.count)
            guard let base = part.baseAddress, part.count > 0, fits(part.count) else { return }
            UnsafeMutableRawPointer(buffer.baseAddress! + position).copyMemory(from: base, byteCount: part.count)
            position += part.count
        }

        mutating func writeLength(_ count: Int) {
            guard fits(4) else { return }
            UnsafeMutableRawPointer(buffer.baseAddress! + position).storeBytes(of: UInt32(truncatingIfNeeded: count).bigEndian, as: UInt32.self)
            position += 4
        }

        mutating func writeByte(_ byte: UInt8) {
            guard fits(1) else { return }
            buffer[position] = byte
            position += 1
        }

        private mutating func fits(_ count: Int) -> Bool {
            if !overflowed, position + count > buffer.count { overflowed = true }
            return !overflowed
        }
    }
}
