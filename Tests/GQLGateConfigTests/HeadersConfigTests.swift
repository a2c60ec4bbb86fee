import Testing
@testable import GQLGateConfig

@Suite struct HeadersConfigTests {
    @Test func defaults() {
        let headers = GatewayConfig().headers
        #expect(headers.forward == ["accept-language", "traceparent", "tracestate"])
        #expect(!headers.forwardClientAuthorization)
    }

    @Test func forwardReplacesTheDefaultListAndIsLowercased() throws {
        let headers = try load("headers: {forward: [Accept-Language, X-Custom], forward_client_authorization: true}").headers
        #expect(headers.forward == ["accept-language", "x-custom"])
        #expect(headers.forwardClientAuthorization)
    }

    @Test func rejectsBadNames() {
        #expect(loadError("headers: {forward: [\"bad header\"]}")
            == #"headers.forward[0]: "bad header" is not valid: expected a header name (letters, digits and !#$%&'*+-.^_`|~)"#)
        #expect(loadError("headers: {forward: accept-language}")
            == #"headers.forward: "accept-language" is not valid: expected a list of header names"#)
    }
}
