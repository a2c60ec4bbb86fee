package import GQLGatePipeline

/// Apollo iOS's split transport: subscriptions go to the upstream over
/// WebSocket, queries and mutations over HTTP.
package struct SplitTransport: Transport {
    private let http: any Transport
    private let subscriptions: any Transport

    package init(http: any Transport, subscriptions: any Transport) {
        self.http = http
        self.subscriptions = subscriptions
    }

    package func send(_ operation: Operation) async throws -> ResultStream {
        operation.kind == .subscription ? try await subscriptions.send(operation) : try await http.send(operation)
    }
}
