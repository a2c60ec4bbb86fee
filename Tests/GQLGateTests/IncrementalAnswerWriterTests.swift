@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGate
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// Results handed out one by one from `bodies`, then nil, or `error` in place of the nil; counts the calls.
private final class ScriptedResults: Sendable {
    private let left: Lock<[String]>
    private let error: (any Error & Sendable)?
    private let calls = Lock(0)

    init(_ bodies: [String], failingWith error: (any Error & Sendable)? = nil) {
        left = Lock(bodies)
        self.error = error
    }

    var taken: Int { calls.withLock { $0 } }

    var results: SubsequentResults {
        SubsequentResults {
            self.calls.withLock { $0 += 1 }
            if let body = self.left.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return Bytes(body) }
            if let error = self.error { throw error }
            return nil
        }
    }
}

private let partHead = "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"

/// The bytes an incremental answer gets: gqlgate's framing around the upstream's results.
@Suite(.timeLimit(.minutes(1))) struct IncrementalAnswerWriterTests {
    @Test func eachResultIsAPartEndingWithTheDelimiterThenTheCloseDelimiter() async {
        let sink = RecordingSink()
        let rest = ScriptedResults([#"{"incremental":[],"hasNext":false}"#])
        await IncrementalAnswerWriter(sink: sink).run(first: Bytes(#"{"data":{},"hasNext":true}"#), rest: rest.results)
        #expect(sink.text == "\r\n---" + partHead + #"{"data":{},"hasNext":true}"# + "\r\n---"
            + partHead + #"{"incremental":[],"hasNext":false}"# + "\r\n---" + "--\r\n")
        #expect(sink.finished)
    }

    @Test func aFailureAfterTheFirstPartIsALastPartWithErrorsThenTheEnd() async {
        let sink = RecordingSink()
        let rest = ScriptedResults([], failingWith: UpstreamFailure(kind: .timedOut, message: "slow"))
        await IncrementalAnswerWriter(sink: sink).run(first: Bytes(#"{"data":{},"hasNext":true}"#), rest: rest.results)
        #expect(sink.text.hasSuffix(partHead + #"{"errors":[{"message":"The upstream did not answer within upstream.timeout.","#
            + #""extensions":{"code":"UPSTREAM_TIMEOUT"}}],"hasNext":false}"# + "\r\n-----\r\n"))
        #expect(sink.finished)
    }

    @Test func aPartThatIsNoJSONObjectEndsTheAnswer() async {
        let sink = RecordingSink()
        let rest = ScriptedResults(["<html>", #"{"hasNext":false}"#])
        await IncrementalAnswerWriter(sink: sink).run(first: Bytes(#"{"data":{},"hasNext":true}"#), rest: rest.results)
        #expect(sink.text.contains("UPSTREAM_UNAVAILABLE"))
        #expect(!sink.text.contains("<html>"))
        #expect(rest.taken == 1)
    }

    @Test func aClientThatIsGoneStopsTheReading() async {
        let sink = RecordingSink(acceptedWrites: 1)
        let rest = ScriptedResults([#"{"hasNext":true}"#, #"{"hasNext":false}"#])
        await IncrementalAnswerWriter(sink: sink).run(first: Bytes(#"{"data":{},"hasNext":true}"#), rest: rest.results)
        #expect(rest.taken == 1)
        #expect(!sink.text.hasSuffix("--\r\n"))
        #expect(sink.finished)
    }
}
