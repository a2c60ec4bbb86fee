@testable import GQLGate
import Testing

@Suite struct ReadinessStateTests {
    private let second: UInt64 = 1_000_000_000

    @Test func withoutEvidenceAProbeIsNeeded() {
        #expect(ReadinessState().decision(now: 100 * second) == .probe)
    }

    @Test func aRecentAnswerMeansReadyUntilTheWindowPasses() {
        var state = ReadinessState()
        state.lastAnswer = 100 * second
        #expect(state.decision(now: 100 * second) == .ready)
        #expect(state.decision(now: 105 * second) == .ready)
        #expect(state.decision(now: 105 * second + 1) == .probe)
    }

    @Test func aFailureAfterTheLastAnswerCallsForAProbe() {
        var state = ReadinessState()
        state.lastAnswer = 100 * second
        state.lastFailure = 101 * second
        #expect(state.decision(now: 102 * second) == .probe)
        state.lastAnswer = 102 * second
        #expect(state.decision(now: 102 * second) == .ready)
    }

    @Test func probeResultsAreReusedBriefly() {
        var state = ReadinessState()
        state.lastProbe = (ok: false, at: 100 * second)
        #expect(state.decision(now: 101 * second) == .notReady)
        #expect(state.decision(now: 102 * second + 1) == .probe)
        state.lastProbe = (ok: true, at: 103 * second)
        #expect(state.decision(now: 104 * second) == .ready)
    }

    @Test func drainingWinsOverEverything() {
        var state = ReadinessState()
        state.lastAnswer = 100 * second
        state.lastProbe = (ok: true, at: 100 * second)
        state.draining = true
        #expect(state.decision(now: 100 * second) == .draining)
    }
}
