import GQLGatePipeline

/// The limits and timers of a client WebSocket connection, from the
/// `subscriptions` config keys.
package struct ClientProtocolSettings: Sendable, Equatable {
    /// `subscriptions.init_timeout`: without `connection_init` by then the socket is closed with 4408.
    package var initTimeout: Duration
    /// `subscriptions.keepalive`: graphql-transport-ws sends `ping` after this long without traffic;
    /// legacy graphql-ws sends `ka` this often. `.zero` sends none.
    package var keepalive: Duration
    /// `subscriptions.max_per_connection`: the most operations running at once on one connection.
    package var maxPerConnection: Int

    package init(initTimeout: Duration = .seconds(3), keepalive: Duration = .seconds(15), maxPerConnection: Int = 100) {
        self.initTimeout = initTimeout
        self.keepalive = keepalive
        self.maxPerConnection = maxPerConnection
    }

    /// The keep-alive interval, or nil when keep-alives are off.
    var keepaliveInterval: Duration? { keepalive > .zero ? keepalive : nil }

    /// The GraphQL error an operation gets when `maxPerConnection` operations already run.
    var tooManyOperationsError: JSONValue {
        .object([
            ("message", .string("Too many operations on this connection (subscriptions.max_per_connection is \(maxPerConnection)).")),
            ("extensions", .object([("code", .string("TOO_MANY_SUBSCRIPTIONS"))])),
        ])
    }
}
