import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateLogging
import GQLGateMetrics
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateTracing
import Logging

/// The gateway's one recorder: turns what stages and transports state
/// (`OperationFact`, `GatewayFact`) into metrics, readiness evidence, log
/// lines and upstream attempts' spans. The request's own access line and
/// server span come from the same facts, kept in its `OperationRecord`, when
/// it is answered (`answeredAtOnce`, `watch`).
///
/// A class: each client operation's record holds it, as one reference.
final class GatewayRecorder: FactRecorder {
    let metrics: GatewayMetrics
    let readiness: Readiness
    /// Each answered request's metrics and access line.
    let log: RequestLog
    /// The requests' server spans, when `tracing.enabled`.
    let spans: ServerSpans?
    /// The attempts' spans, when `tracing.enabled`.
    let attemptSpans: UpstreamAttemptSpans?
    let logger: Logger
    /// How many lines naming operations not in the persisted documents are written.
    private let unlistedLines = LineBudget(lines: 10, window: .seconds(10))

    init(metrics: GatewayMetrics, readiness: Readiness, log: RequestLog, tracing: (tracer: Tracer, config: GatewayConfig)?, logger: Logger) {
        self.metrics = metrics
        self.readiness = readiness
        self.log = log
        self.logger = logger
        spans = tracing.map { ServerSpans(tracer: $0.tracer, path: $0.config.server.path, identifiesClientKeys: $0.config.clients.apiKeysFile != nil) }
        attemptSpans = tracing.map { UpstreamAttemptSpans(tracer: $0.tracer, peer: UpstreamPeer(url: $0.config.upstream.url ?? "")) }
    }

    func record(_ fact: OperationFact, in record: OperationRecord) {
        switch fact {
        case .cacheServed(.hit):
            metrics.cacheHit()
        case .cacheServed:
            metrics.cacheMiss()
        case .cachePurged:
            metrics.cacheInvalidated(.mutation)
        case .upstreamAttemptStarted:
            metrics.upstreamAttemptStarted()
        case .upstreamAttemptEnded(let attempt, let outcome):
            attemptEnded(attempt, outcome, in: record)
        case .retrying(let reason):
            metrics.retry(reason: reason)
        case .shed(.rateLimited):
            metrics.rateLimited()
        case .shed(.overloaded):
            metrics.loadShed(.overloaded)
        case .shed(.circuitOpen):
            metrics.loadShed(.circuitOpen)
        case .persistedDocument(let outcome):
            metrics.persistedDocument(outcome)
        case .unlistedOperation(let name, let sha256):
            guard let dropped = unlistedLines.take() else { return }
            var metadata: Logger.Metadata = ["operation": "\(name ?? "")", "sha256": "\(sha256)"]
            if dropped > 0 { metadata["not_logged_before"] = "\(dropped)" }
            logger.warning("An operation not in the persisted documents", metadata: metadata)
        case .validationWouldRefuse(let error, let sha256):
            logger.warning("An operation schema.validate would refuse", metadata: [
                "code": "\(error.code)", "sha256": "\(sha256)",
                "errors": .array(error.graphQLErrors.compactMap { if case .string(let message) = $0["message"] { "\(message)" } else { nil } }),
            ])
        case .costEstimated(let cost, let operationName):
            metrics.operationCostEstimated(cost, operationName: operationName)
        case .fieldsSelected(let fields, let clientName):
            metrics.fieldUsage.count(fields, clientName: clientName)
        case .operationSelected, .persistedDocumentUsed, .waited, .upstreamReconnecting:
            break  // the request's access line and span read them from its record
        }
    }

    /// An attempt counted by outcome with its duration, taken as readiness evidence, and its span when sampled.
    private func attemptEnded(_ attempt: UpstreamAttempt, _ outcome: UpstreamAttemptOutcome, in record: OperationRecord) {
        metrics.upstreamAttemptEnded()
        let finished = GatewayClock.system.monotonicNanoseconds()
        metrics.upstreamFinished(outcome: outcome, duration: .nanoseconds(finished &- attempt.start))
        switch outcome.upstreamAnswered {
        case true?: readiness.upstreamAnswered(at: finished)
        case false?: readiness.upstreamFailed(at: finished)
        case nil: break
        }
        if let attemptSpans, let span = attempt.span, let parent = record.span {
            attemptSpans.finished(attempt, span: span, parent: parent, outcome: outcome)
        }
    }

    func record(_ fact: GatewayFact) {
        switch fact {
        case .cacheBytesHeld(let bytes): metrics.cacheBytes(bytes)
        case .circuitStateChanged(let state): metrics.circuitState(state)
        case .upstreamTokenRefreshed(let succeeded): metrics.tokenRefreshed(succeeded ? .ok : .failed)
        case .schemaRefreshed(let refresh, let holdsSchema):
            metrics.schemaRefreshed(SchemaRefreshOutcome(refresh))
            metrics.schemaLoaded(holdsSchema)
        case .subscriptionStarted: metrics.subscriptionStarted()
        case .subscriptionEnded: metrics.subscriptionEnded()
        case .upstreamSubscriptionStarted: metrics.upstreamSubscriptionStarted()
        case .upstreamSubscriptionEnded: metrics.upstreamSubscriptionEnded()
        case .webSocketOpened: metrics.websocketOpened()
        case .webSocketClosed: metrics.websocketClosed()
        case .cacheInvalidated(let source): metrics.cacheInvalidated(source)
        case .cacheMemoryTierDropped: metrics.cacheMemoryTierDropped()
        case .redisAvailabilityChanged(let up): metrics.redisAvailable(up)
        case .redisReconnecting: metrics.redisReconnecting()
        case .redisCommandFailed(let store): metrics.redisCommandFailed(store)
        case .rateLimitSettled(let succeeded): metrics.rateLimitSettled(succeeded: succeeded)
        }
    }
}
