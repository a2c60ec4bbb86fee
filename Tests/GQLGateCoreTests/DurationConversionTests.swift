import GQLGateCore
import Testing

/// `Duration` in the whole units the loops and libcurl take.
@Suite struct DurationConversionTests {
    @Test func nanosecondsAreWholeAndNeverNegative() {
        #expect(Duration.seconds(2).nanoseconds == 2_000_000_000)
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(7).nanoseconds == 7)
        #expect((Duration.nanoseconds(7) + .init(secondsComponent: 0, attosecondsComponent: 999_999_999)).nanoseconds == 7)
        #expect(Duration.zero.nanoseconds == 0)
        #expect(Duration.seconds(-3).nanoseconds == 0)
        #expect(Duration.seconds(86_400 * 365).nanoseconds == 31_536_000_000_000_000)
    }

    @Test func millisecondsRoundUpSoShortWaitsStayWaits() {
        #expect(Duration.seconds(10).milliseconds == 10_000)
        #expect(Duration.microseconds(1500).milliseconds == 2)
        #expect(Duration.nanoseconds(1).milliseconds == 1)
        #expect(Duration.zero.milliseconds == 0)
    }
}
