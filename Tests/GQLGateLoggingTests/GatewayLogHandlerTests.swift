import Foundation
import GQLGateLogging
import Logging
import Testing

/// A pipe whose write end a `LogLineWriter` writes to.
private final class Pipe {
    let readFD: Int32
    let writeFD: Int32

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// What is in the pipe now (call after `flush()`).
    func available() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let flags = fcntl(readFD, F_GETFL)
        _ = fcntl(readFD, F_SETFL, flags | O_NONBLOCK)
        while true {
            let count = read(readFD, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

@Suite struct GatewayLogHandlerTests {
    private func logger(_ settings: LogSettings, _ writer: LogLineWriter) -> Logger {
        Logger(label: "test") { _ in GatewayLogHandler(settings: settings, writer: writer, clock: { "2025-06-01T00:00:00.000Z" }) }
    }

    @Test func writesOneJSONObjectPerRecord() throws {
        let pipe = Pipe()
        let writer = LogLineWriter(fileDescriptor: pipe.writeFD)
        defer { writer.shutdown() }
        var log = logger(LogSettings(level: .info, format: .json), writer)
        log[metadataKey: "component"] = "gateway"
        log.info("listening", metadata: ["address": "http://127.0.0.1:8080/graphql"])
        log.debug("not written")
        writer.flush()
        let lines = pipe.available().split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        #expect(object == [
            "ts": "2025-06-01T00:00:00.000Z", "level": "info", "msg": "listening", "component": "gateway",
            "address": "http://127.0.0.1:8080/graphql",
        ])
    }

    @Test func sharedSettingsChangeLevelAndFormatOfExistingLoggers() {
        let pipe = Pipe()
        let writer = LogLineWriter(fileDescriptor: pipe.writeFD)
        defer { writer.shutdown() }
        let settings = LogSettings(level: .warning, format: .json)
        let log = logger(settings, writer)
        log.info("dropped by level")
        settings.update(level: .debug, format: .text)
        log.debug("reloaded", metadata: ["keys": "server.listen", "note": "needs restart"])
        writer.flush()
        #expect(pipe.available() == "2025-06-01T00:00:00.000Z debug reloaded keys=server.listen note=\"needs restart\"\n")
    }

    @Test func linesBeyondCapacityAreDroppedAndCounted() {
        let pipe = Pipe()
        let writer = LogLineWriter(fileDescriptor: pipe.writeFD, capacity: 16)
        defer { writer.shutdown() }
        writer.write(String(repeating: "x", count: 40) + "\n")
        writer.write("kept\n")
        writer.flush()
        #expect(pipe.available() == "kept\n" + #"{"level":"warning","msg":"log lines dropped","count":1}"# + "\n")
    }

    @Test func timestampsAreRFC3339InUTCWithMilliseconds() {
        #expect(LogTimestamp.format(seconds: 0, milliseconds: 5) == "1970-01-01T00:00:00.005Z")
        #expect(LogTimestamp.format(seconds: 1_748_781_296, milliseconds: 789) == "2025-06-01T12:34:56.789Z")
        #expect(LogTimestamp.now().count == 24)
    }
}
