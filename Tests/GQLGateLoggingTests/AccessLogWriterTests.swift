@testable import GQLGateLogging
import Logging
import Testing

@Suite struct AccessLogWriterTests {
    private func fullLine() -> AccessLine {
        var line = AccessLine(status: 200, durationMilliseconds: 1.234)
        line.attempts = 2
        line.cache = "MISS"
        line.clientCertificate = "CN=alice,O=Example"
        line.operation = "query"
        line.operationName = "Books \"by\" author"
        line.persistedID = "sha256:ab"
        line.requestID = "r-1"
        line.shed = "overloaded"
        line.upstreamStatus = 200
        return line
    }

    /// The fast path writes exactly what the log handler writes for the same fields.
    @Test(arguments: [LogLineFormat.json, .text])
    func rendersTheSameLineAsTheLogHandler(format: LogLineFormat) {
        let writer = AccessLogWriter(settings: LogSettings(level: .info, format: format), writer: LogLineWriter(fileDescriptor: -1))
        for line in [fullLine(), AccessLine(status: 404, durationMilliseconds: 0.5)] {
            let fast = writer.render(line, format: format, timestamp: "2026-01-01T00:00:00.000Z")
            let general = format == .json
                ? JSONLogLine.render(timestamp: "2026-01-01T00:00:00.000Z", level: .info, message: "request", metadata: line.metadata)
                : TextLogLine.render(timestamp: "2026-01-01T00:00:00.000Z", level: .info, message: "request", metadata: line.metadata)
            #expect(fast == general)
        }
    }

    @Test func jsonLineNamesEveryKnownField() {
        let writer = AccessLogWriter(settings: LogSettings(level: .info, format: .json), writer: LogLineWriter(fileDescriptor: -1))
        #expect(writer.render(fullLine(), format: .json, timestamp: "T") == #"""
            {"ts":"T","level":"info","msg":"request","attempts":2,"cache":"MISS","client_cert":"CN=alice,O=Example","duration_ms":1.234,"operation":"query","operation_name":"Books \"by\" author","persisted_id":"sha256:ab","request_id":"r-1","shed":"overloaded","status":200,"upstream_status":200}

            """#)
    }
}
