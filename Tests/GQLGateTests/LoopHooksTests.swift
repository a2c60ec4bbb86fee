@testable import GQLGate
import GQLGateEventLoop
import GQLGateExchanges
import GQLGatePipeline
import Testing

/// The loops' side of the built-in stages: what runs where, and what the watchdog sees.
@Suite struct LoopHooksTests {
    private let loops = EventLoopGroup(count: 2)

    @Test func aParseOnALoopIsNotedAsWorkForItsRequest() async throws {
        let loop = loops.loops[0]
        let noted = try await withTaskExecutorPreference(loop) { () async throws -> String? in
            var seen: String?
            _ = try LoopHooks.documentAnalysis("req-7") { () throws(GatewayError) in
                seen = loop.busyStretch()?.requestID
                return try DocumentCache().analyse("{ a }")
            }
            return seen
        }
        #expect(noted == "req-7")
        #expect(loop.busyStretch()?.requestID == nil)
    }

    @Test func aSharedCallRunsOnTheLoopOfTheCallerThatStartedIt() async throws {
        let calls = SharedCalls<String, Int>(executor: LoopHooks.currentExecutor)
        for loop in loops.loops {
            let ranOn = try await withTaskExecutorPreference(loop) {
                try await calls.value(for: "k") { EventLoop.current?.index ?? -1 }
            }
            #expect(ranOn == loop.index)
        }
    }
}
