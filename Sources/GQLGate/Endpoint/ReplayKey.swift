import GQLGateCore
import GQLGateHTTPServer
import Glibc

/// A GraphQL request's bytes as `HitReplay` compares them: its method,
/// query string items, body, every header field but `X-Request-Id` (names
/// and values as sent, in order) and its client certificate's subject, each
/// part length-prefixed so that no two requests share a key.
struct ReplayKey: Hashable, Sendable {
    private let bytes: [UInt8]

    /// Keys of more bytes than this are not made (nor are such requests replayed).
    static let mostBytes = 16 << 10

    init?(_ request: ServerRequest) {
        let body = request.body
        let headers = request.headers
        let queryItems = request.queryItems
        let subject = request.clientCertificateSubject
        // Sized first, then written once: four bytes of length before each part.
        var count = 4 + request.method.utf8.count + 1 + 4 + body.count + 1 + (subject.map { 4 + $0.utf8.count } ?? 0)
        for item in queryItems { count += 8 + item.name.utf8.count + (item.value?.utf8.count ?? 0) }
        headers.withFields { fields in
            for field in fields { count += 8 + field.name.utf8.count + field.value.utf8.count }
        }
        guard count <= Self.mostBytes else { return nil }
        bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var writer = Writer(buffer: buffer)
            writer.write(request.method)
            for item in queryItems {
                writer.write(item.name)
                if let value = item.value { writer.write(value) } else { writer.writeLength(Int(UInt32.max)) }
            }
            writer.writeByte(0xFF)  // no length starts with it below 4 GiB: the end of the query items
            body.withUnsafeBytes { writer.write($0) }
            headers.withFields { fields in
                for field in fields where !field.name.equalsIgnoringASCIICase("x-request-id") {
                    writer.write(field.name)
                    writer.write(field.value)
                }
            }
            writer.writeByte(0xFF)  // the end of the header fields
            if let subject { writer.write(subject) }
            initialized = writer.position
        }
    }

    static func == (lhs: ReplayKey, rhs: ReplayKey) -> Bool {
        lhs.bytes.count == rhs.bytes.count && lhs.bytes.withUnsafeBytes { l in rhs.bytes.withUnsafeBytes { r in memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 } }
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// How many bytes the key holds.
    var byteCount: Int { bytes.count }

    /// Writes length-prefixed parts into a buffer sized for them.
    private struct Writer {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var position = 0

        mutating func write(_ text: String) {
            // Native strings (every one a request holds) give their bytes in place; others are copied once.
            if text.utf8.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) == nil {
                var copy = text
                copy.withUTF8 { write(UnsafeRawBufferPointer($0)) }
            }
        }

        mutating func write(_ part: UnsafeRawBufferPointer) {
            writeLength(part.count)
            guard let base = part.baseAddress, part.count > 0 else { return }
            UnsafeMutableRawPointer(buffer.baseAddress! + position).copyMemory(from: base, byteCount: part.count)
            position += part.count
        }

        mutating func writeLength(_ count: Int) {
            UnsafeMutableRawPointer(buffer.baseAddress! + position).storeBytes(of: UInt32(truncatingIfNeeded: count).bigEndian, as: UInt32.self)
            position += 4
        }

        mutating func writeByte(_ byte: UInt8) {
            buffer[position] = byte
            position += 1
        }
    }
}
