/// An answer's header fields, collected as they arrive, without what a proxy
/// must not forward (RFC 9110 §7.6.1): hop-by-hop fields and `Content-Length`
/// (`HopByHopHeaders.isHopByHop`) are never kept, and the fields a
/// `Connection` field names are left out of `headers()`. Filtering field by
/// field, as each is read, costs a length comparison for most fields; nothing
/// is kept only to be removed again.
package struct EndToEndFields {
    private var fields: [HTTPHeaders.Field] = []
    /// Names that `Connection` fields listed (rare: usually only `keep-alive` or `close`).
    private var connectionNamed: [String] = []

    /// Room for `capacity` fields, so an answer's fields need no growing.
    package init(capacity: Int = 0) {
        fields.reserveCapacity(capacity)
    }

    /// Forgets the fields so far (another response follows), keeping the room.
    package mutating func removeAll() {
        fields.removeAll(keepingCapacity: true)
        connectionNamed.removeAll()
    }

    /// Keeps `field` unless it is hop-by-hop; from a `Connection` field, notes
    /// the fields it names.
    package mutating func add(_ field: HTTPHeaders.Field) {
        guard HopByHopHeaders.isHopByHop(field.name) else {
            fields.append(field)
            return
        }
        if field.name.equalsIgnoringASCIICase("connection") {
            connectionNamed += HopByHopHeaders.fieldsNamed(byConnection: field.value)
        }
    }

    /// The fields kept, in order, without those a `Connection` field named.
    package func headers() -> HTTPHeaders {
        var headers = HTTPHeaders(fields)
        if !connectionNamed.isEmpty {
            headers.removeAll { field in connectionNamed.contains { field.name.equalsIgnoringASCIICase($0) } }
        }
        return headers
    }
}
