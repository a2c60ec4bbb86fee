@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

private let typename = "{__typename}"
private let typenameHash = "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"

/// A shared tier in a dictionary, counting what it is asked; `available` false: it finds and keeps nothing.
private final class FakeSharedQueries: SharedPersistedQueries {
    private struct State {
        var documents: [String: String] = [:]
        var lookups: [String] = []
        var registrations: [String] = []
    }

    private let state: Lock<State>
    private let available: Bool
    private let registerDelay: Duration

    init(_ documents: [String: String] = [:], available: Bool = true, registerDelay: Duration = .zero) {
        state = Lock(State(documents: documents))
        self.available = available
        self.registerDelay = registerDelay
    }

    var lookups: [String] { state.withLock { $0.lookups } }
    var registrations: [String] { state.withLock { $0.registrations } }
    func holds(_ hash: String) -> String? { state.withLock { $0.documents[hash] } }

    func document(forHash hash: String) async -> String? {
        state.withLock { state in
            state.lookups.append(hash)
            return available ? state.documents[hash] : nil
        }
    }

    func register(hash: String, document: String) async -> Bool {
        if registerDelay > .zero { try? await Task.sleep(for: registerDelay) }
        return state.withLock { state in
            state.registrations.append(hash)
            if available { state.documents[hash] = document }
            return available
        }
    }
}

private struct NextTransport: Transport {
    let next: RecordingNext
    func send(_ operation: Operation) async throws -> ResultStream { try await next.next(operation) }
}

private func persisted(_ query: String?, hash: String = typenameHash) -> Operation {
    let persistedQuery = JSONValue.object([("version", .integer(1)), ("sha256Hash", .string(hash))])
    return Operation(request: GraphQLRequest(query: query, extensions: .object([("persistedQuery", persistedQuery)])),
                     clientTransport: .httpPost, headers: [:], requestID: "req-1")
}

/// Serves `operation` as the endpoint does: the exchange decides on the
/// calling thread, and the pipeline goes on on a loop when it says so.
/// `atOnce`: whether it was decided without waiting (answered or passed on).
private func served(by exchange: APQExchange, _ operation: Operation, next: RecordingNext) async -> (atOnce: Bool, outcome: String) {
    let chain = ExchangeChain(stages: [.inline(exchange)], transport: NextTransport(next: next))
    var operation = operation
    var atOnce = true
    do {
        let position: ExchangeChain.Position
        switch try chain.runAtOnce(&operation) {
        case .answered(let answer): return (true, "\(answer.status) \(answer.body.string)")
        case .goOn(let at): position = at
        }
        atOnce = position.index == 1
        let result = try await chain.resume(operation, at: position).first()
        return (atOnce, "\(result?.status ?? 0) \(result?.body.string ?? "-")")
    } catch let error as GatewayError {
        return (atOnce, "\(error.status) \(error.code)")
    } catch {
        return (atOnce, "error \(error)")
    }
}

@Suite struct APQSharedTierTests {
    @Test func aHashInMemoryIsDecidedAtOnceWithoutAskingTheTier() async throws {
        let (store, tier) = (PersistedQueryStore(), FakeSharedQueries())
        store.register(typename, hash: typenameHash)
        let exchange = APQExchange(store: store, shared: tier)
        var operation = persisted(nil)
        guard case .passOn = try exchange.decide(&operation) else {
            Issue.record("a hash memory holds is decided at once")
            return
        }
        #expect(operation.request.query == typename)
        #expect(operation.request.extensions == nil)
        let next = RecordingNext()
        let result = await served(by: exchange, persisted(nil), next: next)
        #expect(result.atOnce && result.outcome == "200 upstream")
        #expect(tier.lookups.isEmpty && tier.registrations.isEmpty)
    }

    @Test func aMissGoesOnALoopAndFindsTheHashInTheTier() async throws {
        let (store, tier) = (PersistedQueryStore(), FakeSharedQueries([typenameHash: typename]))
        let exchange = APQExchange(store: store, shared: tier)
        var operation = persisted(nil)
        guard case .onLoop = try exchange.decide(&operation) else {
            Issue.record("a hash memory does not hold is looked up on a loop")
            return
        }
        #expect(operation.request.query == nil, "left untouched for handle")
        let next = RecordingNext()
        let first = await served(by: exchange, persisted(nil), next: next)
        #expect(!first.atOnce && first.outcome == "200 upstream")
        let forwarded = try #require(next.operations.last)
        #expect(forwarded.request.query == typename)
        #expect(forwarded.request.extensions == nil)
        #expect(store.query(for: typenameHash) == typename, "kept in memory")
        let second = await served(by: exchange, persisted(nil), next: next)
        #expect(second.atOnce && second.outcome == "200 upstream")
        #expect(tier.lookups == [typenameHash])
    }

    @Test func aHashTheTierDoesNotHoldIsNotFound() async {
        for tier in [FakeSharedQueries(), FakeSharedQueries([typenameHash: typename], available: false)] {
            let next = RecordingNext()
            let result = await served(by: APQExchange(shared: tier), persisted(nil), next: next)
            #expect(!result.atOnce && result.outcome == "200 PERSISTED_QUERY_NOT_FOUND")
            #expect(tier.lookups == [typenameHash])
            #expect(next.trace.isEmpty)
        }
    }

    @Test func aDocumentFromTheTierMustHaveTheHash() async {
        let (store, tier) = (PersistedQueryStore(), FakeSharedQueries([typenameHash: "{ other }"]))
        let next = RecordingNext()
        #expect(await served(by: APQExchange(store: store, shared: tier), persisted(nil), next: next).outcome
            == "200 PERSISTED_QUERY_NOT_FOUND")
        #expect(store.count == 0)
    }

    @Test func aRegistrationIsToldToTheTierBeforeTheAnswer() async throws {
        let (store, tier) = (PersistedQueryStore(), FakeSharedQueries(registerDelay: .milliseconds(50)))
        let exchange = APQExchange(store: store, shared: tier)
        var operation = persisted(typename)
        guard case .onLoop = try exchange.decide(&operation) else {
            Issue.record("a registration is told to the tier on a loop")
            return
        }
        let next = RecordingNext()
        let result = await served(by: exchange, persisted(typename), next: next)
        #expect(!result.atOnce && result.outcome == "200 upstream")
        #expect(tier.holds(typenameHash) == typename, "registered before the answer")
        #expect(store.query(for: typenameHash) == typename)
        #expect(try #require(next.operations.last).request.extensions == nil)
        // Another replica, with nothing in memory, finds it.
        #expect(await served(by: APQExchange(shared: tier), persisted(nil), next: next).outcome == "200 upstream")
    }

    @Test func aRegistrationTheTierCannotKeepStillSucceedsAndStaysInMemory() async {
        let (store, tier) = (PersistedQueryStore(), FakeSharedQueries(available: false))
        let exchange = APQExchange(store: store, shared: tier)
        let next = RecordingNext()
        #expect(await served(by: exchange, persisted(typename), next: next).outcome == "200 upstream")
        #expect(tier.registrations == [typenameHash])
        let again = await served(by: exchange, persisted(nil), next: next)
        #expect(again.atOnce && again.outcome == "200 upstream")
    }

    @Test func aMismatchIsRefusedAtOnceAndNothingIsTold() async {
        let tier = FakeSharedQueries()
        let next = RecordingNext()
        let result = await served(by: APQExchange(shared: tier), persisted("{ hello }"), next: next)
        #expect(result.atOnce && result.outcome == "400 PERSISTED_QUERY_HASH_MISMATCH")
        #expect(tier.registrations.isEmpty && next.trace.isEmpty)
    }

    @Test func withoutRegisteringTheTierIsAskedButNeverTold() async {
        let tier = FakeSharedQueries()
        let exchange = APQExchange(shared: tier, registers: false)
        let next = RecordingNext()
        let sent = await served(by: exchange, persisted(typename), next: next)
        #expect(sent.atOnce && sent.outcome == "200 upstream")
        #expect(tier.registrations.isEmpty)
        #expect(await served(by: exchange, persisted(nil), next: next).outcome == "200 PERSISTED_QUERY_NOT_FOUND")
        #expect(tier.lookups == [typenameHash])
    }

    @Test func withoutATierEverythingIsDecidedAtOnce() async {
        let exchange = APQExchange()
        let next = RecordingNext()
        let missing = await served(by: exchange, persisted(nil), next: next)
        #expect(missing.atOnce && missing.outcome == "200 PERSISTED_QUERY_NOT_FOUND")
        let registered = await served(by: exchange, persisted(typename), next: next)
        #expect(registered.atOnce && registered.outcome == "200 upstream")
        let found = await served(by: exchange, persisted(nil), next: next)
        #expect(found.atOnce && found.outcome == "200 upstream")
    }
}
