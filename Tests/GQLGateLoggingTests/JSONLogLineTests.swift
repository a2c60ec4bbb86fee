import Foundation
import GQLGateLogging
import Logging
import Testing

@Suite struct JSONLogLineTests {
    private func parse(_ line: String) throws -> [String: Any] {
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false)
        return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func accessLineKeepsNumbersAsNumbers() throws {
        let line = JSONLogLine.render(
            timestamp: "2025-06-01T12:34:56.789Z", level: .info, message: "request",
            metadata: ["status": .stringConvertible(200), "duration_ms": .stringConvertible(1.25), "cache": "MISS", "request_id": "abc"])
        let object = try parse(line)
        #expect(object["ts"] as? String == "2025-06-01T12:34:56.789Z")
        #expect(object["level"] as? String == "info")
        #expect(object["msg"] as? String == "request")
        #expect(object["status"] as? Int == 200)
        #expect(object["duration_ms"] as? Double == 1.25)
        #expect(object["cache"] as? String == "MISS")
        #expect(object["request_id"] as? String == "abc")
    }

    @Test func fieldsComeInAFixedOrder() {
        let line = JSONLogLine.render(
            timestamp: "t", level: .warning, message: "m", metadata: ["b": "2", "a": .stringConvertible(true), "c": ["x", "y"]])
        #expect(line == #"{"ts":"t","level":"warning","msg":"m","a":true,"b":"2","c":["x","y"]}"# + "\n")
    }

    @Test func quotesNewlinesAndControlCharactersAreEscaped() throws {
        let message = "reload failed: \"a\"\nline\u{1}"
        let object = try parse(JSONLogLine.render(timestamp: "t", level: .error, message: message, metadata: ["error": "x\ty"]))
        #expect(object["msg"] as? String == message)
        #expect(object["error"] as? String == "x\ty")
    }

    @Test func metadataCannotReplaceTheFixedFields() throws {
        let object = try parse(JSONLogLine.render(timestamp: "t", level: .info, message: "m", metadata: ["msg": "other", "level": "x"]))
        #expect(object["msg"] as? String == "m")
        #expect(object["level"] as? String == "info")
    }

    @Test func nonFiniteNumbersBecomeStrings() throws {
        let object = try parse(JSONLogLine.render(timestamp: "t", level: .info, message: "m", metadata: ["v": .stringConvertible(Double.nan)]))
        #expect(object["v"] as? String == "nan")
    }
}
