@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

private struct Boom: Error, Equatable {}

/// What a consumer was handed, as text: bodies, then `end` or `error`.
private final class Received: Sendable {
    private let events = Lock<[String]>([])

    var consumer: ResultChannel.Consumer {
        { [self] event in
            events.withLock { events in
                switch event {
                case .result(let response): events.append(response.body.string)
                case .finished(nil): events.append("end")
                case .finished(.some): events.append("error")
                }
            }
            return true
        }
    }

    var all: [String] { events.withLock { $0 } }
}

/// Counts how often the producer was told the stream ended.
private final class Terminations: Sendable {
    private let count = Lock(0)

    func attach(to channel: ResultChannel) {
        channel.setOnTermination { [self] in count.withLock { $0 += 1 } }
    }

    var value: Int { count.withLock { $0 } }
}

@Suite("ResultChannel")
struct ResultChannelTests {
    @Test("results yielded before the consumer attaches reach it first, in order, then live ones")
    func heldThenLive() {
        let channel = ResultChannel(bufferLimit: 8)
        let received = Received()
        #expect(channel.yield(response("1")))
        #expect(channel.yield(response("2")))
        channel.consume(received.consumer)
        #expect(channel.yield(response("3")))
        #expect(received.all == ["1", "2", "3"])
    }

    @Test("finishing ends the consumer's stream and tells the producer once")
    func finish() {
        let channel = ResultChannel(bufferLimit: 8)
        let terminations = Terminations()
        terminations.attach(to: channel)
        let received = Received()
        channel.consume(received.consumer)
        channel.yield(response("1"))
        channel.finish(throwing: Boom())
        channel.finish()
        #expect(!channel.yield(response("2")))
        #expect(received.all == ["1", "error"])
        #expect(terminations.value == 1)
    }

    @Test("a stream finished before anyone consumed it is handed over whole")
    func finishedBeforeConsumed() {
        let channel = ResultChannel(bufferLimit: 8)
        let terminations = Terminations()
        terminations.attach(to: channel)
        channel.yield(response("1"))
        channel.finish()
        #expect(terminations.value == 0)
        let received = Received()
        channel.consume(received.consumer)
        #expect(received.all == ["1", "end"])
        #expect(terminations.value == 1)
    }

    @Test("a cancelled channel drops later results and tells the producer once")
    func cancel() {
        let channel = ResultChannel(bufferLimit: 8)
        let terminations = Terminations()
        terminations.attach(to: channel)
        let received = Received()
        channel.consume(received.consumer)
        channel.cancel()
        channel.cancel()
        #expect(!channel.yield(response("1")))
        #expect(received.all.isEmpty)
        #expect(terminations.value == 1)
    }

    @Test("past the buffer limit, results for a consumer not yet attached are dropped")
    func bufferLimit() {
        let channel = ResultChannel(bufferLimit: 2)
        #expect(channel.yield(response("1")))
        #expect(channel.yield(response("2")))
        #expect(!channel.yield(response("3")))
    }

    @Test("a channel dropped without a consumer still tells the producer")
    func droppedUnconsumed() {
        let terminations = Terminations()
        do {
            let channel = ResultChannel(bufferLimit: 2)
            terminations.attach(to: channel)
            channel.yield(response("1"))
        }
        #expect(terminations.value == 1)
    }

    @Test("iterated as a ResultStream, it yields every result and ends; leaving early cancels it")
    func iteration() async throws {
        let channel = ResultChannel(bufferLimit: 8)
        channel.yield(response("1"))
        channel.yield(response("2"))
        channel.finish()
        var bodies: [String] = []
        for try await result in ResultStream(channel) { bodies.append(result.body.string) }
        #expect(bodies == ["1", "2"])

        let open = ResultChannel(bufferLimit: 8)
        let terminations = Terminations()
        terminations.attach(to: open)
        open.yield(response("a"))
        for try await result in ResultStream(open) {
            #expect(result.body.string == "a")
            break
        }
        #expect(terminations.value == 1)
    }

    @Test("iterated with its buffer full, the producer learns the consumer is too slow")
    func slowIterator() {
        let channel = ResultChannel(bufferLimit: 1)
        let iterator = ResultStream(channel).makeAsyncIterator()
        #expect(channel.yield(response("1")))
        #expect(!channel.yield(response("2")))
        withExtendedLifetime(iterator) {}
    }
}
