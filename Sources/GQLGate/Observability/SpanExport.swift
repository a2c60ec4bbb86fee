import Dispatch
import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateHTTPClient
import GQLGateMetrics
import GQLGateTracing

/// Sends finished spans to `tracing.endpoint` as OTLP over HTTP (protobuf),
/// off the request path: as soon as `batchSize` spans are queued, and every
/// second for fewer, the queued spans go out in batches of at most
/// `batchSize`, one export at a time, through gqlgate's HTTP client. A span
/// that finds the queue full, or whose export fails, is dropped and counted
/// in `gqlgate_spans_dropped_total`. After a failed export the rest waits a
/// second: a receiver that is down is tried once a second, not once a batch.
/// Made at the first configuration with tracing on; a reload changes where
/// spans go.
final class SpanExport: Sendable {
    /// Where and how spans are sent (the settings of the configuration in use).
    struct Destination: Sendable, Equatable {
        var endpoint: String
        var headers: [HeaderField]
        var serviceName: String
    }

    static let batchSize = 512
    static let interval = Duration.seconds(1)
    static let exportTimeout = Duration.seconds(10)
    /// How long full batches wait after a failed export (ticks come every `interval`).
    static let retryDelayNanoseconds: UInt64 = 1_000_000_000

    let queue: SpanQueue
    /// Wakes the export loop: a batch is ready, or a second passed.
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let client: HTTPClient
    private let destination: Lock<Destination>
    private let loop: Lock<Task<Void, Never>?> = Lock(nil)

    init(client: HTTPClient, metrics: GatewayMetrics, destination: Destination) {
        self.client = client
        self.destination = Lock(destination)
        let (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (self.wakeUps, self.wake) = (wakeUps, wake)
        queue = SpanQueue(capacity: 8 * Self.batchSize, batchSize: Self.batchSize, batchReady: { wake.yield() }) {
            metrics.spansDropped($0)
        }
    }

    /// Starts the export loop (once).
    func start() {
        loop.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                let ticks = Task { [wake] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.interval)
                        wake.yield()
                    }
                }
                defer { ticks.cancel() }
                var retryAt: UInt64 = 0
                for await _ in wakeUps where GatewayClock.system.monotonicNanoseconds() >= retryAt {
                    if !(await exportQueued()) {
                        retryAt = GatewayClock.system.monotonicNanoseconds() + Self.retryDelayNanoseconds
                    }
                }
            }
        }
    }

    /// Sends later spans to `destination`.
    func send(to destination: Destination) {
        self.destination.withLock { $0 = destination }
    }

    /// Stops the loop and exports what is queued, waiting until `deadline`
    /// (monotonic nanoseconds) at most. Called by the drain, which may run
    /// on a thread of Swift's shared pool: the export runs on one of the
    /// client's loops, so it never waits for a pool thread (the caller may
    /// hold the last free one), and nothing queued means no wait at all.
    func flush(before deadline: UInt64) {
        loop.withLock { $0?.cancel() }
        guard queue.count > 0 else { return }
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: client.group.next()) { [self] in
            await exportQueued()
            done.signal()
        }
        let now = GatewayClock.system.monotonicNanoseconds()
        _ = done.wait(timeout: .now() + .nanoseconds(Int(deadline > now ? deadline - now : 0)))
    }

    /// Exports everything queued, batch after batch, until an export fails
    /// (its spans are counted as dropped, the rest stays queued); false then.
    @discardableResult
    func exportQueued() async -> Bool {
        while true {
            let batch = queue.take(upTo: Self.batchSize)
            guard !batch.isEmpty else { return true }
            guard await export(batch) else {
                queue.lost(batch.count)
                return false
            }
        }
    }

    private func export(_ batch: [SpanRecord]) async -> Bool {
        let destination = destination.withLock { $0 }
        let encoder = OTLPTraceEncoder(
            resource: [SpanAttribute("service.name", destination.serviceName)], scopeName: "gqlgate", scopeVersion: GQLGateVersion.current)
        var headers = HTTPHeaders([HTTPHeaders.Field(name: "Content-Type", value: "application/x-protobuf")])
        for field in destination.headers { headers.replaceOrAdd(name: field.name, value: field.value) }
        let request = HTTPClientRequest(
            url: destination.endpoint, method: .post, headers: headers, body: Bytes(encoder.encode(batch)),
            timeout: Self.exportTimeout, connectTimeout: .seconds(2))
        guard let answer = try? await client.execute(request) else { return false }
        return (200..<300).contains(answer.status)
    }
}
