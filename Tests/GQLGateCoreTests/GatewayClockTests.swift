import GQLGateCore
import Testing

@Suite struct GatewayClockTests {
    @Test func theSystemsMonotonicReadingNeverGoesBack() {
        let clock = GatewayClock.system
        var last = clock.monotonicNanoseconds()
        for _ in 0..<1_000 {
            let next = clock.monotonicNanoseconds()
            #expect(next >= last)
            last = next
        }
    }

    @Test func theSystemsWallTimeIsSinceTheUnixEpoch() {
        let seconds = GatewayClock.system.wallTime().components.seconds
        #expect(seconds > 1_700_000_000, "after November 2023")
        #expect(seconds < 4_102_444_800, "before 2100")
    }

    @Test func aManualClockStandsStillUntilAdvanced() {
        let manual = ManualClock(monotonicNanoseconds: 5_000, wallTime: .seconds(1_800_000_000))
        let clock = manual.clock
        #expect(clock.monotonicNanoseconds() == 5_000)
        #expect(clock.monotonicNanoseconds() == 5_000)
        #expect(clock.wallTime() == .seconds(1_800_000_000))
    }

    @Test func advancingMovesBothReadingsTogether() {
        let manual = ManualClock(monotonicNanoseconds: 5_000, wallTime: .seconds(1_800_000_000))
        let clock = manual.clock
        manual.advance(by: .milliseconds(1_500))
        #expect(clock.monotonicNanoseconds() == 1_500_005_000)
        #expect(clock.wallTime() == .seconds(1_800_000_001) + .milliseconds(500))
        #expect(manual.monotonicNanoseconds == clock.monotonicNanoseconds())
    }
}
