@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// Lines written by fakes as operations pass, read back in one `#expect`.
final class Trace: Sendable {
    private let lines = Lock<[String]>([])

    func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var recorded: [String] { lines.withLock { $0 } }
}

/// A gateway-style answer whose body is `body`.
func response(_ body: String, status: Int = 200, headers: HTTPHeaders = ["Content-Type": "application/json"],
              source: GraphQLResponse.Source = .upstream) -> GraphQLResponse {
    GraphQLResponse(status: status, headers: headers, body: Bytes(body), source: source)
}

/// An operation as `GraphQLEndpoint` builds it for a POST with `body`
/// (or a GET when `body` is nil).
func operation(_ query: String?, operationName: String? = nil, variables: JSONValue? = nil,
               transport: ClientTransport = .httpPost, headers: HTTPHeaders = [:], requestID: String = "req-1",
               body: String? = nil) -> Operation {
    Operation(request: GraphQLRequest(query: query, operationName: operationName, variables: variables),
              clientTransport: transport, headers: headers, requestID: requestID, originalBody: body.map { Bytes($0) })
}

/// The bodies of every result of `stream`, in order.
func bodies(of stream: ResultStream) async throws -> [String] {
    var out: [String] = []
    for try await result in stream { out.append(result.body.string) }
    return out
}
