@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

private let query = "{ hello }"
private let queryHash = DocumentCache.digest(of: query).hexString
private let hashOnly = #"{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(queryHash)"}}}"#
private let hashAndQuery = #"{"query":"{ hello }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(queryHash)"}}}"#
private let notFound = #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#
private let notSupported = #"{"errors":[{"message":"PersistedQueryNotSupported"}]}"#
private let hello = #"{"data":{"hello":"world"}}"#

/// What the upstream got (request bodies as JSON) and what the client got, for each operation in turn.
private func exchanges(_ operations: [Operation], answers: [String], through exchange: UpstreamAPQExchange = UpstreamAPQExchange())
    async throws -> (sent: [String], answered: [String]) {
    let upstream = ScriptedUpstream(answers.map { ScriptedUpstream.Answer(body: $0) })
    let recorder = RequestBodies()
    var answered: [String] = []
    for operation in operations {
        let next: ExchangeNext = { sent in
            recorder.append(sent.upstreamBody().string)
            return try await upstream.next(sent)
        }
        answered.append(try require_(await exchange.handle(operation, next: next).first()).body.string)
    }
    return (recorder.bodies, answered)
}

@Suite struct UpstreamAPQExchangeTests {
    @Test func theHashGoesFirstAndTheQueryOnlyWhenTheUpstreamDoesNotKnowIt() async throws {
        let hi = try analysed(query)
        let (sent, answered) = try await exchanges([hi, hi], answers: [notFound, hello, hello])
        #expect(sent == [hashOnly, hashAndQuery, hashOnly])
        #expect(answered == [hello, hello])
    }

    @Test func mutationsToo() async throws {
        let (sent, _) = try await exchanges([try analysed("mutation { b }")], answers: [hello])
        #expect(sent.count == 1 && !sent[0].contains("\"query\"") && sent[0].contains("sha256Hash"))
    }

    @Test func anUpstreamWithoutAPQGetsPlainRequestsFromThenOn() async throws {
        let hi = try analysed(query)
        let (sent, answered) = try await exchanges([hi, hi], answers: [notSupported, hello, hello])
        #expect(sent == [hashOnly, #"{"query":"{ hello }"}"#, #"{"query":"{ hello }"}"#])
        #expect(answered == [hello, hello])
    }

    @Test func otherErrorsAndSubscriptionsPassUntouched() async throws {
        let failing = #"{"errors":[{"message":"boom"}]}"#
        let (sent, answered) = try await exchanges([try analysed(query), try analysed("subscription { c }")], answers: [failing])
        #expect(sent == [hashOnly, #"{"query":"subscription { c }"}"#])
        #expect(answered == [failing, failing])
    }

    @Test func theClientsOtherExtensionsAreKept() async throws {
        var operation = try analysed(query)
        operation.request.extensions = .object([("trace", .bool(true))])
        let (sent, _) = try await exchanges([operation], answers: [hello])
        #expect(sent == [#"{"extensions":{"trace":true,"persistedQuery":{"version":1,"sha256Hash":"\#(queryHash)"}}}"#])
    }
}

private final class RequestBodies: Sendable {
    private let state = Lock<[String]>([])
    func append(_ body: String) { state.withLock { $0.append(body) } }
    var bodies: [String] { state.withLock { $0 } }
}
