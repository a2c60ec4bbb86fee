@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
import GQLGateHTTPServer
@_spi(GQLGateInternals) import GQLGatePipeline

/// Cache hits answered again from the request's bytes: a request whose
/// `ReplayKey` matches one the pipeline answered at once from the memory
/// cache gets that answer again, as it was sent (compressed as it was), with `Age` brought up to date and its own
/// `X-Request-Id`, without decoding it or running a stage, while the
/// hit's `CacheHitTicket` holds and the schema held is the same. The facts the first
/// request recorded are recorded again, so that metrics and the access line read the same.
///
/// Only for a pipeline whose stages before the cache give the same outcome
/// to the same bytes (`HitReplayAssembly`); a request whose stages recorded a fact its
/// record does not keep is not remembered. Holds at most `mostEntries`
/// requests and `mostBytes` of keys and answers; when full, it starts again empty.
final class HitReplay: Sendable {
    /// What a remembered hit's first request recorded: the facts told to the
    /// recorder, and the facts as its record kept them.
    final class Facts: Sendable {
        let told: [OperationFact]
        let kept: OperationRecord.Snapshot

        init(told: [OperationFact], kept: OperationRecord.Snapshot) {
            self.told = told
            self.kept = kept
        }
    }

    private final class Entry: Sendable {
        let response: ServerResponse
        /// Where `Age` and `X-Request-Id` are in the response's fields.
        let agePosition: Int, requestIDPosition: Int
        let ticket: any CacheHitTicket
        let facts: Facts
        let schema: LoadedSchema?
        let bytes: Int

        init(response: ServerResponse, agePosition: Int, requestIDPosition: Int, ticket: any CacheHitTicket, facts: Facts,
             schema: LoadedSchema?, bytes: Int) {
            self.response = response
            self.agePosition = agePosition
            self.requestIDPosition = requestIDPosition
            self.ticket = ticket
            self.facts = facts
            self.schema = schema
            self.bytes = bytes
        }
    }

    private struct State: Sendable {
        var entries: [ReplayKey: Entry] = [:]
        var bytes = 0
    }

    /// The most requests remembered.
    static let mostEntries = 4_096

    private let state = Lock(State())
    private let mostBytes: Int
    private let schema: GatewaySchema?

    /// - Parameters:
    ///   - mostBytes: the most bytes of keys and answers held.
    ///   - schema: the schema the stages before the cache read, when one is held.
    init(mostBytes: Int, schema: GatewaySchema?) {
        self.mostBytes = mostBytes
        self.schema = schema
    }

    /// The answer remembered for `key` with the request id `requestID` gives, `Age` brought up to date and the hit
    /// counted by the cache, with the facts its first request recorded; nil
    /// when none is remembered or it no longer holds (then it is forgotten).
    func answer(for key: ReplayKey, requestID: () -> String) -> (response: ServerResponse, facts: Facts)? {
        guard let entry = state.withLock({ $0.entries[key] }) else { return nil }
        guard entry.schema === schema?.current, let age = entry.ticket.renewedAge() else {
            state.withLock { state in
                if let dropped = state.entries.removeValue(forKey: key) { state.bytes -= dropped.bytes }
            }
            return nil
        }
        var response = entry.response
        response.headers.setValue(String(max(0, age.components.seconds)), at: entry.agePosition)
        response.headers.setValue(requestID(), at: entry.requestIDPosition)
        return (response, entry.facts)
    }

    /// Remembers `response`, sent at once to the request of `key` with an answer from the memory cache
    /// (`ticket`), when `facts` tell everything its stages recorded.
    func remember(_ response: ServerResponse, for key: ReplayKey, ticket: any CacheHitTicket, facts: OperationRecord.Snapshot) {
        guard let replayed = Self.replayed(facts), let agePosition = response.headers.position(of: "Age"),
              let requestIDPosition = response.headers.position(of: "X-Request-Id")
        else { return }
        let entry = Entry(response: response, agePosition: agePosition, requestIDPosition: requestIDPosition, ticket: ticket,
                          facts: Facts(told: replayed, kept: facts), schema: schema?.current,
                          bytes: key.byteCount + response.body.count + 64 * response.headers.count)
        guard entry.bytes <= mostBytes else { return }
        state.withLock { state in
            if let replaced = state.entries[key] { state.bytes -= replaced.bytes }
            if state.entries.count >= Self.mostEntries || state.bytes + entry.bytes > mostBytes {
                state.entries.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            state.entries[key] = entry
            state.bytes += entry.bytes
        }
    }

    /// The facts to record again for a hit whose record kept `facts`; nil
    /// when they do not tell everything that was recorded.
    private static func replayed(_ facts: OperationRecord.Snapshot) -> [OperationFact]? {
        guard facts.keepsEveryFact, facts.cache == .hit, let kind = facts.kind, let sha256 = facts.documentSHA256, facts.span == nil,
              facts.attempts == 0, facts.upstreamStatus == nil, facts.shed == nil, facts.waits.isEmpty, facts.reconnects.isEmpty
        else { return nil }
        var replayed: [OperationFact] = [.operationSelected(kind: kind, name: facts.operationName, documentSHA256: sha256)]
        if let id = facts.persistedID { replayed.append(.persistedDocumentUsed(id: id)) }
        if let cost = facts.cost { replayed.append(.costEstimated(cost, operationName: facts.operationName)) }
        replayed.append(.cacheServed(.hit))
        return replayed
    }
}
