import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import GQLGateTracing

/// The trace context and facts a client WebSocket gives the spans of its
/// operations: the upgrade request's `traceparent`/`tracestate`, replaced by
/// those of the `connection_init` payload (browsers cannot set header fields
/// on an upgrade); an operation's own, in its `extensions`, come first.
struct WebSocketTraceOrigin: Sendable {
    private(set) var traceparent: String?
    private(set) var tracestate: String?
    /// The connection's attributes, the same for each of its operations.
    private(set) var attributes: [SpanAttribute]

    init(upgradeHeaders: HTTPHeaders, path: String, subprotocol: String, clientAddress: String?) {
        traceparent = upgradeHeaders["traceparent"]
        tracestate = upgradeHeaders["tracestate"]
        var attributes = [
            SpanAttribute("url.path", path),
            SpanAttribute("network.protocol.name", "websocket"),
            SpanAttribute("gqlgate.websocket.subprotocol", subprotocol),
        ]
        if let clientAddress {
            attributes.append(SpanAttribute("client.address", clientAddress))
            attributes.append(SpanAttribute("network.peer.address", clientAddress))
        }
        self.attributes = attributes
    }

    /// `traceparent` (and `tracestate`) in the `connection_init` payload, at
    /// the top level or under `headers` as the client key may be, become the connection's.
    mutating func initialised(payload: JSONValue?) {
        let fields = InitPayloadCredentials.headers(in: payload, named: ["traceparent", "tracestate"])
        guard let traceparent = fields["traceparent"] else { return }
        self.traceparent = traceparent
        tracestate = fields["tracestate"]
    }

    /// The client key the connection was let in with (in the upgrade request or `connection_init`), named by its id.
    mutating func authenticated(key: String) {
        attributes.removeAll { $0.key == "gqlgate.client.key_id" }
        attributes.append(SpanAttribute("gqlgate.client.key_id", ClientKeyID.of(key)))
    }

    /// The trace context for `request`: its `extensions.traceparent`, else the connection's.
    func context(for request: GraphQLRequest) -> (traceparent: String?, tracestate: String?) {
        if case .string(let own)? = request.extensions?["traceparent"] {
            let state = if case .string(let text)? = request.extensions?["tracestate"] { text } else { String?.none }
            return (own, state)
        }
        return (traceparent, tracestate)
    }
}
