@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

/// An upstream that holds every call until `open()`, and counts calls and
/// the calls cancelled while held.
final class GatedUpstream: Sendable {
    /// Fields every answer carries besides `X-Request-Id` and `X-Upstream`.
    private let answerFields: [HTTPHeaders.Field]

    init(answerFields: [HTTPHeaders.Field] = []) {
        self.answerFields = answerFields
    }

    private struct State {
        var calls = 0
        var cancelled = 0
        var isOpen = false
        var held: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = Lock(State())

    var calls: Int { state.withLock { $0.calls } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    func open() {
        let held = state.withLock { state in
            state.isOpen = true
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume(returning: true) }
    }

    var next: ExchangeNext {
        { operation in
            let id = self.state.withLock { state -> UInt64 in
                state.calls += 1
                return UInt64(state.calls)
            }
            let opened = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = self.state.withLock { state -> Bool in
                        if state.isOpen || Task.isCancelled { return true }
                        state.held[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume(returning: !Task.isCancelled) }
                }
            } onCancel: {
                let continuation = self.state.withLock { state in
                    state.cancelled += 1
                    return state.held.removeValue(forKey: id)
                }
                continuation?.resume(returning: false)
            }
            guard opened else { throw CancellationError() }
            // This call's number: calls made at the same time each answer as their own.
            let headers = HTTPHeaders([.init(name: "X-Request-Id", value: operation.requestID), .init(name: "X-Upstream", value: "\(id)")]
                + self.answerFields)
            return .single(GraphQLResponse(status: 200, headers: headers, body: Bytes(#"{"data":{"hello":"world"}}"#), source: .upstream))
        }
    }
}

@Suite struct DedupeExchangeTests {
    private func ask(_ exchange: DedupeExchange, _ upstream: GatedUpstream, query: String = "{ hello }", variables: JSONValue? = nil,
                     headers: HTTPHeaders = [:], requestID: String) -> Task<String, any Error> {
        Task {
            let operation = try analysed(query, variables: variables, headers: headers, requestID: requestID)
            let response = try require_(await exchange.handle(operation, next: upstream.next).first())
            return "\(response.status) upstream call \(response.headers["X-Upstream"] ?? "-") \(response.body.string)"
        }
    }

    @Test func identicalQueriesInFlightShareOneUpstreamRequest() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream()
        let tasks = (1...5).map { ask(exchange, upstream, variables: .object([("a", .integer(1)), ("b", .integer(2))]), requestID: "r\($0)") }
        #expect(await eventually { calls.waiting == 5 })
        upstream.open()
        var answers: [String] = []
        for task in tasks { answers.append(try await task.value) }
        #expect(answers == Array(repeating: #"200 upstream call 1 {"data":{"hello":"world"}}"#, count: 5))
        #expect(upstream.calls == 1)
        #expect(calls.inFlight == 0)
    }

    @Test func variableOrderDoesNotMatterButScopeDoes() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream()
        let tasks = [
            ask(exchange, upstream, variables: .object([("a", .integer(1)), ("b", .integer(2))]), requestID: "r1"),
            ask(exchange, upstream, variables: .object([("b", .integer(2)), ("a", .integer(1))]), requestID: "r2"),
            ask(exchange, upstream, variables: .object([("a", .integer(1)), ("b", .integer(2))]), headers: ["Authorization": "Bearer x"], requestID: "r3"),
        ]
        #expect(await eventually { calls.waiting == 3 })
        upstream.open()
        for task in tasks { _ = try await task.value }
        #expect(upstream.calls == 2)
    }

    @Test func aCancelledLeaderDoesNotStrandOrCancelTheFollowers() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream()
        let leader = ask(exchange, upstream, requestID: "leader")
        #expect(await eventually { upstream.calls == 1 })
        let follower = ask(exchange, upstream, requestID: "follower")
        #expect(await eventually { calls.waiting == 2 })
        leader.cancel()
        await #expect(throws: CancellationError.self) { try await leader.value }
        #expect(calls.waiting == 1)
        upstream.open()
        #expect(try await follower.value == #"200 upstream call 1 {"data":{"hello":"world"}}"#)
        #expect(upstream.calls == 1)
        #expect(upstream.cancelled == 0)
    }

    @Test func aCancelledFollowerJustLeaves() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream()
        let leader = ask(exchange, upstream, requestID: "leader")
        #expect(await eventually { upstream.calls == 1 })
        let follower = ask(exchange, upstream, requestID: "follower")
        #expect(await eventually { calls.waiting == 2 })
        follower.cancel()
        await #expect(throws: CancellationError.self) { try await follower.value }
        upstream.open()
        #expect(try await leader.value == #"200 upstream call 1 {"data":{"hello":"world"}}"#)
        #expect(upstream.cancelled == 0)
    }

    @Test func theSharedRequestIsCancelledWhenEveryoneLeft() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream()
        let first = ask(exchange, upstream, requestID: "a")
        #expect(await eventually { upstream.calls == 1 })
        let second = ask(exchange, upstream, requestID: "b")
        #expect(await eventually { calls.waiting == 2 })
        first.cancel()
        second.cancel()
        #expect(await eventually { upstream.cancelled == 1 })
        #expect(calls.inFlight == 0)
        let third = ask(exchange, upstream, requestID: "c")
        #expect(await eventually { upstream.calls == 2 })
        upstream.open()
        #expect(try await third.value == #"200 upstream call 2 {"data":{"hello":"world"}}"#)
    }

    @Test func forwardedFieldsAndAcceptMakeRequestsDifferent() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(keyHeaders: KeyHeaders(forwarded: ["cookie", "accept-language"]), calls: calls)
        let upstream = GatedUpstream()
        let tasks = [
            ask(exchange, upstream, headers: ["Cookie": "session=alice"], requestID: "a"),
            ask(exchange, upstream, headers: ["Cookie": "session=bob"], requestID: "b"),
            ask(exchange, upstream, headers: ["Accept-Language": "de"], requestID: "c"),
            ask(exchange, upstream, headers: ["Accept-Language": "en"], requestID: "d"),
            ask(exchange, upstream, headers: ["Accept": "application/json"], requestID: "e"),
        ]
        #expect(await eventually { calls.waiting == 5 })
        upstream.open()
        for task in tasks { _ = try await task.value }
        #expect(upstream.calls == 5)
    }

    @Test func anAnswerThatSetsACookieIsNotSharedEachCallerSendsItsOwn() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream(answerFields: [.init(name: "Set-Cookie", value: "session=new; HttpOnly")])
        let tasks = (1...3).map { ask(exchange, upstream, requestID: "r\($0)") }
        #expect(await eventually { calls.waiting == 3 })
        upstream.open()
        var answers: Set<String> = []
        for task in tasks { answers.insert(try await task.value) }
        #expect(upstream.calls == 3)
        #expect(answers.count == 3)  // each its own upstream call
    }

    @Test func mutationsAreNeverShared() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream()
        let tasks = (1...2).map { ask(exchange, upstream, query: "mutation { addBook }", requestID: "m\($0)") }
        #expect(await eventually { upstream.calls == 2 })
        #expect(calls.inFlight == 0)
        upstream.open()
        for task in tasks { _ = try await task.value }
    }

    @Test func queriesUsingDeferAreNeverShared() async throws {
        let calls = SharedCalls<RequestKey, DedupeExchange.SharedAnswer>()
        let exchange = DedupeExchange(calls: calls)
        let upstream = GatedUpstream()
        let tasks = (1...2).map { ask(exchange, upstream, query: "{ hello ... @defer { slow } }", requestID: "d\($0)") }
        #expect(await eventually { upstream.calls == 2 })
        #expect(calls.inFlight == 0)
        upstream.open()
        for task in tasks { _ = try await task.value }
    }
}
