@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline

/// An operation after `DocumentExchange`: parsed, analysed, operation chosen.
func analysed(_ query: String, operationName: String? = nil, variables: JSONValue? = nil, headers: HTTPHeaders = [:],
              requestID: String = "req-1", documents: DocumentCache = DocumentCache()) throws -> Operation {
    var operation = Operation(request: GraphQLRequest(query: query, operationName: operationName, variables: variables),
                              clientTransport: .httpPost, headers: headers, requestID: requestID)
    let document = try documents.analyse(query)
    operation.document = document
    operation.selected = try document.selectOperation(named: operationName)
    return operation
}

/// A fake upstream for the caching exchanges: answers each call with the
/// next scripted answer (the last one repeats), and records the query texts
/// it was sent.
final class ScriptedUpstream: Sendable {
    struct Answer: Sendable {
        var status = 200
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        var body: String
        /// Thrown instead of answering.
        var error: GatewayError?
    }

    private let state: Lock<(answers: [Answer], queries: [String])>

    init(_ answers: [Answer]) {
        state = Lock((answers, []))
    }

    convenience init(_ bodies: String...) {
        self.init(bodies.map { Answer(body: $0) })
    }

    /// Query texts received, in order.
    var queries: [String] { state.withLock { $0.queries } }
    var calls: Int { queries.count }

    var next: ExchangeNext {
        { operation in
            let answer = self.state.withLock { state -> Answer in
                state.queries.append(operation.request.query ?? "")
                return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
            }
            if let error = answer.error { throw error }
            return .single(GraphQLResponse(status: answer.status, headers: answer.headers, body: Bytes(answer.body), source: .upstream))
        }
    }
}

/// Status, `X-Cache`, `Age` and body of `exchange`'s answer to `operation`.
func served(by exchange: some Exchange, _ operation: Operation, upstream: ScriptedUpstream) async throws -> String {
    let response = try require_(await exchange.handle(operation, next: upstream.next).first())
    let age = response.headers["Age"].map { " Age: \($0)" } ?? ""
    return "\(response.status) \(response.headers["X-Cache"] ?? "-")\(age) \(response.body.string)"
}

/// `value`, or a thrown error when it is nil.
func require_<T>(_ value: T?) throws -> T {
    guard let value else { throw MissingValue() }
    return value
}

struct MissingValue: Error {}

/// Polls `condition` (yielding, then briefly sleeping) until it holds; false after about two seconds.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<2000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}
