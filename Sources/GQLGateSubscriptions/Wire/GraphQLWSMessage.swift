package import GQLGatePipeline

/// A message of the legacy subscriptions-transport-ws protocol (subprotocol
/// `graphql-ws`), in either direction, with its exact field names.
package enum GraphQLWSMessage: Sendable, Equatable {
    /// The payload is the client's `connectionParams`.
    case connectionInit(payload: JSONValue?)
    case connectionAck(payload: JSONValue?)
    /// An init was refused, or a message could not be read; the payload is an error object.
    case connectionError(payload: JSONValue)
    /// The server's keep-alive.
    case keepAlive
    case start(id: String, payload: GraphQLRequest)
    /// An execution result `{data, errors?}`.
    case data(id: String, payload: JSONValue)
    /// One error object for a failure before execution; the operation ends.
    case error(id: String, payload: JSONValue)
    case complete(id: String)
    case stop(id: String)
    case connectionTerminate

    /// Reads one text message.
    /// - Throws: `MessageDecodingError` for bad JSON, an unknown `type` or bad fields.
    /// - Parameter refusingRepeatedKeys: whether a message whose JSON
    ///   repeats a key in an object, at any depth, is refused (a client's);
    ///   false for the upstream's, read as sent.
    package static func decode(_ text: String, refusingRepeatedKeys: Bool = true) throws(MessageDecodingError) -> GraphQLWSMessage {
        let envelope = try MessageEnvelope(text: text, refusingRepeatedKeys: refusingRepeatedKeys)
        switch envelope.type {
        case "connection_init": return .connectionInit(payload: try envelope.optionalObjectPayload())
        case "connection_ack": return .connectionAck(payload: try envelope.optionalObjectPayload())
        case "connection_error": return .connectionError(payload: envelope.rawPayload ?? .null)
        case "ka": return .keepAlive
        case "start": return .start(id: try envelope.id(), payload: try envelope.requestPayload())
        case "data": return .data(id: try envelope.id(), payload: try envelope.objectPayload())
        case "error": return .error(id: try envelope.id(), payload: envelope.rawPayload ?? .null)
        case "complete": return .complete(id: try envelope.id())
        case "stop": return .stop(id: try envelope.id())
        case "connection_terminate": return .connectionTerminate
        default: throw envelope.failure("Invalid message type!")
        }
    }

    /// The message as JSON text.
    package func encoded() -> String {
        switch self {
        case .connectionInit(let payload): return MessageWriter.write(type: "connection_init", payload: payload?.serialized())
        case .connectionAck(let payload): return MessageWriter.write(type: "connection_ack", payload: payload?.serialized())
        case .connectionError(let payload): return MessageWriter.write(type: "connection_error", payload: payload.serialized())
        case .keepAlive: return MessageWriter.write(type: "ka")
        case .start(let id, let request): return MessageWriter.write(type: "start", id: id, payload: request.jsonBody())
        case .data(let id, let payload): return Self.data(id: id, payload: SerializedJSON(payload))
        case .error(let id, let payload): return MessageWriter.write(type: "error", id: id, payload: payload.serialized())
        case .complete(let id): return MessageWriter.write(type: "complete", id: id)
        case .stop(let id): return MessageWriter.write(type: "stop", id: id)
        case .connectionTerminate: return MessageWriter.write(type: "connection_terminate")
        }
    }

    /// `data` for `id` with a payload serialised once for many listeners.
    package static func data(id: String, payload: SerializedJSON) -> String {
        MessageWriter.write(type: "data", id: id, payload: payload)
    }

    /// `{"message": text}`, the legacy protocol's error object.
    package static func errorObject(_ message: String) -> JSONValue {
        .object([("message", .string(message))])
    }
}
