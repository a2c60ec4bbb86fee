@_spi(GQLGateInternals) import GQLGateCore
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

@Suite struct MonotonicInstantTests {
    @Test func instantsMoveByDurationsAndDifferByDurations() {
        let start = MonotonicInstant(nanoseconds: 10_000_000_000)
        let later = start + .milliseconds(1_500)
        #expect(later.nanoseconds == 11_500_000_000)
        #expect(later - start == .milliseconds(1_500))
        #expect(start - later == .milliseconds(-1_500))
        #expect(later - .milliseconds(1_500) == start)
        var moved = start
        moved += .seconds(1)
        #expect(moved.nanoseconds == 11_000_000_000)
        #expect(start + .milliseconds(-500) == MonotonicInstant(nanoseconds: 9_500_000_000))
        #expect(start < later && max(start, later) == later)
    }

    @Test func arithmeticSaturatesInsteadOfTrapping() {
        let start = MonotonicInstant(nanoseconds: 5)
        #expect((start - .seconds(1)).nanoseconds == 0)
        #expect((start + .seconds(Int64.max)).nanoseconds == 5 + UInt64(Int64.max), "a duration past Int64 nanoseconds counts as the most it can")
        #expect((MonotonicInstant(nanoseconds: .max) + .nanoseconds(1)).nanoseconds == .max)
    }

    @Test func aManualClocksInstantMovesWithIt() {
        let manual = ManualClock(monotonicNanoseconds: 1_000)
        let before = manual.clock.now()
        manual.advance(by: .seconds(2))
        #expect(manual.clock.now() - before == .seconds(2))
        #expect(MonotonicInstant.now > before, "the system clock is far past a manual clock's start")
    }
}
