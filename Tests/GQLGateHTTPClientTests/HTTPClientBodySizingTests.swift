import GQLGateCompression
import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import Testing

/// A large answer's body is sized by its `Content-Length` before its first
/// bytes; what it holds stays within the budget of the answers in flight and
/// goes back to it.
@Suite struct HTTPClientBodySizingTests {
    /// Pseudo-random digits and letters: gzip shrinks them only partly, so a compressed body is still large.
    static func varied(_ count: Int) -> [UInt8] {
        var state: UInt32 = 2_463_534_242
        return (0..<count).map { _ in
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            return UInt8(0x30 + state % 40)
        }
    }

    @Test func largeAnswersOneAfterAnotherEachFitTheBudgetAgain() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group, maxBytesInFlight: 3 << 19)  // 1.5 MiB
        let body = Self.varied(1 << 20)
        let answer = CannedHTTPPeer.answer(["Content-Type: application/json"], body: body)
        let peer = try CannedHTTPPeer(answers: [answer, answer, answer])
        defer { peer.close() }
        for _ in 0..<3 {
            let received = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(peer.port)/graphql", method: .post))
            #expect(received.body.array == body)
        }
    }

    @Test func anAnswerDeclaringMoreThanTheBudgetHoldsFails() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group, maxBytesInFlight: 1 << 20)
        let peer = try CannedHTTPPeer(answers: [
            CannedHTTPPeer.answer([], body: Self.varied(2 << 20)),
            CannedHTTPPeer.answer([], body: Self.varied(600 << 10)),
        ])
        defer { peer.close() }
        let url = "http://127.0.0.1:\(peer.port)/graphql"
        do {
            _ = try await client.execute(HTTPClientRequest(url: url, method: .post))
            Issue.record("a 2 MiB answer passed a 1 MiB budget")
        } catch let error as HTTPClientError {
            #expect(error.kind == .answerTooLarge)
        }
        let next = try await client.execute(HTTPClientRequest(url: url, method: .post))
        #expect(next.body.array == Self.varied(600 << 10))
    }

    @Test func aCompressedAnswerGrowsPastItsDeclaredLengthAsItDecodes() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let body = Self.varied(512 << 10)
        let compressed = try #require(Compressor.compress(Bytes(body), as: .gzip)).array
        #expect(compressed.count > 64 << 10 && compressed.count < body.count)
        let peer = try CannedHTTPPeer(answers: [CannedHTTPPeer.answer(["Content-Encoding: gzip"], body: compressed)])
        defer { peer.close() }
        let received = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(peer.port)/graphql", method: .post))
        #expect(received.body.array == body)
    }
}
