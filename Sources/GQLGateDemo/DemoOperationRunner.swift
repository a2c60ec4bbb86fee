@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateSubscriptions
import GraphQL

/// Runs the operations of one WebSocket connection against the demo schema.
///
/// Operations start one at a time, in the order they arrived: a query or
/// mutation runs to its result, a subscription until its source stream
/// listens. So a message sent after a `subscribe` on the same socket runs
/// only once the subscription would see what it causes. Each subscription's
/// results are then forwarded by a task of its own until `stop(_:)`.
///
/// Results go to the `deliver` closure given with each operation, from any
/// thread; after `stop(_:)` a few may still arrive, which the caller drops.
final class DemoOperationRunner: Sendable {
    /// Names one started operation; the caller picks a fresh one for each.
    typealias Ticket = Int

    private struct Start: Sendable {
        let ticket: Ticket
        let id: String
        let request: GQLGatePipeline.GraphQLRequest
        let deliver: @Sendable (ClientConnectionEvent) -> Void
    }

    private struct Table {
        var waiting: Set<Ticket> = []
        var forwarding: [Ticket: Task<Void, Never>] = [:]
    }

    private let schema: DemoSchema
    private let starts: AsyncStream<Start>.Continuation
    private let table = Lock(Table())

    init(schema: DemoSchema) {
        self.schema = schema
        let (stream, starts) = AsyncStream.makeStream(of: Start.self)
        self.starts = starts
        Task { [self] in
            for await start in stream { await run(start) }
        }
    }

    /// Queues operation `id`; its results, then `completed` or `failed`, go to `deliver`.
    func start(_ ticket: Ticket, id: String, request: GQLGatePipeline.GraphQLRequest,
               deliver: @escaping @Sendable (ClientConnectionEvent) -> Void) {
        table.withLock { _ = $0.waiting.insert(ticket) }
        starts.yield(Start(ticket: ticket, id: id, request: request, deliver: deliver))
    }

    /// Stops an operation: skipped if it has not started, cancelled (which
    /// ends its subscription's source stream) if it runs.
    func stop(_ ticket: Ticket) {
        let forwarding = table.withLock { table in
            table.waiting.remove(ticket) == nil ? table.forwarding.removeValue(forKey: ticket) : nil
        }
        forwarding?.cancel()
    }

    /// Stops every operation and ends the starting task; nothing starts afterwards.
    func finish() {
        starts.finish()
        let forwarding = table.withLock { table in
            table.waiting.removeAll()
            defer { table.forwarding.removeAll() }
            return Array(table.forwarding.values)
        }
        for task in forwarding { task.cancel() }
    }

    private func run(_ start: Start) async {
        guard table.withLock({ $0.waiting.contains(start.ticket) }) else { return }
        let operation: DemoOperation
        switch DemoWireFormat.graphQLRequest(start.request) {
        case .success(let request): operation = await schema.start(request)
        case .failure(let error): operation = .single(.rejected([error]))
        }
        switch operation {
        case .single(let outcome):
            guard table.withLock({ $0.waiting.remove(start.ticket) != nil }) else { return }
            for event in Self.events(of: outcome, id: start.id) { start.deliver(event) }
        case .stream(let results):
            table.withLock { table in
                guard table.waiting.remove(start.ticket) != nil else { return }  // stopped meanwhile: dropping `results` ends it
                table.forwarding[start.ticket] = Task { [self] in
                    await Self.forward(results, id: start.id, to: start.deliver)
                    self.table.withLock { _ = $0.forwarding.removeValue(forKey: start.ticket) }
                }
            }
        }
    }

    private static func forward(_ results: AsyncThrowingStream<GraphQLResult, any Error>, id: String,
                                to deliver: @Sendable (ClientConnectionEvent) -> Void) async {
        do {
            for try await result in results {
                deliver(.result(id: id, payload: DemoWireFormat.payload(result)))
            }
            if !Task.isCancelled { deliver(.completed(id: id)) }
        } catch let error as GraphQLError {
            deliver(.failed(id: id, errors: DemoWireFormat.errors([error])))
        } catch {
            if !Task.isCancelled { deliver(.failed(id: id, errors: DemoWireFormat.errors([GraphQLError(error)]))) }
        }
    }

    private static func events(of outcome: DemoExecutionResult, id: String) -> [ClientConnectionEvent] {
        switch outcome {
        case .executed(let result):
            [.result(id: id, payload: DemoWireFormat.payload(result)), .completed(id: id)]
        case .rejected(let errors):
            [.failed(id: id, errors: DemoWireFormat.errors(errors))]
        case .mutationNotAllowed:
            [.failed(id: id, errors: DemoWireFormat.errors([GraphQLError(message: "Mutations are not allowed here.")]))]
        }
    }
}
