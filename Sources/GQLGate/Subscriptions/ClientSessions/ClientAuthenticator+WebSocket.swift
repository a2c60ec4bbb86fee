import GQLGateExchanges

extension ClientAuthenticator {
    /// Why a WebSocket's `connection_init` was refused.
    static let webSocketRejection =
        "A valid client key is required: send X-Api-Key or Authorization: Bearer in the upgrade request or the connection_init payload."
}
