@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateSubscriptions

/// A clock that moves only when a test says so.
struct MockClock {
    /// The instant every test starts from.
    let start = MonotonicInstant.now
    private(set) var elapsed = Duration.zero

    var now: MonotonicInstant { start + elapsed }

    /// `start` plus `offset`.
    func at(_ offset: Duration) -> MonotonicInstant { start + offset }

    mutating func advance(by duration: Duration) {
        elapsed += duration
    }
}

/// A client protocol state machine driven with a mock clock.
struct ClientHarness<Machine: ClientProtocolStateMachine> {
    var machine: Machine
    var clock = MockClock()

    init(_ machine: Machine) {
        self.machine = machine
    }

    mutating func handle(_ event: ClientConnectionEvent) -> [ClientConnectionAction] {
        machine.handle(event, now: clock.now)
    }

    /// Sends a text message from the client.
    mutating func receive(_ text: String) -> [ClientConnectionAction] {
        handle(.message(text))
    }

    /// Moves the clock and delivers the timer.
    mutating func tick(after duration: Duration) -> [ClientConnectionAction] {
        clock.advance(by: duration)
        return handle(.timer)
    }
}

/// The payload object `{"n": n}`.
func payload(_ n: Int) -> SerializedJSON {
    SerializedJSON(.object([("n", .integer(n))]))
}

/// A subscription request for `field`.
func request(_ field: String = "tick", variables: JSONValue? = nil) -> GraphQLRequest {
    GraphQLRequest(query: "subscription { \(field) }", variables: variables)
}

/// The GraphQL error `{"message": text}`.
func graphQLError(_ text: String) -> JSONValue {
    .object([("message", .string(text))])
}

extension Array where Element == ClientConnectionAction {
    /// The text messages among the actions, in order.
    var sent: [String] {
        compactMap { if case .send(let text) = $0 { text } else { nil } }
    }
}

extension Array where Element == UpstreamSessionAction {
    /// The text messages among the actions, in order.
    var sent: [String] {
        compactMap { if case .send(let text) = $0 { text } else { nil } }
    }
}
