/// The rest of the pipeline, as seen by an exchange. It takes the operation
/// over (`consuming`): an exchange that passes on its last use of the
/// operation hands it down without copying it, and the next stage may change
/// it in place.
public typealias ExchangeNext = @Sendable (consuming Operation) async throws -> ResultStream

/// One stage of the pipeline. It gets each operation and the rest of the
/// pipeline (`next`), and returns the operation's results: it may pass the
/// operation on (changed or not), answer it itself, or transform the results
/// that come back. Forward what you don't handle, and call `next` at most once
/// per operation. `next` may outlive the call (dedupe's shared request and
/// the cache's background refresh run it in tasks of their own); a
/// conformance that only calls it may still declare it non-escaping. The
/// operation is the exchange's own (`consuming`); a conformance may declare
/// the parameter without the modifier too.
public protocol Exchange: Sendable {
    func handle(_ operation: consuming Operation, next: @escaping ExchangeNext) async throws -> ResultStream
}

/// The end of the pipeline: sends operations to the upstream.
public protocol Transport: Sendable {
    func send(_ operation: Operation) async throws -> ResultStream
}
