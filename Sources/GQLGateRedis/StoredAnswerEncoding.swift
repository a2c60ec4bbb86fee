import CZlib
import GQLGateCore
import GQLGateEventLoop
package import GQLGateExchanges

/// How a `CachedAnswer` is kept in Redis: a compact binary record, read back
/// only when it is whole, of this version and its checksum holds (a record
/// changed in Redis, by a fault or by hand, is a miss, never an answer).
///
/// Layout (integers big-endian, texts as a 32-bit length and UTF-8):
/// `"GQA2"`, the CRC-32 of everything after it (32 bits), status (16 bits),
/// stored-at and TTL (64-bit nanoseconds; the
/// stored-at time is wall-clock, as replicas share it), the headers (count,
/// then name and value each), the entity tags, the type tags (count, then
/// texts), the root arguments (count, then name, count of values, values),
/// and the body (32-bit length and bytes).
package enum StoredAnswerEncoding {
    private static let magic: [UInt8] = Array("GQA2".utf8)
    /// Where the checksummed part starts: after the magic and the checksum.
    private static let checkedFrom = 8

    /// The record of `answer`.
    package static func encode(_ answer: CachedAnswer) -> [UInt8] {
        var out = magic
        out.reserveCapacity(answer.cost + checkedFrom)
        RecordCoding.append(UInt32(0), to: &out)  // the checksum, written last
        RecordCoding.append(UInt16(clamping: answer.status), to: &out)
        RecordCoding.append(answer.storedAt.nanoseconds, to: &out)
        RecordCoding.append(answer.ttl.nanoseconds, to: &out)
        RecordCoding.append(UInt32(answer.headers.count), to: &out)
        for field in answer.headers {
            RecordCoding.append(field.name, to: &out)
            RecordCoding.append(field.value, to: &out)
        }
        RecordCoding.append(answer.tags.entities.sorted(), to: &out)
        RecordCoding.append(answer.tags.types.sorted(), to: &out)
        RecordCoding.append(answer.tags.arguments, to: &out)
        RecordCoding.append(UInt32(answer.body.count), to: &out)
        answer.body.withUnsafeBytes { out.append(contentsOf: $0) }
        let sum = checksum(of: out)
        withUnsafeBytes(of: sum.bigEndian) { out.replaceSubrange(magic.count..<checkedFrom, with: $0) }
        return out
    }

    /// The CRC-32 of `record` from `checkedFrom` on.
    private static func checksum(of record: [UInt8]) -> UInt32 {
        record.withUnsafeBufferPointer { buffer in
            var crc = crc32(0, nil, 0)
            var offset = checkedFrom
            while offset < buffer.count {  // zlib takes 32-bit lengths
                let length = min(buffer.count - offset, Int(UInt32.max))
                crc = crc32(crc, buffer.baseAddress! + offset, UInt32(length))
                offset += length
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// The answer in `record`; nil when it is not a whole record of this version or its checksum fails.
    package static func decode(_ record: [UInt8]) -> CachedAnswer? {
        var reader = RecordCoding.Reader(bytes: record)
        guard reader.take(magic.count) == magic[...], let sum = reader.integer(UInt32.self), sum == checksum(of: record),
              let status = reader.integer(UInt16.self),
              let storedAt = reader.integer(UInt64.self), let ttl = reader.integer(UInt64.self),
              let headerCount = reader.integer(UInt32.self)
        else { return nil }
        var headers = HTTPHeaders()
        for _ in 0..<headerCount {
            guard let name = reader.text(), let value = reader.text() else { return nil }
            headers.add(name: name, value: value)
        }
        guard let entities = reader.texts(), let types = reader.texts(), let arguments = reader.arguments() else { return nil }
        guard let bodyCount = reader.integer(UInt32.self), let body = reader.take(Int(bodyCount)), reader.isAtEnd else { return nil }
        return CachedAnswer(
            status: Int(status), headers: headers, body: Bytes(Array(body)),
            storedAt: .nanoseconds(Int64(bitPattern: storedAt)), ttl: .nanoseconds(Int64(bitPattern: ttl)),
            tags: CacheTags(entities: Set(entities), types: Set(types), arguments: arguments))
    }
}
