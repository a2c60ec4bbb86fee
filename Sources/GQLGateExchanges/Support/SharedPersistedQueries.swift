/// The persisted queries every replica of a fleet shares (`apq.store:
/// redis`): a second tier behind the replica's own `PersistedQueryStore`,
/// asked only when memory does not hold a hash, and told of each
/// registration.
///
/// A tier that cannot answer (down, slow, answering something unexpected)
/// never fails a request: it says nil or false, counts the failure itself,
/// and the replica goes on with what it holds in memory.
package protocol SharedPersistedQueries: Sendable {
    /// The document some replica registered under `hash` (lower-case hex
    /// SHA-256); nil when none did, or when the tier cannot say now.
    func document(forHash hash: String) async -> String?

    /// Keeps `document` under `hash` for every replica (for a while: the
    /// tier may drop it later); whether it was kept.
    @discardableResult
    func register(hash: String, document: String) async -> Bool
}
