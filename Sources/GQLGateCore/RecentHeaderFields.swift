#if canImport(Glibc)
import Glibc
#endif

/// Header fields made recently, found again by the exact bytes they were
/// made from: a client sends the same fields request after request (`Host`,
/// `Content-Type`, `Accept`) and an upstream the same lines answer after
/// answer (`Server`, `Content-Type`, `Date` within a second), so a field seen
/// before is handed out again without parsing it or making its two strings.
///
/// Not `Sendable`: each thread that reads fields keeps its own.
package final class RecentHeaderFields {
    private struct Entry {
        let key: [UInt8]
        let field: HTTPHeaders.Field
    }

    private let capacity: Int
    private let longestKey: Int
    @exclusivity(unchecked) private var entries: [Entry] = []
    /// Where the next new field goes once the table is full.
    @exclusivity(unchecked) private var nextSlot = 0

    /// Keeps at most `capacity` fields, each made from at most `longestKey`
    /// bytes (longer ones are rarely repeated and made every time).
    package init(capacity: Int, longestKey: Int) {
        self.capacity = capacity
        self.longestKey = longestKey
        entries.reserveCapacity(capacity)
    }

    /// The field made from `key`: from the table when the same bytes came
    /// before, else made by `make` (nil when the bytes hold no field).
    package func field(for key: UnsafeRawBufferPointer, make: (UnsafeRawBufferPointer) -> HTTPHeaders.Field?) -> HTTPHeaders.Field? {
        guard let bytes = key.baseAddress, key.count <= longestKey else { return make(key) }
        if let index = index(count: key.count, where: { memcmp($0, bytes, key.count) == 0 }) { return entries[index].field }
        guard let field = make(key) else { return nil }
        keep(Entry(key: Array(key), field: field))
        return field
    }

    /// The field `name: value` (their bytes, the name not empty): from the
    /// table when the same bytes came before, else made from them.
    package func field(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> HTTPHeaders.Field {
        // Kept as the name, a NUL and the value.
        let count = name.count + 1 + value.count
        guard let nameBytes = name.baseAddress, count <= longestKey else { return HTTPHeaders.Field(name: name, value: value) }
        let found = index(count: count) { stored in
            memcmp(stored, nameBytes, name.count) == 0 && stored.load(fromByteOffset: name.count, as: UInt8.self) == 0
                && (value.isEmpty || memcmp(stored + name.count + 1, value.baseAddress!, value.count) == 0)
        }
        if let found { return entries[found].field }
        let field = HTTPHeaders.Field(name: name, value: value)
        var key = [UInt8](name)
        key.append(0)
        key.append(contentsOf: value)
        keep(Entry(key: key, field: field))
        return field
    }

    /// Where the entry of `count` bytes that `matches` is.
    private func index(count: Int, where matches: (UnsafeRawPointer) -> Bool) -> Int? {
        for index in entries.indices where entries[index].key.count == count {
            if entries[index].key.withUnsafeBytes({ matches($0.baseAddress!) }) { return index }
        }
        return nil
    }

    /// Keeps `entry`: in place of a field of the same name (the next second's
    /// `Date`), so the rest stays; else in a free or the oldest place.
    private func keep(_ entry: Entry) {
        if let index = entries.firstIndex(where: { $0.field.name == entry.field.name }) {
            entries[index] = entry
        } else if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[nextSlot] = entry
            nextSlot = (nextSlot + 1) % capacity
        }
    }
}
