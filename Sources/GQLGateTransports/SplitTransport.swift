public import GQLGatePipeline

/// Apollo iOS's split transport: subscriptions go to the upstream over
/// WebSocket, queries and mutations over HTTP.
public struct SplitTransport: Transport {
    private let http: any Transport
    private let subscriptions: any Transport

    public init(http: any Transport, subscriptions: any Transport) {
        self.http = http
        self.subscriptions = subscriptions
    }

    public func send(_ operation: Operation) async throws -> ResultStream {
        operation.kind == .subscription ? try await subscriptions.send(operation) : try await http.send(operation)
    }
}
