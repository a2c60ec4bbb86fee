import GQLGateEventLoop
import GQLGateExchanges
import GQLGatePipeline

/// What the built-in stages, which know nothing of event loops, get from the
/// gateway's loops: the calling loop's timers, executor and watchdog notes.
enum LoopHooks {
    /// Retry waits on the calling loop's timer heap (no other thread involved).
    static let sleep: @Sendable (Duration) async throws -> Void = { try await EventLoop.sleep(for: $0) }

    /// A shared upstream call (dedupe) runs on the loop of the caller that started it.
    static let currentExecutor: @Sendable () -> (any TaskExecutor)? = { EventLoop.current }

    /// A parse is noted as its loop's work for the request, so the loop
    /// watchdog names the request if the loop stays busy.
    static let documentAnalysis: DocumentExchange.AnalysisRunner = { requestID, analyse throws(GatewayError) in
        guard let loop = EventLoop.current else { return try analyse() }
        return try loop.working(for: requestID, analyse)
    }
}
