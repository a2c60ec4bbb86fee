import Testing
@testable import GQLGateHTTPServer

/// The header and body deadlines as a value, with times in seconds made up by each test.
@Suite struct ConnectionDeadlinesTests {
    private static let second: UInt64 = 1_000_000_000

    private func deadlines() -> ConnectionDeadlines {
        ConnectionDeadlines(headerTimeout: 10 * Self.second, bodyTimeout: 60 * Self.second)
    }

    private func at(_ seconds: Double) -> UInt64 {
        UInt64(seconds * Double(Self.second))
    }

    /// What the sweep ends at `now` when the sockets last received data at `receivedAt`.
    private func sweep(_ deadlines: inout ConnectionDeadlines, at now: Double, receivedAt: Double,
                       peerClosed: Bool = false) -> [ConnectionDeadlines.End] {
        let ended = deadlines.probes().compactMap { deadlines.probed($0, receivedAt: at(receivedAt), peerClosed: peerClosed) }
        return ended + deadlines.overdue(at: at(now))
    }

    @Test func aHeaderBlockHasItsTimeFromItsFirstByte() {
        var deadlines = deadlines()
        deadlines.opened(1, fileDescriptor: 7, at: at(0))
        // Nothing received since the accept: idle, not late, however long.
        #expect(sweep(&deadlines, at: 100, receivedAt: 0).isEmpty)
        #expect(deadlines.phase(of: 1) == .awaiting(since: 0))
        // The first byte came at 120: late from 130 on.
        #expect(sweep(&deadlines, at: 121, receivedAt: 120).isEmpty)
        #expect(deadlines.phase(of: 1) == .header(since: at(120)))
        #expect(sweep(&deadlines, at: 129.9, receivedAt: 129).isEmpty)
        #expect(sweep(&deadlines, at: 130, receivedAt: 129.5) == [.init(fileDescriptor: 7, reason: .lateHeader)])
        // Marked closing: swept once, whatever libmicrohttpd reports meanwhile.
        deadlines.headerArrived(1, at: at(130.5))
        #expect(deadlines.phase(of: 1) == .closing)
        #expect(deadlines.overdue(at: at(500)).isEmpty)
    }

    @Test func aBodyHasItsTimeFromTheHeaderBlocksEnd() {
        var deadlines = deadlines()
        deadlines.opened(1, fileDescriptor: 7, at: at(0))
        deadlines.headerArrived(1, at: at(1))
        #expect(deadlines.overdue(at: at(60.9)).isEmpty)
        #expect(deadlines.overdue(at: at(61)) == [.init(fileDescriptor: 7, reason: .lateBody)])
    }

    @Test func anAnswerIsNotLateAndTheNextRequestStartsAfresh() {
        var deadlines = deadlines()
        deadlines.opened(1, fileDescriptor: 7, at: at(0))
        deadlines.headerArrived(1, at: at(1))
        deadlines.answering(1)
        #expect(deadlines.probes().isEmpty)
        #expect(deadlines.overdue(at: at(1000)).isEmpty)
        deadlines.answered(1, at: at(1000))
        // The request's own bytes came before the answer ended: the connection is idle.
        #expect(sweep(&deadlines, at: 2000, receivedAt: 999).isEmpty)
        #expect(deadlines.phase(of: 1) == .awaiting(since: at(1000)))
        // Bytes of the next request.
        #expect(sweep(&deadlines, at: 2001, receivedAt: 2000.5).isEmpty)
        #expect(sweep(&deadlines, at: 2011, receivedAt: 2010) == [.init(fileDescriptor: 7, reason: .lateHeader)])
    }

    @Test func aReceiveWithinTheKernelClocksSlackOfTheWaitsStartIsBeforeIt() {
        var deadlines = deadlines()
        deadlines.answered(1, at: at(0))  // not open: nothing happens
        #expect(deadlines.count == 0)
        deadlines.opened(1, fileDescriptor: 7, at: at(5))
        #expect(sweep(&deadlines, at: 6, receivedAt: 5.01).isEmpty)
        #expect(deadlines.phase(of: 1) == .awaiting(since: at(5)))
    }

    @Test func aProbeOfAConnectionThatClosedOrMovedOnIsIgnored() {
        var deadlines = deadlines()
        deadlines.opened(1, fileDescriptor: 7, at: at(0))
        let probes = deadlines.probes()
        // Closed, and a new connection got the same handle and descriptor.
        deadlines.closed(1)
        deadlines.opened(1, fileDescriptor: 7, at: at(0))
        for probe in probes { #expect(deadlines.probed(probe, receivedAt: at(3), peerClosed: true) == nil) }
        #expect(deadlines.phase(of: 1) == .awaiting(since: 0))
        // Answered meanwhile: a client that closes its sending side still reads the answer.
        let again = deadlines.probes()
        deadlines.headerArrived(1, at: at(4))
        deadlines.answering(1)
        for probe in again { #expect(deadlines.probed(probe, receivedAt: at(3), peerClosed: true) == nil) }
        #expect(deadlines.phase(of: 1) == .answering)
    }

    @Test func aClientThatClosedBeforeItsRequestWasInEndsItsConnectionWithoutWaiting() {
        var deadlines = deadlines()
        for key in 1...3 { deadlines.opened(UInt(key), fileDescriptor: Int32(key), at: at(0)) }
        deadlines.headerArrived(2, at: at(1))
        deadlines.headerArrived(3, at: at(1))
        deadlines.answering(3)
        let ended = sweep(&deadlines, at: 2, receivedAt: 1, peerClosed: true)
        #expect(Set(ended.map(\.fileDescriptor)) == [1, 2])
        #expect(ended.allSatisfy { $0.reason == .clientClosed })
        #expect(deadlines.phase(of: 3) == .answering)
        #expect(sweep(&deadlines, at: 3, receivedAt: 1, peerClosed: true).isEmpty)
    }

    @Test func zeroMeansNoLimit() {
        var deadlines = ConnectionDeadlines(headerTimeout: 0, bodyTimeout: 0)
        deadlines.opened(1, fileDescriptor: 7, at: at(0))
        #expect(sweep(&deadlines, at: 1000, receivedAt: 500).isEmpty)
        #expect(deadlines.phase(of: 1) == .awaiting(since: 0))
        deadlines.headerArrived(1, at: at(1))
        #expect(deadlines.overdue(at: at(1_000_000)).isEmpty)
        deadlines.closed(1)
        #expect(deadlines.count == 0)
    }
}
