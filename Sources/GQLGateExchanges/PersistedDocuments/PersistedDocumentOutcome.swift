/// What became of one operation at the persisted documents' stages
/// (`gqlgate_persisted_documents_total{outcome}`).
public enum PersistedDocumentOutcome: String, Sendable, CaseIterable {
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

/// Where the persisted documents' stages report (the gateway's metrics and log).
public struct PersistedDocumentsObserver: Sendable {
    /// One operation's outcome.
    public var outcome: @Sendable (PersistedDocumentOutcome) -> Void
    /// An operation not in the manifests, sent as text (`log_unknown`): its
    /// name (nil when anonymous) and the SHA-256 of its text, never its variables.
    public var unknownOperation: @Sendable (_ name: String?, _ sha256: String) -> Void

    public init(outcome: @escaping @Sendable (PersistedDocumentOutcome) -> Void = { _ in },
                unknownOperation: @escaping @Sendable (_ name: String?, _ sha256: String) -> Void = { _, _ in }) {
        self.outcome = outcome
        self.unknownOperation = unknownOperation
    }
}
