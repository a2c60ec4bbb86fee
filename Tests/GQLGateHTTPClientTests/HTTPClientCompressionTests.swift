import GQLGateCompression
import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import Testing

/// Compressed upstream answers: asked for, decoded by libcurl, and bounded
/// after decoding.
@Suite struct HTTPClientCompressionTests {
    static let json = Array(String(repeating: #"{"data":{"hero":{"name":"R2-D2","id":"2001"}}}"#, count: 200).utf8)

    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        try #require(Compressor.compress(Bytes(bytes), as: .gzip)).array
    }

    @Test func aCompressedAnswerIsAskedForAndComesDecodedWithoutItsCoding() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let peer = try CannedHTTPPeer(answers: [
            CannedHTTPPeer.answer(["Content-Type: application/json", "Content-Encoding: gzip", "Vary: Accept-Encoding"],
                                  body: try Self.gzip(Self.json)),
        ])
        defer { peer.close() }
        let answer = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(peer.port)/graphql", method: .post))
        #expect(answer.body.array == Self.json)
        #expect(answer.headers["content-encoding"] == nil)
        #expect(answer.headers["content-type"] == "application/json")
        #expect(answer.headers["vary"] == "Accept-Encoding")
        let asked = peer.requests.first?.split(separator: "\r\n").first { $0.hasPrefix("accept-encoding:") }
        #expect(asked?.contains("gzip") == true)
    }

    @Test func withoutCompressionNothingIsAskedForAndTheBodyComesAsSent() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let compressed = try Self.gzip(Self.json)
        let answer = CannedHTTPPeer.answer(["Content-Encoding: gzip"], body: compressed)
        let peer = try CannedHTTPPeer(answers: [answer, answer, answer])
        defer { peer.close() }
        let url = "http://127.0.0.1:\(peer.port)/graphql"
        // One loop, one pooled handle: switched off, on and off again.
        let plain = try await client.execute(HTTPClientRequest(url: url, method: .post, acceptsCompression: false))
        let decoded = try await client.execute(HTTPClientRequest(url: url, method: .post))
        let plainAgain = try await client.execute(HTTPClientRequest(url: url, method: .post, acceptsCompression: false))
        #expect(plain.body.array == compressed)
        #expect(plain.headers["content-encoding"] == "gzip")
        #expect(decoded.body.array == Self.json)
        #expect(plainAgain.body.array == compressed)
        #expect(peer.requests.map { $0.contains("\r\naccept-encoding:") } == [false, true, false])
    }

    @Test func aBodyThatDecodesPastTheLimitEndsTheTransfer() async throws {
        let group = EventLoopGroup(count: 1)
        defer { group.shutdownAndWait() }
        let client = HTTPClient(group: group)
        let bomb = try Self.gzip([UInt8](repeating: 0x20, count: 4 << 20))  // about 4 KiB that decode to 4 MiB
        let peer = try CannedHTTPPeer(answers: [
            CannedHTTPPeer.answer(["Content-Encoding: gzip"], body: bomb),
            CannedHTTPPeer.answer([], body: Array(repeating: 0x61, count: 1000)),
            CannedHTTPPeer.answer([], body: Array(repeating: 0x61, count: 1001)),
        ])
        defer { peer.close() }
        let url = "http://127.0.0.1:\(peer.port)/graphql"
        do {
            _ = try await client.execute(HTTPClientRequest(url: url, method: .post, maxResponseBytes: 64 << 10))
            Issue.record("an answer decoding to 4 MiB passed a 64 KiB limit")
        } catch let error as HTTPClientError {
            #expect(error.kind == .answerTooLarge)
        }
        let atLimit = try await client.execute(HTTPClientRequest(url: url, method: .post, maxResponseBytes: 1000))
        #expect(atLimit.body.count == 1000)
        do {
            _ = try await client.execute(HTTPClientRequest(url: url, method: .post, maxResponseBytes: 1000))
            Issue.record("a body one byte over the limit passed")
        } catch let error as HTTPClientError {
            #expect(error.kind == .answerTooLarge)
        }
    }
}
