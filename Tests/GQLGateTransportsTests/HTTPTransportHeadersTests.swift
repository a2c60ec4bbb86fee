import GQLGateCore
import GQLGateEventLoop
import GQLGateHTTPClient
import GQLGatePipeline
@testable import GQLGateTransports
import Testing

/// A client for building transports. These tests never send a request, so one
/// loop serves the whole file and is left running until the process exits.
private let client = HTTPClient(group: EventLoopGroup(count: 1))

/// The headers `HTTPTransport` sends upstream for a client request with `headers`.
private func upstreamLines(clientHeaders: HTTPHeaders, requestID: String = "req-42",
                           forwarded: [String]? = nil, delivery: ResultDelivery = .single) -> [String] {
    let settings = forwarded.map { HTTPTransport.Settings(url: "http://127.0.0.1:1/graphql", forwardedHeaders: $0) }
        ?? HTTPTransport.Settings(url: "http://127.0.0.1:1/graphql")
    let transport = HTTPTransport(client: client, settings: settings)
    let operation = Operation(request: GraphQLRequest(query: "{ a }"), clientTransport: .httpPost, delivery: delivery,
                              headers: clientHeaders, requestID: requestID)
    return transport.upstreamHeaders(for: operation).map { "\($0.name): \($0.value)" }
}

@Suite struct HTTPTransportHeadersTests {
    @Test func sendsJSONWithTheDefaultAcceptAndTheRequestID() {
        #expect(upstreamLines(clientHeaders: ["Content-Type": "application/json; charset=utf-8", "Host": "gateway:8080"]) == [
            "Content-Type: application/json", "Accept: application/graphql-response+json, application/json;q=0.9",
            "X-Request-Id: req-42",
        ])
    }

    /// The endpoint answers each client in its media type, so the upstream is asked for either.
    @Test func asksForEitherGraphQLMediaTypeWhateverTheClientsAccept() {
        for accept in ["application/json", "application/graphql-response+json", "*/*", "text/html"] {
            #expect(upstreamLines(clientHeaders: ["accept": accept]) == [
                "Content-Type: application/json", "Accept: application/graphql-response+json, application/json;q=0.9",
                "X-Request-Id: req-42",
            ])
        }
    }

    /// Incremental delivery is the upstream's to produce.
    @Test func keepsAClientsAcceptThatNamesMultipartMixed() {
        #expect(upstreamLines(clientHeaders: ["accept": "multipart/mixed;deferSpec=20220824, application/json"]) == [
            "Content-Type: application/json", "Accept: multipart/mixed;deferSpec=20220824, application/json", "X-Request-Id: req-42",
        ])
    }

    @Test func streamedDeliveriesAskTheUpstreamForOneJSONAnswer() {
        for (delivery, accept) in [(ResultDelivery.serverSentEvents, "text/event-stream"),
                                   (.multipart, "multipart/mixed;subscriptionSpec=\"1.0\", application/json")] {
            #expect(upstreamLines(clientHeaders: ["Accept": accept], delivery: delivery) == [
                "Content-Type: application/json", "Accept: application/graphql-response+json, application/json;q=0.9",
                "X-Request-Id: req-42",
            ])
        }
    }

    @Test func passesTheDefaultForwardListWhateverTheCase() {
        let client: HTTPHeaders = [
            "ACCEPT-LANGUAGE": "de", "traceparent": "00-abc-def-01", "User-Agent": "curl", "Tracestate": "k=v",
            "Cookie": "s=1", "X-Api-Key": "client-key",
        ]
        #expect(upstreamLines(clientHeaders: client) == [
            "Content-Type: application/json", "Accept: application/graphql-response+json, application/json;q=0.9",
            "X-Request-Id: req-42", "ACCEPT-LANGUAGE: de", "traceparent: 00-abc-def-01", "Tracestate: k=v",
        ])
    }

    @Test func authorizationIsNotPassedByDefault() {
        let lines = upstreamLines(clientHeaders: ["Authorization": "Bearer client-token", "Proxy-Authorization": "Basic eA=="])
        #expect(!lines.contains { $0.lowercased().contains("authorization") })
    }

    @Test func aConfiguredListReplacesTheDefault() {
        let client: HTTPHeaders = ["Accept-Language": "de", "X-Tenant": "t1", "x-tenant": "t2", "Authorization": "Bearer t"]
        #expect(upstreamLines(clientHeaders: client, forwarded: ["x-tenant", "authorization"]) == [
            "Content-Type: application/json", "Accept: application/graphql-response+json, application/json;q=0.9",
            "X-Request-Id: req-42", "X-Tenant: t1", "x-tenant: t2", "Authorization: Bearer t",
        ])
        #expect(upstreamLines(clientHeaders: client, forwarded: []).count == 3)
    }

    @Test func forwardListNeverDuplicatesHeadersTheTransportSetsOrFramingHeaders() {
        let transport = HTTPTransport(client: client, settings: .init(
            url: "http://127.0.0.1:1/graphql",
            forwardedHeaders: ["x-request-id", "content-type", "accept", "content-length", "host", "accept-encoding", "x-tenant"]))
        let headers = transport.upstreamHeaders(for: Operation(
            request: GraphQLRequest(query: "{ a }"), clientTransport: .httpGet,
            headers: ["X-Request-Id": "abc", "Content-Type": "application/json; charset=utf-8", "Accept": "application/json",
                      "Content-Length": "17", "Host": "gateway", "Accept-Encoding": "gzip, compress", "X-Tenant": "t1"],
            requestID: "abc"))
        #expect(headers.values(for: "x-request-id") == ["abc"])
        #expect(headers.values(for: "content-type") == ["application/json"])
        #expect(headers.values(for: "accept") == [Operation.gatewayAccept])
        #expect(headers.values(for: "content-length").isEmpty)
        #expect(headers.values(for: "host").isEmpty)
        #expect(headers.values(for: "accept-encoding").isEmpty)  // the upstream's codings are libcurl's
        #expect(headers.values(for: "x-tenant") == ["t1"])
    }

    @Test func settingsDefaults() {
        let settings = HTTPTransport.Settings(url: "http://u/graphql")
        #expect(settings.forwardedHeaders == ["accept-language", "traceparent", "tracestate"])
        #expect(settings.timeout == .seconds(10))
        #expect(settings.connectTimeout == .seconds(2))
        #expect(settings.compression)
        #expect(settings.maxResponseBytes == 64 << 20)
    }
}

@Suite struct HTTPTransportCredentialsAndDeadlineTests {
    private let transport = HTTPTransport(client: client, settings: HTTPTransport.Settings(
        url: "http://127.0.0.1:1/graphql", timeout: .seconds(10), forwardedHeaders: ["authorization"]))

    @Test func credentialHeadersReplaceForwardedOnes() {
        var operation = Operation(request: GraphQLRequest(query: "{ a }"), clientTransport: .httpPost,
                                  headers: ["Authorization": "Bearer client"], requestID: "r")
        operation.upstreamHeaders = ["Authorization": "Bearer gateway", "X-Api-Key": "upstream-key"]
        let sent = transport.upstreamHeaders(for: operation)
        #expect(sent.values(for: "authorization") == ["Bearer gateway"])
        #expect(sent["x-api-key"] == "upstream-key")
    }

    @Test func attemptTimeoutIsCutToTheDeadline() throws {
        var operation = Operation(request: GraphQLRequest(query: "{ a }"), clientTransport: .httpPost, headers: [:], requestID: "r")
        #expect(try transport.attemptTimeout(for: operation, now: 5) == .seconds(10))
        operation.deadline = 3_000_000_000
        #expect(try transport.attemptTimeout(for: operation, now: 1_000_000_000) == .seconds(2))
        #expect(throws: GatewayError.self) { try transport.attemptTimeout(for: operation, now: 3_000_000_000) }
    }
}
