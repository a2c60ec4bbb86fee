@_spi(GQLGateInternals) import GQLGatePipeline
@_spi(GQLGateInternals) import GQLGateCore

/// A count that tests' callbacks add to from any thread.
final class Counter: Sendable {
    private let count = Lock(0)

    var value: Int { count.withLock { $0 } }

    func add() {
        count.withLock { $0 += 1 }
    }
}

/// Values tests' callbacks record from any thread, in order.
final class Recorded<Element: Sendable>: Sendable {
    private let values = Lock<[Element]>([])

    var all: [Element] { values.withLock { $0 } }

    func add(_ value: Element) {
        values.withLock { $0.append(value) }
    }
}

/// A recorder for tests: the facts stages stated, in order.
final class RecordedFacts: FactRecorder, Sendable {
    private let facts = Lock<(operation: [OperationFact], gateway: [GatewayFact])>(([], []))

    /// What happened to operations whose records report here.
    var operationFacts: [OperationFact] { facts.withLock { $0.operation } }
    /// What happened to the gateway.
    var gatewayFacts: [GatewayFact] { facts.withLock { $0.gateway } }

    func record(_ fact: OperationFact, in record: OperationRecord) {
        facts.withLock { $0.operation.append(fact) }
    }

    func record(_ fact: GatewayFact) {
        facts.withLock { $0.gateway.append(fact) }
    }

    /// `operation`, with a record that reports here.
    func tracking(_ operation: Operation) -> Operation {
        var tracked = Operation(
            request: operation.request, clientTransport: operation.clientTransport, delivery: operation.delivery, headers: operation.headers,
            requestID: operation.requestID, originalBody: nil, clientID: operation.clientID, facts: OperationRecord(recorder: self))
        tracked.document = operation.document
        tracked.selected = operation.selected
        return tracked
    }

    /// How many `.shed` facts said `reason`.
    func sheds(_ reason: ShedReason) -> Int {
        operationFacts.filter { if case .shed(reason) = $0 { true } else { false } }.count
    }
}
