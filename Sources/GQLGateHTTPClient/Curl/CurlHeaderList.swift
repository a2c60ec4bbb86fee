import CCurl
import GQLGateCore

/// A request's header lines as a `curl_slist` built in one allocation: the
/// list's nodes, then the NUL-terminated `Name: value` lines they point at.
/// curl only reads the list while the transfer runs and never frees it, so
/// it need not come from `curl_slist_append` (two allocations a line).
struct CurlHeaderList: ~Copyable {
    /// The first node, for `CURLOPT_HTTPHEADER`.
    let head: UnsafeMutablePointer<curl_slist>
    private let storage: UnsafeMutableRawPointer

    /// The list `first` and `second` (complete lines, such as `Expect:`), then `name: value` for each field.
    init(first: StaticString, second: String? = nil, headers: HTTPHeaders) {
        (storage, head) = headers.withFields { Self.build(first: first, second: second, fields: $0) }
    }

    deinit {
        storage.deallocate()
    }

    private static func build(first: StaticString, second: String?, fields: UnsafeBufferPointer<HTTPHeaders.Field>)
        -> (UnsafeMutableRawPointer, UnsafeMutablePointer<curl_slist>) {
        let lead = second == nil ? 1 : 2
        let nodeCount = fields.count + lead
        var textBytes = first.utf8CodeUnitCount + 1 + (second.map { $0.utf8.count + 1 } ?? 0)
        for index in fields.indices {
            textBytes += fields[index].name.utf8.count + 2 + fields[index].value.utf8.count + 1
        }
        let nodeBytes = nodeCount * MemoryLayout<curl_slist>.stride
        let storage = UnsafeMutableRawPointer.allocate(byteCount: nodeBytes + textBytes, alignment: MemoryLayout<curl_slist>.alignment)
        let head = storage.bindMemory(to: curl_slist.self, capacity: nodeCount)
        let text = (storage + nodeBytes).bindMemory(to: CChar.self, capacity: textBytes)

        // The first line (and the second), then one line a field; each node points at its line.
        var cursor = text
        head.initialize(to: curl_slist(data: cursor, next: nodeCount > 1 ? head + 1 : nil))
        first.withUTF8Buffer { bytes in
            UnsafeMutableRawPointer(cursor).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            cursor += bytes.count
        }
        cursor.initialize(to: 0)
        cursor += 1
        if let second {
            (head + 1).initialize(to: curl_slist(data: cursor, next: nodeCount > 2 ? head + 2 : nil))
            cursor = copy(second, to: cursor)
            cursor.initialize(to: 0)
            cursor += 1
        }
        for index in fields.indices {
            let node = index + lead
            (head + node).initialize(to: curl_slist(data: cursor, next: node + 1 < nodeCount ? head + node + 1 : nil))
            cursor = copy(fields[index].name, to: cursor)
            cursor.initialize(to: CChar(UInt8(ascii: ":")))
            (cursor + 1).initialize(to: CChar(UInt8(ascii: " ")))
            cursor = copy(fields[index].value, to: cursor + 2)
            cursor.initialize(to: 0)
            cursor += 1
        }
        return (storage, head)
    }

    /// Copies `string`'s bytes (no NUL) to `destination`; returns the byte after them.
    private static func copy(_ string: String, to destination: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<CChar> {
        let count = string.utf8.count
        string.withCString { destination.initialize(from: $0, count: count) }
        return destination + count
    }
}
