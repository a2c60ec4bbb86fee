import FuzzerSupport
@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import GQLGateSubscriptions

/// One input: a client WebSocket session fed to a protocol state
/// machine. The first byte picks graphql-transport-ws or graphql-ws; the
/// rest, split at NUL bytes, are events: a chunk's first byte picks the event
/// (mostly a text message from the client: the chunk's other bytes), the
/// gateway's answers to what the machine asked (auth, results, completions)
/// come from the chunk too. Checked: nothing is sent after a close, an
/// operation is not started twice while running, only running operations
/// are stopped.
private func fuzzClientProtocols(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: count)
    guard let first = input.first else { return 0 }
    let subprotocol: WebSocketSubprotocol = first & 1 == 0 ? .graphqlTransportWS : .graphqlWS
    var session = Session(machine: makeClientProtocolStateMachine(
        for: subprotocol, settings: ClientProtocolSettings(initTimeout: .seconds(3), keepalive: .seconds(1), maxPerConnection: 3)))
    session.deliver(.opened)
    for chunk in input.dropFirst().split(separator: 0, omittingEmptySubsequences: false) {
        guard let kind = chunk.first else { continue }
        let rest = String(decoding: chunk.dropFirst(), as: UTF8.self)
        session.now += .milliseconds(Int(kind >> 4) * 150)
        switch kind & 0x0F {
        case 0...8: session.deliver(.message(rest))
        case 9: session.deliver(.timer)
        case 10: if let id = session.running.first { session.deliver(.result(id: id, payload: SerializedJSON(trusted: "{\"data\":{}}"))) }
        case 11: if let id = session.running.first { session.running.remove(id); session.deliver(.completed(id: id)) }
        case 12: if let id = session.running.first { session.running.remove(id); session.deliver(.failed(id: id, errors: [.object([("message", .string(rest))])])) }
        case 13: session.deliver(.shutdown)
        case 14: session.deliver(.closed)
        default: session.rejectsInit.toggle()
        }
    }
    return 0
}

/// The connection's side of the session: what the machine asked for, and checks on it.
private struct Session {
    var machine: any ClientProtocolStateMachine
    var now = MonotonicInstant.now
    var running: Set<String> = []
    var closed = false
    var rejectsInit = false

    mutating func deliver(_ event: ClientConnectionEvent) {
        var pending = [event]
        while !pending.isEmpty {
            let actions = machine.handle(pending.removeFirst(), now: now)
            for action in actions {
                switch action {
                case .send:
                    precondition(!closed, "a message was sent after the close")
                case .close:
                    closed = true
                case .authenticate:
                    pending.append(rejectsInit ? .initRejected(message: "no") : .initAccepted(ackPayload: nil))
                case .startOperation(let id, _):
                    precondition(!closed, "an operation started after the close")
                    precondition(running.insert(id).inserted, "operation \(id) started while it runs")
                case .stopOperation(let id):
                    precondition(running.remove(id) != nil, "operation \(id) stopped while not running")
                case .wakeUp:
                    break
                }
            }
        }
    }
}

/// Runs libFuzzer on `fuzzClientProtocols`.
@main
enum ClientProtocolsFuzzer {
    static func main() {
        runFuzzer { fuzzClientProtocols($0, $1) }
    }
}
