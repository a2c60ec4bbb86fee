package import GQLGatePipeline

/// A graphql-transport-ws message (the graphql-ws library's protocol), in
/// either direction, with the protocol's exact field names.
package enum GraphQLTransportWSMessage: Sendable, Equatable {
    case connectionInit(payload: JSONValue?)
    case connectionAck(payload: JSONValue?)
    case ping(payload: JSONValue?)
    case pong(payload: JSONValue?)
    case subscribe(id: String, payload: GraphQLRequest)
    /// An execution result: `{data?, errors?, extensions?, hasNext?}`.
    case next(id: String, payload: JSONValue)
    /// Errors that end the operation; no `complete` follows.
    case error(id: String, payload: [JSONValue])
    case complete(id: String)

    /// Reads one text message.
    /// - Throws: `MessageDecodingError` for bad JSON, an unknown `type` or bad fields (close 4400).
    /// - Parameter refusingRepeatedKeys: whether a message whose JSON
    ///   repeats a key in an object, at any depth, is refused (a client's);
    ///   false for the upstream's, read as sent.
    package static func decode(_ text: String, refusingRepeatedKeys: Bool = true) throws(MessageDecodingError) -> GraphQLTransportWSMessage {
        let envelope = try MessageEnvelope(text: text, refusingRepeatedKeys: refusingRepeatedKeys)
        switch envelope.type {
        case "connection_init": return .connectionInit(payload: try envelope.optionalObjectPayload())
        case "connection_ack": return .connectionAck(payload: try envelope.optionalObjectPayload())
        case "ping": return .ping(payload: try envelope.optionalObjectPayload())
        case "pong": return .pong(payload: try envelope.optionalObjectPayload())
        case "subscribe": return .subscribe(id: try envelope.id(), payload: try envelope.requestPayload())
        case "next": return .next(id: try envelope.id(), payload: try envelope.objectPayload())
        case "error":
            let id = try envelope.id()
            guard case .array(let errors)? = envelope.rawPayload, !errors.isEmpty, errors.allSatisfy(\.isObject) else {
                throw envelope.failure("'error' payload must be a non-empty array of GraphQL errors")
            }
            return .error(id: id, payload: errors)
        case "complete": return .complete(id: try envelope.id())
        default: throw envelope.failure("Unknown message type '\(envelope.type)'")
        }
    }

    /// The message as JSON text.
    package func encoded() -> String {
        switch self {
        case .connectionInit(let payload): return MessageWriter.write(type: "connection_init", payload: payload?.serialized())
        case .connectionAck(let payload): return MessageWriter.write(type: "connection_ack", payload: payload?.serialized())
        case .ping(let payload): return MessageWriter.write(type: "ping", payload: payload?.serialized())
        case .pong(let payload): return MessageWriter.write(type: "pong", payload: payload?.serialized())
        case .subscribe(let id, let request): return MessageWriter.write(type: "subscribe", id: id, payload: request.jsonBody())
        case .next(let id, let payload): return Self.next(id: id, payload: SerializedJSON(payload))
        case .error(let id, let errors): return MessageWriter.write(type: "error", id: id, payload: JSONValue.array(errors).serialized())
        case .complete(let id): return MessageWriter.write(type: "complete", id: id)
        }
    }

    /// `next` for `id` with a payload serialised once for many listeners.
    package static func next(id: String, payload: SerializedJSON) -> String {
        MessageWriter.write(type: "next", id: id, payload: payload)
    }

    /// The message's `type` as sent on the wire.
    package var type: String {
        switch self {
        case .connectionInit: "connection_init"
        case .connectionAck: "connection_ack"
        case .ping: "ping"
        case .pong: "pong"
        case .subscribe: "subscribe"
        case .next: "next"
        case .error: "error"
        case .complete: "complete"
        }
    }
}
