import GQLGateCore

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
