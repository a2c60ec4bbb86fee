package import GQLGateCore

/// Something that happened to one operation on its way, stated as a value by
/// the stage or transport that saw it (`Operation.record`). Stages never
/// call metrics, logs or tracing: the gateway's recorder (`FactRecorder`)
/// turns facts into metrics, the access line and spans, the same for an
/// operation over HTTP, SSE, multipart or a WebSocket.
package enum OperationFact: Sendable {
    /// The document was analysed and this operation selected; `documentSHA256` is the text's (lower-case hex).
    case operationSelected(kind: OperationKind, name: String?, documentSHA256: String)
    /// What the persisted documents' stages made of the operation.
    case persistedDocument(PersistedDocumentOutcome)
    /// The client's persisted document `id` runs in place of what it sent.
    case persistedDocumentUsed(id: String)
    /// The operation is not in the persisted documents and was sent as text
    /// (`log_unknown`): its name (nil when anonymous) and the SHA-256 of its text.
    case unlistedOperation(name: String?, documentSHA256: String)
    /// With `schema.validate` off, validation would have refused the
    /// operation with `error` (stated once per document and code).
    case validationWouldRefuse(GatewayError, documentSHA256: String)
    /// The demand control stage estimated its cost (`demand_control`); `operationName` is the selected operation's (nil: anonymous).
    case costEstimated(Double, operationName: String?)
    /// It selects these schema coordinates (`metrics.field_usage`), for the
    /// client `clientName` names (the `metrics.client_name_header` value; nil without one).
    case fieldsSelected(SelectedFields, clientName: String?)
    /// The response cache served it so (`X-Cache`: HIT, MISS, BYPASS).
    case cacheServed(CacheOutcome)
    /// Its answer (a mutation's) purged the cached answers it may have changed.
    case cachePurged
    /// Traffic protection refused it.
    case shed(ShedReason)
    /// It waited for `kind` from `start` to `end` (monotonic nanoseconds, `GatewayClock`).
    case waited(WaitKind, start: UInt64, end: UInt64)
    /// An upstream attempt begins.
    case upstreamAttemptStarted(UpstreamAttempt)
    /// The attempt ended so.
    case upstreamAttemptEnded(UpstreamAttempt, UpstreamAttemptOutcome)
    /// An attempt goes again.
    case retrying(RetryReason)
    /// The upstream WebSocket carrying the subscription was lost; it is being reconnected.
    case upstreamReconnecting(UpstreamReconnect)
}

/// What the response cache did with an operation (`X-Cache`).
package enum CacheOutcome: String, Sendable, CaseIterable {
    /// Answered from the cache.
    case hit = "HIT"
    /// Not in the cache (or expired): asked upstream.
    case miss = "MISS"
    /// Not to be cached (a client's `no-store`): asked upstream, not stored.
    case bypass = "BYPASS"
}

/// What became of one operation at the persisted documents' stages
/// (`gqlgate_persisted_documents_total{outcome}`).
package enum PersistedDocumentOutcome: String, Sendable, CaseIterable {
    /// Asked for by an id in the manifests: the listed document ran.
    case idFound = "id_found"
    /// Asked for by an id in none of the manifests: 404.
    case idUnknown = "id_unknown"
    /// Sent as text that is in the manifests.
    case listedText = "listed_text"
    /// Sent as text that is not in the manifests, and run (no safelist).
    case unlistedText = "unlisted_text"
    /// Refused: text while `require_id` is on, unlisted text with the
    /// safelist on, or introspection while it is disabled.
    case refused
}

/// One upstream attempt, as its start and end state it.
package struct UpstreamAttempt: Sendable {
    /// 1 for the operation's first attempt.
    package var number: Int
    /// When it began (monotonic nanoseconds, `GatewayClock`).
    package var start: UInt64
    /// The attempt's span (a child of the request's), when tracing sampled the request: the upstream gets it as `traceparent`.
    package var span: SpanContext?

    package init(number: Int, start: UInt64, span: SpanContext? = nil) {
        self.number = number
        self.start = start
        self.span = span
    }
}

/// Something that happened to the gateway rather than to one operation.
package enum GatewayFact: Sendable {
    /// The response cache holds this many bytes.
    case cacheBytesHeld(Int)
    /// The circuit breaker changed state (`CircuitBreaker.State`'s raw value).
    case circuitStateChanged(Int)
    /// An upstream token was fetched (OAuth2) or re-read (a token file), or failed to be.
    case upstreamTokenRefreshed(succeeded: Bool)
    /// A client subscription began, or ended.
    case subscriptionStarted, subscriptionEnded
    /// A subscription began, or ended, on an upstream WebSocket.
    case upstreamSubscriptionStarted, upstreamSubscriptionEnded
    /// A client WebSocket opened, or closed.
    case webSocketOpened, webSocketClosed
    /// The schema's source was read (`schema.source`): a new schema, the
    /// same one, or none; `holdsSchema` tells whether one is held after it.
    case schemaRefreshed(SchemaRefresh, holdsSchema: Bool)
    /// Cached answers were purged, for `source` (an operation's own purge,
    /// a mutation's, is an `OperationFact.cachePurged`).
    case cacheInvalidated(CacheInvalidationSource)
    /// The memory tier was dropped whole: its subscription to the other
    /// replicas' purges was lost, and messages may have been missed.
    case cacheMemoryTierDropped
    /// The Redis client's connections reached Redis (`up`), or lost it.
    case redisAvailabilityChanged(up: Bool)
    /// A Redis connection is being made again after one failed or was lost.
    case redisReconnecting
    /// A command of a store kept in Redis failed (no connection, no reply in
    /// time, or a reply of the wrong shape); the store fell back.
    case redisCommandFailed(SharedStore)
    /// The shared rate limit (`clients.rate_limit.store: redis`) settled one
    /// key with the fleet, or could not (its limit is per replica until it can).
    case rateLimitSettled(succeeded: Bool)
}

/// Why cached answers were purged (`gqlgate_cache_invalidations_total{source}`).
package enum CacheInvalidationSource: String, CaseIterable, Sendable {
    /// A mutation's answer, through this replica.
    case mutation
    /// Another replica's purge, received through Redis (`cache.backend: tiered`).
    case peer
    /// An operator's `POST /cache/purge`.
    case admin
}

/// A store gqlgate keeps in Redis (`gqlgate_redis_errors_total{store}`).
package enum SharedStore: String, CaseIterable, Sendable {
    /// The response cache (`cache.backend: redis`).
    case cache
    /// APQ registrations (`apq.store: redis`).
    case apq
    /// The rate limit's shared buckets (`clients.rate_limit.store: redis`).
    case rateLimit = "rate_limit"
}

/// What reading the schema's source did.
package enum SchemaRefresh: Sendable {
    /// A schema different from the one held was loaded.
    case loaded
    /// The source gave the schema held already.
    case unchanged
    /// No schema: the source could not be read, refused, or did not make one.
    case failed
}

/// Turns facts into metrics, log lines and spans: the gateway's one recorder.
/// An operation's facts reach it through the operation's `OperationRecord`,
/// which keeps them for the request's access line and span too. A class:
/// every record holds it, as one reference.
package protocol FactRecorder: AnyObject, Sendable {
    /// `fact` happened to the operation whose record is `record`.
    func record(_ fact: OperationFact, in record: OperationRecord)
    /// `fact` happened to the gateway.
    func record(_ fact: GatewayFact)
}
