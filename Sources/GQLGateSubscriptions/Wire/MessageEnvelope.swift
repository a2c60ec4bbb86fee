import GQLGateCore
import GQLGatePipeline

/// The `{type, id?, payload?}` object both GraphQL WebSocket protocols send,
/// with typed access to its fields and the reasons for refusing them.
struct MessageEnvelope {
    let type: String
    private let members: [(key: String, value: JSONValue)]

    /// Reads `text` as a JSON object with a string `type`.
    /// - Parameter refusingRepeatedKeys: whether an object in the message, at
    ///   any depth, may not repeat a key (a client's message: gqlgate and the
    ///   upstream must not read different members).
    init(text: String, refusingRepeatedKeys: Bool) throws(MessageDecodingError) {
        let value: JSONValue
        do {
            value = try JSONReader.read(text)
        } catch {
            throw MessageDecodingError(error.problem == .invalid ? "Invalid JSON at byte \(error.offset)" : "The message \(error.predicate)")
        }
        guard case .object(let members) = value else { throw MessageDecodingError("A message must be a JSON object") }
        self.members = members
        guard case .string(let type)? = members.first(where: { $0.key == "type" })?.value else {
            throw MessageDecodingError("A message needs a string 'type'")
        }
        self.type = type
        if refusingRepeatedKeys, let key = value.repeatedKey {
            let predicate = JSONReader.Failure(offset: 0, problem: .repeatedKey(key)).predicate
            // Addressed to the operation only when its `id` is not repeated itself.
            let id = members.count(where: { $0.key == "id" }) == 1 ? idIfPresent : nil
            throw MessageDecodingError("The message \(predicate)", id: id)
        }
    }

    /// An error for this message, carrying its `id` when it has one.
    func failure(_ reason: String) -> MessageDecodingError {
        MessageDecodingError(reason, id: idIfPresent)
    }

    private func member(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    /// The non-empty string `id`.
    func id() throws(MessageDecodingError) -> String {
        guard case .string(let id)? = member("id"), !id.isEmpty else {
            throw failure("'\(type)' needs a non-empty string 'id'")
        }
        return id
    }

    /// The `id` when it is a string, for answering a message that is otherwise bad.
    var idIfPresent: String? {
        if case .string(let id)? = member("id") { return id }
        return nil
    }

    /// The `payload`, which may be absent, null or an object; null counts as absent.
    func optionalObjectPayload() throws(MessageDecodingError) -> JSONValue? {
        switch member("payload") {
        case nil, .null?: return nil
        case .object?: return member("payload")
        default: throw failure("'\(type)' payload must be an object or null")
        }
    }

    /// The `payload`, which must be an object.
    func objectPayload() throws(MessageDecodingError) -> JSONValue {
        guard let payload = member("payload"), payload.isObject else {
            throw failure("'\(type)' needs an object 'payload'")
        }
        return payload
    }

    /// The `payload` as it is, any JSON value or absent.
    var rawPayload: JSONValue? { member("payload") }

    /// The `payload` as GraphQL request parameters: `query` a string, unless
    /// a persisted document is asked for by id (`documentId`, `doc_id`, `id`
    /// or `extensions.persistedQuery`); the rest optional.
    func requestPayload() throws(MessageDecodingError) -> GraphQLRequest {
        let payload = try objectPayload()
        var request = GraphQLRequest(query: nil)
        request.documentID = ["documentId", "doc_id", "id"].lazy.compactMap { key -> String? in
            guard case .string(let id)? = payload[key], !id.isEmpty else { return nil }
            return id
        }.first
        if case .string(let query)? = payload["query"] {
            request.query = query
        } else if request.documentID == nil, payload["extensions"]?["persistedQuery"] == nil {
            throw failure("'\(type)' payload needs a string 'query'")
        }
        switch payload["operationName"] {
        case nil, .null?: break
        case .string(let name)?: request.operationName = name
        default: throw failure("'\(type)' payload 'operationName' must be a string or null")
        }
        request.variables = try optionalObject(payload["variables"], name: "variables")
        request.extensions = try optionalObject(payload["extensions"], name: "extensions")
        return request
    }

    private func optionalObject(_ value: JSONValue?, name: String) throws(MessageDecodingError) -> JSONValue? {
        switch value {
        case nil, .null?: return nil
        case .object?: return value
        default: throw failure("'\(type)' payload '\(name)' must be an object or null")
        }
    }
}

/// Writes `{"type":...,"id":...,"payload":...}` with the members that are given.
enum MessageWriter {
    /// A fanned-out event is written once per client: when `type` and `id`
    /// need no escape (the usual case) the pieces are copied into one string
    /// of the right size; appending to a `String` piece by piece cost several
    /// times the copies themselves.
    static func write(type: String, id: String? = nil, payload: String? = nil) -> String {
        guard var payload else { return write(type: type, id: id, payload: nil as UnsafeRawBufferPointer?) }
        return payload.withUTF8 { write(type: type, id: id, payload: UnsafeRawBufferPointer($0)) }
    }

    /// The message with `payload`'s JSON (UTF-8) as it is.
    static func write(type: String, id: String?, payload: SerializedJSON) -> String {
        payload.bytes.withUnsafeBytes { write(type: type, id: id, payload: $0) }
    }

    private static func write(type: String, id: String?, payload: UnsafeRawBufferPointer?) -> String {
        var (typeText, idText) = (type, id ?? "")
        return typeText.withUTF8 { typeBytes in
            idText.withUTF8 { idBytes in
                guard JSONString.isPlain(typeBytes), JSONString.isPlain(idBytes) else {
                    return escaping(type: type, id: id, payload: payload)
                }
                let count = 11 + typeBytes.count + (id == nil ? 0 : 8 + idBytes.count) + (payload.map { 11 + $0.count } ?? 0)
                return String(unsafeUninitializedCapacity: count) { buffer in
                    var end = 0
                    func put(_ bytes: UnsafeRawBufferPointer) {
                        guard let source = bytes.baseAddress else { return }
                        UnsafeMutableRawPointer(buffer.baseAddress! + end).copyMemory(from: source, byteCount: bytes.count)
                        end += bytes.count
                    }
                    func put(_ literal: StaticString) {
                        put(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
                    }
                    put(#"{"type":""#)
                    put(UnsafeRawBufferPointer(typeBytes))
                    if id != nil {
                        put(#"","id":""#)
                        put(UnsafeRawBufferPointer(idBytes))
                    }
                    put(#"""#)
                    if let payload {
                        put(#","payload":"#)
                        put(payload)
                    }
                    put("}")
                    return end
                }
            }
        }
    }

    /// The message with `type` and `id` escaped as JSON strings need.
    private static func escaping(type: String, id: String?, payload: UnsafeRawBufferPointer?) -> String {
        var out: [UInt8] = []
        out += #"{"type":"#.utf8
        JSONString.append(type, to: &out)
        if let id {
            out += #","id":"#.utf8
            JSONString.append(id, to: &out)
        }
        if let payload {
            out += #","payload":"#.utf8
            out.append(contentsOf: payload)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}
