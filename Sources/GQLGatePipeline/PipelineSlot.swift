/// The built-in stages of gqlgate's pipeline, by name. The order of the
/// cases is the order operations pass them; the gateway fills the slots its
/// configuration turns on, and places your exchanges before or after any
/// slot (`ExchangePlacement`), filled or not.
public enum PipelineSlot: String, CaseIterable, Sendable {
    /// `clients.rate_limit`: first, so that every operation counts, cache hits included.
    case rateLimit
    /// Persisted documents asked for by id (`persisted_documents`), and `require_id`.
    case persistedDocuments
    /// Automatic persisted queries: the query text filled in from its hash.
    case apq
    /// Parsing and analysing the document; `operation.kind` is known after it.
    case document
    /// The operation safelist and `limits.introspection`.
    case safelist
    /// GraphQL-over-HTTP's method rules (no mutation over GET, ...).
    case methodRules
    /// `limits.max_depth` and `limits.max_aliases`.
    case limits
    /// Validation against the schema gqlgate holds (`schema`), and the variables' types.
    case validation
    /// `demand_control`: the operation's cost estimated from the schema, and
    /// refused over `max_cost` with `enforce`.
    case demandControl
    /// `clients.rate_limit.by_cost`: the rest of the estimated cost taken from
    /// the client's bucket (the `rateLimit` slot took one token).
    case costRateLimit
    /// `metrics.field_usage`: the schema coordinates the operation selects, counted.
    case fieldUsage
    /// The response cache.
    case cache
    /// Identical queries in flight share one upstream request.
    case dedupe
    /// APQ towards the upstream (`apq.upstream`).
    case upstreamAPQ
    /// Upstream credentials.
    case credentials
    /// Retries of what is safe to retry.
    case retry
    /// `upstream.circuit_breaker`: each attempt, failing fast while the upstream keeps failing.
    case circuitBreaker
    /// `upstream.max_concurrency`: each attempt waits for a place.
    case upstreamConcurrency
}
