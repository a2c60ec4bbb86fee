import Testing
@testable import GQLGateConfig

@Suite struct ConfigDurationTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)),
        ("10s", .seconds(10)),
        ("1m", .seconds(60)),
        ("1h", .seconds(3_600)),
        ("1.5s", .milliseconds(1_500)),
        ("0.25m", .seconds(15)),
        ("0", .zero),
        ("0s", .zero),
        (" 2s ", .seconds(2)),
    ])
    func parsesValidDurations(text: String, expected: Duration) throws {
        #expect(try ConfigDuration.parse(text) == expected)
    }

    @Test func rejectsBareIntegersWithAHintAboutUnits() {
        #expect(thrownError { () throws(ConfigError) in try ConfigDuration.parse("10") }
            == #""10" is not valid: expected a duration; use a unit: 10s, 10ms"#)
    }

    @Test(arguments: ["", "s", "10 s", "10sec", "-1s", "1.s", ".5s", "1.2.3s", "0.5ms", "10S", "1d", "99999999999999h"])
    func rejectsMalformedDurations(text: String) {
        #expect(thrownError { () throws(ConfigError) in try ConfigDuration.parse(text) }
            == "\(ConfigError.quoted(text)) is not valid: expected a duration such as 250ms, 10s, 1.5s, 1m or 1h")
    }

    @Test(arguments: [
        (Duration.zero, "0s"),
        (.milliseconds(250), "250ms"),
        (.milliseconds(1_500), "1500ms"),
        (.seconds(10), "10s"),
        (.seconds(90), "90s"),
        (.seconds(120), "2m"),
        (.seconds(7_200), "2h"),
    ])
    func formatsWithTheLargestExactUnit(duration: Duration, expected: String) throws {
        #expect(ConfigDuration.format(duration) == expected)
        #expect(try ConfigDuration.parse(expected) == duration)
    }
}
