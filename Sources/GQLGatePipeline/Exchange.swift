/// The rest of the pipeline, as an exchange sees it: call it with the
/// operation (changed or not) to have the later stages and the upstream
/// answer it.
public typealias ExchangeNext = @Sendable (Operation) async throws -> ResultStream

/// One stage of the pipeline. It gets each operation and the rest of the
/// pipeline (`next`), and returns the operation's results: it may pass the
/// operation on (changed or not), answer it itself, or transform the results
/// that come back. Forward what you don't handle, and call `next` at most once
/// per operation. `next` may outlive the call (dedupe's shared request and
/// the cache's background refresh run it in tasks of their own).
///
/// An `Exchange` runs on an event loop: a request that reaches one leaves
/// the thread that received it. A stage that can always decide at once
/// (check, rewrite, or answer from memory) is an `InlineExchange` instead,
/// and then runs where the request arrived; see `InlineExchange`.
public protocol Exchange: Sendable {
    func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream
}

/// The end of the pipeline: sends operations to the upstream.
package protocol Transport: Sendable {
    func send(_ operation: Operation) async throws -> ResultStream
}
