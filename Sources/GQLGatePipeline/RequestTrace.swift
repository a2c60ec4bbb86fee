import GQLGateCore

/// What happened to one client request inside the pipeline, for its access
/// log line and its metrics: when it arrived, the operation the document
/// selected, how the cache served it, and the upstream attempts made for it.
///
/// The gateway gives each client request's operation one (`Operation.trace`);
/// stages that know something write to it when it is there
/// (`operation.trace?.upstreamAttemptStarted()`). A field of the operation,
/// not a task-local value: binding and reading one costs more than the
/// facts it carries.
public final class RequestTrace: Sendable {
    /// The facts recorded so far.
    public struct Snapshot: Sendable, Equatable {
        /// The selected operation's kind; nil until the document was analysed.
        public var kind: OperationKind?
        /// The selected operation's name; nil for anonymous operations.
        public var operationName: String?
        /// The SHA-256 of the document's text (lower-case hex); nil until the document was analysed.
        public var documentSHA256: String?
        /// The request's span, when tracing sampled it (its ids go on the access line).
        public var span: SpanContext?
        /// The persisted document's id, when the client asked for one by id.
        public var persistedID: String?
        /// Upstream attempts made (0: answered without the upstream).
        public var attempts = 0
        /// The status of the last upstream answer; nil when none came.
        public var upstreamStatus: Int?
        /// How the response cache served it (`X-Cache`: HIT, MISS, BYPASS); nil when it did not.
        public var cache: String?
        /// Why the gateway refused the operation to protect itself or the upstream; nil when it did not.
        public var shed: ShedReason?
        /// What the operation waited for on the way, when tracing sampled it (each becomes a span).
        public var waits: [Wait] = []
        /// The upstream WebSocket carrying the subscription was lost and is being
        /// reconnected, when tracing sampled it (each becomes an event of its span);
        /// the first `mostReconnects`.
        public var reconnects: [UpstreamReconnect] = []
        /// Reconnects past `mostReconnects`, counted only.
        public var reconnectsLeftOut = 0

        public init() {}
    }

    /// Why traffic protection refused an operation.
    public enum ShedReason: String, Sendable, CaseIterable {
        /// Over `clients.rate_limit`.
        case rateLimited = "rate_limited"
        /// No place among `upstream.max_concurrency` within `upstream.queue_timeout`.
        case overloaded
        /// The circuit breaker is open.
        case circuitOpen = "circuit_open"
    }

    /// Something the operation waited for, from `start` to `end` (monotonic nanoseconds, `GatewayClock`).
    public struct Wait: Sendable, Equatable {
        public var kind: WaitKind
        public var start: UInt64
        public var end: UInt64
    }

    /// What an operation can wait for on its way to the upstream.
    public enum WaitKind: String, Sendable {
        /// A place among `upstream.max_concurrency`.
        case upstreamQueue = "upstream queue wait"
        /// An upstream token (an OAuth2 token being fetched).
        case token = "upstream token"
    }

    /// The reconnects kept for one span (OpenTelemetry's default limit of events a span).
    public static let mostReconnects = 128

    /// Waits shorter than this (a free place, a token already held) are not noted.
    public static let shortestWait: UInt64 = 50_000

    private let state: Lock<Snapshot>
    /// When the client request was received (monotonic nanoseconds, `GatewayClock`).
    public let startedAt: UInt64
    /// The subject of the client's TLS certificate, when the server asks for one.
    public let clientCertificate: String?

    /// - Parameter clientCertificate: the subject of the client's TLS certificate, when the server asks for one.
    public init(startedAt: UInt64 = 0, clientCertificate: String? = nil) {
        self.startedAt = startedAt
        self.clientCertificate = clientCertificate
        state = Lock(Snapshot())
    }

    /// The facts recorded so far.
    public var snapshot: Snapshot {
        state.withLock { $0 }
    }

    /// The document was analysed and this operation selected.
    public func operationSelected(kind: OperationKind, name: String?, documentSHA256: String? = nil) {
        state.withLock {
            $0.kind = kind
            $0.operationName = name
            $0.documentSHA256 = documentSHA256
        }
    }

    /// Tracing sampled the request and made its span.
    public func spanStarted(_ span: SpanContext) {
        state.withLock { $0.span = span }
    }

    /// Whether tracing sampled the request (it has a span).
    public var isSampled: Bool { span != nil }

    /// The request's span, when tracing sampled it: upstream attempts become
    /// its children and send its trace upstream.
    public var span: SpanContext? {
        state.withLock { $0.span }
    }

    /// The response cache served the operation this way (`X-Cache`'s value).
    public func cacheServed(_ outcome: String) {
        state.withLock { $0.cache = outcome }
    }

    /// The client asked for the persisted document `id`.
    public func persistedDocumentUsed(id: String) {
        state.withLock { $0.persistedID = id }
    }

    /// Upstream attempts made so far.
    public var attempts: Int {
        state.withLock { $0.attempts }
    }

    /// An upstream attempt begins.
    public func upstreamAttemptStarted() {
        state.withLock { $0.attempts += 1 }
    }

    /// Traffic protection refused the operation.
    public func shed(_ reason: ShedReason) {
        state.withLock { $0.shed = reason }
    }

    /// The operation waited for `kind` since `start` (a monotonic reading); noted when it
    /// took at least `shortestWait`. Stages call it only for sampled requests (`isSampled`).
    public func waited(_ kind: WaitKind, since start: UInt64, clock: GatewayClock = .system) {
        let end = clock.monotonicNanoseconds()
        guard end &- start >= Self.shortestWait else { return }
        state.withLock { $0.waits.append(Wait(kind: kind, start: start, end: end)) }
    }

    /// The upstream WebSocket carrying the subscription was lost; it is being reconnected.
    public func upstreamReconnecting(_ reconnect: UpstreamReconnect) {
        state.withLock {
            if $0.reconnects.count < Self.mostReconnects {
                $0.reconnects.append(reconnect)
            } else {
                $0.reconnectsLeftOut += 1
            }
        }
    }

    /// The upstream answered an attempt with `status`.
    public func upstreamAnswered(status: Int) {
        state.withLock { $0.upstreamStatus = status }
    }
}
