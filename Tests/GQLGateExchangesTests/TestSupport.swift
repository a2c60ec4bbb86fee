@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// A fake `next` for exchange tests: records each operation it gets as a
/// trace line and answers 200 `upstream`.
final class RecordingNext: Sendable {
    private let state = Lock<(trace: [String], operations: [Operation])>(([], []))

    /// Every call, as `next: <kind or nil> <operation name or anonymous>`.
    var trace: [String] { state.withLock { $0.trace } }
    /// The operations passed on, in order.
    var operations: [Operation] { state.withLock { $0.operations } }

    var next: ExchangeNext {
        { operation in
            self.state.withLock {
                let kind = operation.kind?.rawValue ?? "nil"
                let name = operation.selected.map { $0.name ?? "anonymous" } ?? "-"
                $0.trace.append("next: \(kind) \(name)")
                $0.operations.append(operation)
            }
            return .single(GraphQLResponse(status: 200, headers: [:], body: Bytes("upstream"), source: .upstream))
        }
    }
}

/// An operation as the endpoint builds it.
func operation(_ query: String?, operationName: String? = nil, transport: ClientTransport = .httpPost,
               headers: HTTPHeaders = [:], requestID: String = "req-1", body: String? = nil) -> Operation {
    Operation(request: GraphQLRequest(query: query, operationName: operationName), clientTransport: transport,
              headers: headers, requestID: requestID, originalBody: body.map { Bytes($0) })
}

/// Runs `exchange` on `operation` with `next`, returning the first result's body or the error's summary.
func outcome(of exchange: some Exchange, _ operation: Operation, next: RecordingNext) async -> String {
    do {
        let result = try await exchange.handle(operation, next: next.next).first()
        return "\(result?.status ?? 0) \(result?.body.string ?? "-")"
    } catch let error as GatewayError {
        let allow = error.headers["Allow"].map { " Allow: \($0)" } ?? ""
        return "\(error.status) \(error.code)\(allow)"
    } catch {
        return "error \(error)"
    }
}
