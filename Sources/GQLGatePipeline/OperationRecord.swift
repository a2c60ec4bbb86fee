@_spi(GQLGateInternals) package import GQLGateCore

/// The facts one client request's operation gathered on its way, for its
/// access line, its metrics and its span: the gateway gives each client
/// operation one (`Operation.facts`), and stages state facts through it
/// (`Operation.record`), which also hands each to the gateway's recorder.
/// A field of the operation, shared by its copies (a retry's, dedupe's, the
/// cache's refresh), not a task-local value: binding and reading one costs
/// more than the facts it carries.
package final class OperationRecord: Sendable {
    /// The facts recorded so far.
    package struct Snapshot: Sendable, Equatable {
        /// The selected operation's kind; nil until the document was analysed.
        package var kind: OperationKind?
        /// The selected operation's name; nil for anonymous operations.
        package var operationName: String?
        /// The SHA-256 of the document's text (lower-case hex); nil until the document was analysed.
        package var documentSHA256: String?
        /// The request's span, when tracing sampled it (its ids go on the access line).
        package var span: SpanContext?
        /// The persisted document's id, when the client asked for one by id.
        package var persistedID: String?
        /// Upstream attempts made (0: answered without the upstream).
        package var attempts = 0
        /// The status of the last upstream answer; nil when none came.
        package var upstreamStatus: Int?
        /// How the response cache served it; nil when it did not.
        package var cache: CacheOutcome?
        /// The estimated cost (`demand_control`); nil when nothing estimated it.
        package var cost: Double?
        /// Why the gateway refused the operation to protect itself or the upstream; nil when it did not.
        package var shed: ShedReason?
        /// What the operation waited for on the way, when tracing sampled it (each becomes a span).
        package var waits: [Wait] = []
        /// The upstream WebSocket carrying the subscription was lost and is being
        /// reconnected, when tracing sampled it (each becomes an event of its span);
        /// the first `mostReconnects`.
        package var reconnects: [UpstreamReconnect] = []
        /// Reconnects past `mostReconnects`, counted only.
        package var reconnectsLeftOut = 0
        /// False once a fact the snapshot does not keep was recorded (a
        /// persisted document's outcome, the fields selected, a retry):
        /// the kept facts then do not tell everything that was recorded.
        package var keepsEveryFact = true

        package init() {}
    }

    /// Something the operation waited for, from `start` to `end` (monotonic nanoseconds, `GatewayClock`).
    package struct Wait: Sendable, Equatable {
        package var kind: WaitKind
        package var start: UInt64
        package var end: UInt64
    }

    /// The reconnects kept for one span (OpenTelemetry's default limit of events a span).
    package static let mostReconnects = 128

    /// Waits shorter than this (a free place, a token already held) are not noted.
    package static let shortestWait: UInt64 = 50_000

    /// The facts so far. A `Lock`, not the standard library's `Mutex`: ThreadSanitizer
    /// does not see `Mutex`'s futex calls, so it could not check them (docs/fuzzing.md).
    private let state: Lock<Snapshot>
    /// Where each fact goes too: the gateway's recorder.
    private let recorder: (any FactRecorder)?
    /// When the client request was received (monotonic nanoseconds, `GatewayClock`).
    package let startedAt: UInt64
    /// The subject of the client's TLS certificate, when the server asks for one.
    package let clientCertificate: String?

    /// - Parameters:
    ///   - clientCertificate: the subject of the client's TLS certificate, when the server asks for one.
    ///   - recorder: the gateway's recorder, told every fact.
    ///   - kept: the facts kept already (a request answered as another was).
    package init(startedAt: UInt64 = 0, clientCertificate: String? = nil, recorder: (any FactRecorder)? = nil, kept: Snapshot = Snapshot()) {
        self.startedAt = startedAt
        self.clientCertificate = clientCertificate
        self.recorder = recorder
        state = Lock(kept)
    }

    /// Tells the gateway's recorder `facts`, which the record keeps already (`init`'s `kept`).
    package func retell(_ facts: [OperationFact]) {
        guard let recorder else { return }
        for fact in facts { recorder.record(fact, in: self) }
    }

    /// The facts recorded so far.
    package var snapshot: Snapshot {
        state.withLock { $0 }
    }

    /// The operation's kind, once known (`snapshot.kind`, without copying the rest).
    package var kind: OperationKind? {
        state.withLock { $0.kind }
    }

    /// Keeps `fact` for the request's access line and span, and tells the gateway's recorder.
    package func record(_ fact: OperationFact) {
        if Self.shows(fact) {
            state.withLock { Self.apply(fact, to: &$0) }
        } else {
            state.withLock { $0.keepsEveryFact = false }
        }
        recorder?.record(fact, in: self)
    }

    /// Whether `fact` changes what the access line and span show (the others only clear `keepsEveryFact`).
    private static func shows(_ fact: OperationFact) -> Bool {
        switch fact {
        case .persistedDocument, .unlistedOperation, .validationWouldRefuse, .retrying, .cachePurged, .fieldsSelected: false
        default: true
        }
    }

    /// What `fact` changes in what the access line and span show.
    private static func apply(_ fact: OperationFact, to facts: inout Snapshot) {
        switch fact {
        case .operationSelected(let kind, let name, let sha256):
            facts.kind = kind
            facts.operationName = name
            facts.documentSHA256 = sha256
        case .persistedDocumentUsed(let id):
            facts.persistedID = id
        case .cacheServed(let outcome):
            facts.cache = outcome
        case .shed(let reason):
            facts.shed = reason
        case .costEstimated(let cost, _):
            facts.cost = cost
        case .waited(let kind, let start, let end):
            if end &- start >= shortestWait { facts.waits.append(Wait(kind: kind, start: start, end: end)) }
        case .upstreamAttemptStarted:
            facts.attempts += 1
        case .upstreamAttemptEnded(_, .answered(let status)):
            facts.upstreamStatus = status
        case .upstreamReconnecting(let reconnect):
            if facts.reconnects.count < mostReconnects {
                facts.reconnects.append(reconnect)
            } else {
                facts.reconnectsLeftOut += 1
            }
        case .persistedDocument, .unlistedOperation, .validationWouldRefuse, .upstreamAttemptEnded, .retrying, .cachePurged, .fieldsSelected:
            break
        }
    }

    /// An upstream attempt begins now (`OperationFact.upstreamAttemptStarted`):
    /// the next number, and a child of the request's span when tracing sampled it.
    package func upstreamAttemptBegins(clock: GatewayClock = .system) -> UpstreamAttempt {
        let (number, span) = state.withLock { facts in
            facts.attempts += 1
            return (facts.attempts, facts.span)
        }
        let attempt = UpstreamAttempt(number: number, start: clock.monotonicNanoseconds(), span: span?.child())
        recorder?.record(.upstreamAttemptStarted(attempt), in: self)
        return attempt
    }

    /// Tracing sampled the request and made its span (the recorder's own, not a stage's).
    package func spanStarted(_ span: SpanContext) {
        state.withLock { $0.span = span }
    }

    /// Whether tracing sampled the request (it has a span): stages time waits only then.
    package var isSampled: Bool { span != nil }

    /// The request's span, when tracing sampled it: upstream attempts become its children.
    package var span: SpanContext? {
        state.withLock { $0.span }
    }
}

/// Why traffic protection refused an operation.
package enum ShedReason: String, Sendable, CaseIterable {
    /// Over `clients.rate_limit`.
    case rateLimited = "rate_limited"
    /// No place among `upstream.max_concurrency` within `upstream.queue_timeout`.
    case overloaded
    /// The circuit breaker is open.
    case circuitOpen = "circuit_open"
}

/// What an operation can wait for on its way to the upstream.
package enum WaitKind: String, Sendable {
    /// A place among `upstream.max_concurrency`.
    case upstreamQueue = "upstream queue wait"
    /// An upstream token (an OAuth2 token being fetched).
    case token = "upstream token"
}
