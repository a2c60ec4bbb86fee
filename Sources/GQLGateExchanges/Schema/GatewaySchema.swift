@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// The schema gqlgate holds, shared by every loop and kept across reloads
/// that read it from the same place: nil until one is loaded (gqlgate is
/// schema-blind until then), then the latest that loaded.
package final class GatewaySchema: Sendable {
    /// Asks the schema's source again now, when the period allows one early
    /// refresh, and returns once that ended (at once when it does not).
    package typealias EarlyRefresh = @Sendable () async -> Void

    private let state = Lock<LoadedSchema?>(nil)
    private let earlyRefresh = Lock<EarlyRefresh?>(nil)

    package init() {}

    /// The schema documents are validated against now; nil when none is loaded.
    package var current: LoadedSchema? {
        state.withLock { $0 }
    }

    /// Makes `schema` the one used from now on.
    package func install(_ schema: LoadedSchema) {
        state.withLock { $0 = schema }
    }

    /// Sets how a document naming what the schema lacks asks for a refresh.
    package func setEarlyRefresh(_ refresh: EarlyRefresh?) {
        earlyRefresh.withLock { $0 = refresh }
    }

    /// Refreshes now when the source allows it this period (the upstream may
    /// have been deployed ahead of the schema held); the schema after it.
    package func refreshEarly() async -> LoadedSchema? {
        if let refresh = earlyRefresh.withLock({ $0 }) { await refresh() }
        return current
    }
}
