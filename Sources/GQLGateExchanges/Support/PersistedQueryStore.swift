@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// The documents registered through automatic persisted queries, by their
/// hex SHA-256: bounded by the bytes of the texts (plus the hashes), least
/// recently used dropped first. Shared by every loop behind one `Lock`.
package final class PersistedQueryStore: Sendable {
    private let entries: Lock<CostBoundedLRU<String, String>>

    /// - Parameter maxBytes: most bytes of query text and hashes kept.
    package init(maxBytes: Int = 8 << 20) {
        entries = Lock(CostBoundedLRU(capacity: maxBytes))
    }

    /// The query registered under `hash`.
    package func query(for hash: String) -> String? {
        entries.withLock { $0.value(for: hash) }
    }

    /// Registers `query` under `hash`.
    package func register(_ query: String, hash: String) {
        entries.withLock { _ = $0.insert(query, for: hash, cost: query.utf8.count + hash.utf8.count) }
    }

    /// Queries held.
    package var count: Int { entries.withLock { $0.count } }
}
