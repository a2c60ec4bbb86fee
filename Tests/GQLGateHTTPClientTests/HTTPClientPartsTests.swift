import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import Testing

/// A multipart answer handed on part by part as the upstream sends it.
@Suite struct HTTPClientPartsTests {
    static let head = "HTTP/1.1 200 OK\r\nContent-Type: multipart/mixed; boundary=\"-\"\r\nTransfer-Encoding: chunked\r\n\r\n"

    /// `text` as one HTTP/1.1 chunk.
    static func chunk(_ text: String) -> String {
        String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }

    /// A part as Strawberry writes it, with the delimiter after it.
    static func part(_ json: String) -> String {
        "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n" + json + "\r\n---"
    }

    /// A request to `peer`. Its timeout only stops a hang: a sanitizer run of every suite at
    /// once has kept a test's steps waiting over 10 s for a thread of the shared pool.
    private func request(_ peer: LiveHTTPPeer, maxResponseBytes: Int = 64 << 20, readsParts: Bool = true) -> HTTPClientRequest {
        HTTPClientRequest(url: "http://127.0.0.1:\(peer.port)/graphql", method: .post, body: Bytes("{}"), timeout: .seconds(60),
                          maxResponseBytes: maxResponseBytes, readsParts: readsParts)
    }

    /// Runs `body` with a one-loop client and a live peer; closes the peer, then stops the loop.
    private func withPeer(_ body: (HTTPClient, LiveHTTPPeer) async throws -> Void) async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let peer = try LiveHTTPPeer()
        defer { peer.close() }
        try await body(client, peer)
    }

    @Test func theHeadAndEachPartComeBeforeTheUpstreamSentTheNext() async throws {
        try await withPeer { client, peer in
            let answer = Task { try await client.execute(request(peer)) }
            #expect(await eventually { peer.hasRequest })
            peer.send(Self.head + Self.chunk("---" + Self.part(#"{"data":{"a":1},"hasNext":true}"#)))
            let response = try await answer.value
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "multipart/mixed; boundary=\"-\"")
            #expect(response.body.count == 0)
            let parts = try #require(response.parts)
            #expect(try await parts.next()?.string == #"{"data":{"a":1},"hasNext":true}"#)
            peer.send(Self.chunk(Self.part(#"{"incremental":[],"hasNext":false}"#)))
            #expect(try await parts.next()?.string == #"{"incremental":[],"hasNext":false}"#)
            peer.send(Self.chunk("--\r\n") + "0\r\n\r\n")
            #expect(try await parts.next() == nil)
        }
    }

    @Test func anotherAnswerIsGatheredWhole() async throws {
        try await withPeer { client, peer in
            peer.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"data\":{}}")
            let response = try await client.execute(request(peer))
            #expect(response.parts == nil)
            #expect(response.body.string == #"{"data":{}}"#)
        }
    }

    @Test func partsWaitingUnreadPauseTheTransferAndAllComeIntactOnceRead() async throws {
        try await withPeer { client, peer in
            let answer = Task { try await client.execute(request(peer)) }
            #expect(await eventually { peer.hasRequest })
            let filler = String(repeating: "x", count: 32 << 10)
            peer.send(Self.head + Self.chunk("---"))
            for index in 0..<64 {
                peer.send(Self.chunk(Self.part(#"{"n":\#(index),"f":"\#(filler)","hasNext":true}"#)))
            }
            peer.send(Self.chunk("--\r\n") + "0\r\n\r\n")
            let parts = try #require(try await answer.value.parts)
            // Read nothing until more than the pause threshold was sent.
            #expect(await eventually { peer.bytesSent > 1 << 20 })
            var numbers: [Int] = []
            while let part = try await parts.next() {
                #expect(part.string == #"{"n":\#(numbers.count),"f":"\#(filler)","hasNext":true}"#)
                numbers.append(numbers.count)
            }
            #expect(numbers == Array(0..<64))
        }
    }

    @Test func thePartsTogetherStayWithinMaxResponseBytes() async throws {
        try await withPeer { client, peer in
            peer.send(Self.head + Self.chunk("---" + Self.part(#"{"a":1}"#)))
            let parts = try #require(try await client.execute(request(peer, maxResponseBytes: 300)).parts)
            #expect(try await parts.next()?.string == #"{"a":1}"#)
            peer.send(Self.chunk(Self.part(String(repeating: " ", count: 300) + "{}")))
            await #expect { try await parts.next() } throws: { ($0 as? HTTPClientError)?.kind == .answerTooLarge }
        }
    }

    @Test func anAnswerCutBeforeItsCloseDelimiterFails() async throws {
        try await withPeer { client, peer in
            peer.send(Self.head + Self.chunk("---" + Self.part(#"{"a":1}"#)) + "0\r\n\r\n")
            let parts = try #require(try await client.execute(request(peer)).parts)
            #expect(try await parts.next()?.string == #"{"a":1}"#)
            await #expect { try await parts.next() } throws: { error in
                guard let error = error as? HTTPClientError else { return false }
                return error.kind == .failedAfterSend && error.message.contains("close delimiter")
            }
        }
    }

    @Test func droppingThePartsEndsTheTransfer() async throws {
        try await withPeer { client, peer in
            peer.send(Self.head + Self.chunk("---" + Self.part(#"{"hasNext":true}"#)))
            var response: HTTPClientResponse? = try await client.execute(request(peer))
            #expect(response?.parts != nil)
            response = nil
            #expect(await eventually { peer.clientClosed })
        }
    }
}

/// Polls `condition` (briefly sleeping between tries) until it holds; false after about five seconds.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<5000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}
