public import GQLGateCore

/// The results that follow the first of an incremental answer (`@defer`,
/// `@stream`), as the upstream sends them: each a JSON object as the
/// upstream wrote it. Read by one consumer, once, in order; dropping it
/// before its end ends the upstream request.
public struct SubsequentResults: Sendable {
    private let produce: @Sendable () async throws -> Bytes?

    /// Results taken from `next`, which returns nil after the last.
    package init(_ next: @escaping @Sendable () async throws -> Bytes?) {
        produce = next
    }

    /// The next result, waiting for it; nil after the last. Throws what
    /// ended the answer before its end (an `UpstreamFailure`, a
    /// `GatewayError`), or `CancellationError` when the waiting task was cancelled.
    package func next() async throws -> Bytes? {
        try await produce()
    }
}
