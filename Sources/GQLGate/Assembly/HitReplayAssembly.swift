import GQLGateConfig
import GQLGateExchanges
import GQLGatePipeline
import GQLGateTracing

/// Whether a generation answers repeated cache hits from their bytes
/// (`HitReplay`): only when its cache keeps fresh answers in this
/// process's memory (`cache.backend` `memory` or `tiered`), no span is recorded
/// (`tracing.enabled` off), and every stage before the cache is one of
/// `replayableSlots` (no rate limit, persisted documents, safelist or
/// field usage; no exchange placed from outside).
enum HitReplayAssembly {
    /// The stages that may run before the cache: each gives the same outcome
    /// to the same request while the schema held stays the same, and records
    /// only facts a request's record keeps. APQ too: a hash it once knew is
    /// answered again while its answer is cached, even after its registration
    /// is dropped, since the hash names that document's text.
    static let replayableSlots: Set<PipelineSlot> = [.apq, .document, .methodRules, .limits, .validation, .demandControl]

    /// The replay for a generation of `config` whose stages `builder` holds, or nil when it has none.
    static func make(config: GatewayConfig, builder: PipelineBuilder, cache: (any ResponseCacheStore)?, tracer: Tracer?,
                     schema: GatewaySchema?) -> HitReplay? {
        guard cache is any InlineResponseCache, tracer == nil,
              let before = builder.builtInSlots(before: .cache), before.allSatisfy(replayableSlots.contains)
        else { return nil }
        return HitReplay(mostBytes: config.cache.maxBytes / 4, schema: schema)
    }
}
