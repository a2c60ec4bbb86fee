import GQLGateCore
#if canImport(Glibc)
import Glibc
#endif

/// The header fields of recent upstream answers, by the exact bytes of their
/// lines: an upstream sends the same lines answer after answer (`Server`,
/// `Content-Type`, `Date` within a second), and a line seen before becomes
/// its field again without parsing it or making its strings.
///
/// Not `Sendable`: one per `CurlMulti`, used on its loop only.
final class HeaderLineCache {
    private struct Entry {
        let line: [UInt8]
        let field: HTTPHeaders.Field
    }

    /// How many lines are kept (an answer rarely has more header lines).
    static let capacity = 16
    /// Longer lines are parsed every time: rarely repeated, and not worth keeping.
    static let longestLine = 256

    @exclusivity(unchecked) private var entries: [Entry] = []
    /// Where the next new line goes once the cache is full.
    @exclusivity(unchecked) private var nextSlot = 0

    init() {
        entries.reserveCapacity(Self.capacity)
    }

    /// The field for `line` (without its CRLF), made by `parse` when the line is new.
    func field(for line: UnsafeRawBufferPointer, parse: (UnsafeRawBufferPointer) -> HTTPHeaders.Field?) -> HTTPHeaders.Field? {
        guard let bytes = line.baseAddress, line.count <= Self.longestLine else { return parse(line) }
        for index in entries.indices where entries[index].line.count == line.count {
            if entries[index].line.withUnsafeBytes({ memcmp($0.baseAddress!, bytes, line.count) == 0 }) { return entries[index].field }
        }
        guard let field = parse(line) else { return nil }
        let entry = Entry(line: Array(line), field: field)
        // A new value of a field already here (the next second's `Date`) takes its place.
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
}
