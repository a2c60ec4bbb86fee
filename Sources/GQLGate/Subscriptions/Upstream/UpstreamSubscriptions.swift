@_spi(GQLGateInternals) package import GQLGateCore
package import GQLGateEventLoop
import GQLGateExchanges
package import GQLGateHTTPClient
@_spi(GQLGateInternals) package import GQLGatePipeline
import GQLGateSubscriptions
package import Logging
import Synchronization

/// The transport for subscriptions: one upstream WebSocket per credential
/// set (the credential headers on `operation.upstreamHeaders`), each
/// multiplexing every subscription made with those credentials, identical
/// ones shared (`subscriptions.dedupe`).
///
/// `send` returns a stream of the upstream's events (status 200, the
/// execution result as body) that finishes on `complete`, throws
/// `GraphQLErrorsFailure` on `error`, and unsubscribes upstream when its
/// consumer stops iterating. Each connection lives on one gateway loop;
/// consumers may be anywhere. A connection that closes for want of
/// subscriptions (after the session's idle timeout) is forgotten, so
/// credential sets that are no longer used (rotated tokens) leave nothing behind.
package final class UpstreamSubscriptions: Transport {
    /// Gets the credentials to use instead of ones the upstream refused (closed 4401/4403).
    package typealias CredentialRefresh = @Sendable (HTTPHeaders) async -> HTTPHeaders

    private struct State {
        /// Each connection by credential key, with its identity (readable off its loop).
        var connections: [String: (id: ObjectIdentifier, connection: LoopBound<UpstreamSubscriptionConnection>)] = [:]
        var stopped = false
    }

    private let settings: UpstreamSubscriptionSettings
    private let client: HTTPClient
    private let loops: EventLoopGroup
    private let recorder: any FactRecorder
    private let logger: Logger
    private let refreshCredentials: CredentialRefresh?
    private let state = Lock(State())
    /// Asked by every upstream WebSocket before it connects (the circuit breaker).
    package let connectGate = UpstreamConnectGate()
    private let nextListener = Atomic<UInt64>(0)

    /// - Parameter refreshCredentials: fresh credentials for a connection the upstream closed with 4401/4403.
    package init(settings: UpstreamSubscriptionSettings, client: HTTPClient, loops: EventLoopGroup, recorder: any FactRecorder,
         logger: Logger, refreshCredentials: CredentialRefresh?) {
        self.settings = settings
        self.client = client
        self.loops = loops
        self.recorder = recorder
        self.logger = logger
        self.refreshCredentials = refreshCredentials
    }

    package func send(_ operation: Operation) async throws -> ResultStream {
        let credentials = operation.upstreamHeaders
        let scope = Self.credentialKey(credentials)
        guard let connection = connection(for: credentials, key: scope) else { throw GatewayError.shuttingDown }
        let key = SubscriptionKey(
            document: operation.document?.normalisedDigest ?? operation.request.query ?? "",
            operationName: operation.request.operationName, variables: operation.request.variables,
            scope: scope + "\u{0}" + RequestKey.scope(of: operation.headers, varyHeaders: settings.varyHeaders))
        let id = nextListener.add(1, ordering: .relaxed).newValue
        let listener = ResultChannel(bufferLimit: settings.maxQueuedResults)
        let request = operation.request
        let trace = operation.facts.flatMap { $0.isSampled ? $0 : nil }
        listener.setOnTermination { connection.loop.execute { connection.value.remove(id) } }
        connection.loop.execute { connection.value.add(id, key: key, request: request, listener: listener, trace: trace) }
        return ResultStream(listener)
    }

    /// Completes every subscription and closes every upstream connection; later subscriptions fail with `SHUTTING_DOWN`.
    package func shutdown() {
        let connections = state.withLock { state in
            state.stopped = true
            return state.connections.values.map(\.connection)
        }
        for connection in connections { connection.loop.execute { connection.value.shutdown() } }
    }

    private func connection(for credentials: HTTPHeaders, key: String) -> LoopBound<UpstreamSubscriptionConnection>? {
        state.withLock { state in
            guard !state.stopped else { return nil }
            if let existing = state.connections[key] { return existing.connection }
            let loop = loops.next()
            let created = UpstreamSubscriptionConnection(
                loop: loop, credentials: credentials, settings: settings, client: client, recorder: recorder,
                logger: logger, refreshCredentials: refreshCredentials, connectGate: connectGate,
                retire: { [weak self] idle in self?.forget(ObjectIdentifier(idle), key: key) })
            let bound = LoopBound(created, loop: loop)
            state.connections[key] = (ObjectIdentifier(created), bound)
            return bound
        }
    }

    /// Drops a connection that closed for want of subscriptions; one still
    /// handed out meanwhile keeps working, and a later subscription opens a new one.
    private func forget(_ connection: ObjectIdentifier, key: String) {
        state.withLock { state in
            if state.connections[key]?.id == connection { state.connections[key] = nil }
        }
    }

    /// The credential set as text: `name:value` lines, names lowercased, in order.
    static func credentialKey(_ credentials: HTTPHeaders) -> String {
        credentials.map { $0.name.lowercased() + ":" + $0.value + "\n" }.joined()
    }
}
