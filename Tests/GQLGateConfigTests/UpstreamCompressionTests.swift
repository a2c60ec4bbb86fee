import Testing
@testable import GQLGateConfig

@Suite struct UpstreamCompressionTests {
    @Test func defaultsToAuto() {
        #expect(GatewayConfig().upstream.compression == .auto)
    }

    @Test(arguments: [("true", UpstreamCompression.on), ("false", .off), ("auto", .auto)])
    func readsEveryValue(text: String, expected: UpstreamCompression) throws {
        #expect(try load("upstream: {compression: \(text)}").upstream.compression == expected)
    }

    @Test func rejectsOtherValues() {
        #expect(loadError("upstream: {compression: gzip}")
            == #"upstream.compression: "gzip" is not valid: expected one of auto, true, false"#)
    }

    @Test(arguments: [
        "http://127.0.0.1:4000/graphql", "http://127.3.4.5/graphql", "https://localhost/graphql", "http://LOCALHOST:80",
        "http://[::1]:4000/graphql", "http://user:secret@127.0.0.1:4000/graphql", "http://127.0.0.1?x=1",
    ])
    func autoDoesNotAskALoopbackUpstream(url: String) {
        #expect(!UpstreamCompression.auto.asks(upstreamURL: url))
        #expect(UpstreamCompression.on.asks(upstreamURL: url))
    }

    @Test(arguments: [
        "https://api.example/graphql", "http://10.0.0.7:4000/graphql", "http://[2001:db8::1]/graphql",
        "http://127.0.0.1.example/graphql", "http://localhost@api.example/graphql",
    ])
    func autoAsksARemoteUpstream(url: String) {
        #expect(UpstreamCompression.auto.asks(upstreamURL: url))
        #expect(!UpstreamCompression.off.asks(upstreamURL: url))
    }
}
