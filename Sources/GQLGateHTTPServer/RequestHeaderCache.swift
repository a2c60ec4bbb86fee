import GQLGateCore
#if canImport(Glibc)
import Glibc
#endif

/// The header fields of recent requests, by the exact bytes of their names
/// and values: clients send the same fields request after request (`Host`,
/// `Content-Type`, `Accept`, `User-Agent`), and a field seen before is handed
/// out again without making its two strings.
///
/// Not `Sendable`: one per server thread (the server keeps one only when it
/// runs a single thread), used on that thread only.
final class RequestHeaderCache {
    private struct Entry {
        let name: [UInt8]
        let value: [UInt8]
        let field: HTTPHeaders.Field
    }

    /// How many fields are kept.
    static let capacity = 32
    /// Longer values are made into strings every time: rarely repeated, and not worth keeping.
    static let longestValue = 256

    @exclusivity(unchecked) private var entries: [Entry] = []
    /// Where the next new field goes once the cache is full.
    @exclusivity(unchecked) private var nextSlot = 0

    init() {
        entries.reserveCapacity(Self.capacity)
    }

    /// The field `name: value`, from the cache when the same bytes came before.
    func field(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> HTTPHeaders.Field {
        guard let nameBytes = name.baseAddress, value.count <= Self.longestValue else { return Self.make(name, value) }
        for index in entries.indices where entries[index].name.count == name.count && entries[index].value.count == value.count {
            let same = entries[index].name.withUnsafeBytes { memcmp($0.baseAddress!, nameBytes, name.count) == 0 }
                && (value.isEmpty || entries[index].value.withUnsafeBytes { memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0 })
            if same { return entries[index].field }
        }
        let field = Self.make(name, value)
        let entry = Entry(name: Array(name), value: Array(value), field: field)
        // A new value of a field already here takes its place, so the rest stays.
        if let index = entries.firstIndex(where: { $0.field.name == field.name }) {
            entries[index] = entry
        } else if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[nextSlot] = entry
            nextSlot = (nextSlot + 1) % Self.capacity
        }
        return field
    }

    private static func make(_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> HTTPHeaders.Field {
        HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }
}
