import Testing
@testable import GQLGateConfig

@Suite struct LoggingConfigTests {
    @Test func defaults() {
        let logging = GatewayConfig().logging
        #expect(logging.level == .info)
        #expect(logging.format == .json)
    }

    @Test func readsEveryKey() throws {
        let logging = try load("logging: {level: debug, format: text}").logging
        #expect(logging.level == .debug)
        #expect(logging.format == .text)
    }

    @Test func rejectsBadValues() {
        #expect(loadError("logging: {level: warning}")
            == #"logging.level: "warning" is not valid: expected one of trace, debug, info, warn, error"#)
        #expect(loadError("logging: {format: yaml}") == #"logging.format: "yaml" is not valid: expected one of json, text"#)
    }
}
