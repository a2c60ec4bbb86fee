import GQLGatePipeline

/// A message from the upstream, whichever subprotocol carried it.
enum UpstreamInbound: Equatable {
    case ack
    case ping
    case pong
    /// Legacy `ka`.
    case keepAlive
    case result(id: String, payload: JSONValue)
    case failed(id: String, errors: [JSONValue])
    case completed(id: String)
    /// Legacy `connection_error`: the upstream refused the init or could not read a message.
    case connectionError(JSONValue)
    /// A valid message that only a client sends.
    case unexpected(type: String)
}

/// Encodes gqlgate's client messages and decodes the upstream's, for the
/// upstream's subprotocol.
struct UpstreamWireFormat {
    let subprotocol: WebSocketSubprotocol

    func connectionInit(_ payload: JSONValue?) -> String {
        switch subprotocol {
        case .graphqlTransportWS: GraphQLTransportWSMessage.connectionInit(payload: payload).encoded()
        case .graphqlWS: GraphQLWSMessage.connectionInit(payload: payload).encoded()
        }
    }

    func subscribe(id: String, request: GraphQLRequest) -> String {
        switch subprotocol {
        case .graphqlTransportWS: GraphQLTransportWSMessage.subscribe(id: id, payload: request).encoded()
        case .graphqlWS: GraphQLWSMessage.start(id: id, payload: request).encoded()
        }
    }

    func stop(id: String) -> String {
        switch subprotocol {
        case .graphqlTransportWS: GraphQLTransportWSMessage.complete(id: id).encoded()
        case .graphqlWS: GraphQLWSMessage.stop(id: id).encoded()
        }
    }

    func decode(_ text: String) throws(MessageDecodingError) -> UpstreamInbound {
        switch subprotocol {
        case .graphqlTransportWS:
            switch try GraphQLTransportWSMessage.decode(text, refusingRepeatedKeys: false) {
            case .connectionAck: return .ack
            case .ping: return .ping
            case .pong: return .pong
            case .next(let id, let payload): return .result(id: id, payload: payload)
            case .error(let id, let errors): return .failed(id: id, errors: errors)
            case .complete(let id): return .completed(id: id)
            case let message: return .unexpected(type: message.type)
            }
        case .graphqlWS:
            switch try GraphQLWSMessage.decode(text, refusingRepeatedKeys: false) {
            case .connectionAck: return .ack
            case .keepAlive: return .keepAlive
            case .connectionError(let payload): return .connectionError(payload)
            case .data(let id, let payload): return .result(id: id, payload: payload)
            case .error(let id, let error): return .failed(id: id, errors: [error])
            case .complete(let id): return .completed(id: id)
            case .connectionInit: return .unexpected(type: "connection_init")
            case .start: return .unexpected(type: "start")
            case .stop: return .unexpected(type: "stop")
            case .connectionTerminate: return .unexpected(type: "connection_terminate")
            }
        }
    }
}
