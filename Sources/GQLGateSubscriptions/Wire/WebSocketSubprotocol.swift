import GQLGateCore

/// The GraphQL WebSocket subprotocols gqlgate speaks, on either side.
package enum WebSocketSubprotocol: String, Sendable, CaseIterable {
    /// The graphql-ws library's protocol (`subscribe`/`next`/`complete`, close codes 44xx).
    case graphqlTransportWS = "graphql-transport-ws"
    /// subscriptions-transport-ws, the legacy protocol (`start`/`data`/`stop`, `ka`).
    case graphqlWS = "graphql-ws"

    /// The subprotocol to accept from a client's `Sec-WebSocket-Protocol`
    /// values (each may be a comma-separated list): graphql-transport-ws when
    /// offered, else graphql-ws, else nil (refuse the upgrade).
    package static func select(offered headerValues: [String]) -> WebSocketSubprotocol? {
        let offered = headerValues.flatMap { $0.split(separator: ",").map { String($0.trimmingASCIISpaces()) } }
        return allCases.first { offered.contains($0.rawValue) }
    }
}
