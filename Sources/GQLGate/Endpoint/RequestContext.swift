import GQLGatePipeline

/// One GraphQL request as the endpoint carries it from the server thread,
/// where it was decoded and went through the pipeline's synchronous head, to
/// the loop that runs the rest of the pipeline. A class: it is handed on as
/// one reference (into the dispatch closure and the task), not copied field
/// by field.
final class RequestContext: Sendable {
    /// The pipeline the request runs through, taken when it arrived (a reload never changes it half-way).
    let pipeline: GatewayGeneration
    /// The operation, as the stages that ran on the server thread left it.
    let operation: Operation
    /// Where the pipeline goes on from.
    let position: ExchangeChain.Position
    /// How the results are written when the client asked for a stream (SSE, multipart).
    let stream: HTTPStreamFormat?

    init(pipeline: GatewayGeneration, operation: consuming Operation, position: ExchangeChain.Position,
         stream: HTTPStreamFormat?) {
        self.pipeline = pipeline
        self.operation = operation
        self.position = position
        self.stream = stream
    }
}

/// What the endpoint hands from the server thread to a loop for a request it takes.
enum PendingRequest: Sendable {
    /// A GraphQL request the pipeline goes on with.
    case graphQL(RequestContext)
    /// `/readyz`, which probes the upstream.
    case readiness(ReadinessProbe)
    /// A GraphQL request that arrived once every request is answered 503 (drain).
    case shuttingDown
}
