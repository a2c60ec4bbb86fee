@_spi(GQLGateInternals) package import GQLGateCore

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

    /// The same results, and `action` run once when they are over: after
    /// the last, when they failed, or when they were dropped before their end.
    package func whenOver(_ action: @escaping @Sendable () -> Void) -> SubsequentResults {
        let over = OnceAction(action)
        let produce = produce
        return SubsequentResults {
            do {
                guard let result = try await produce() else {
                    over.run()
                    return nil
                }
                return result
            } catch {
                over.run()
                throw error
            }
        }
    }
}

/// An action run once: by `run`, or when the last reference goes.
private final class OnceAction: Sendable {
    private let action: Lock<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = Lock(action)
    }

    deinit {
        run()
    }

    func run() {
        action.withLock { action in
            defer { action = nil }
            return action
        }?()
    }
}
