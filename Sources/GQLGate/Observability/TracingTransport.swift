import GQLGateConfig
import GQLGateCore
import GQLGatePipeline
import GQLGateTracing

/// Wraps the upstream HTTP transport while tracing is on: each attempt of a
/// sampled operation gets a client span, a child of the request's span
/// (OpenTelemetry HTTP client conventions, the attempt number and its
/// outcome), and the upstream gets `traceparent` (and the client's
/// `tracestate`) naming that span. Operations that are not sampled pass
/// straight through, with the client's trace context forwarded as it came.
struct TracingTransport: Transport {
    let inner: any Transport
    let tracer: Tracer
    /// The upstream as the span names it: its URL without user info, host and port.
    let peer: UpstreamPeer

    func send(_ operation: Operation) async throws -> ResultStream {
        guard let parent = operation.trace?.span else { return try await inner.send(operation) }
        let context = tracer.child(of: parent)
        let attempt = (operation.trace?.attempts ?? 0) + 1
        var operation = operation
        operation.upstreamHeaders.replaceOrAdd(name: "traceparent", value: context.traceparent)
        if let state = context.traceState { operation.upstreamHeaders.replaceOrAdd(name: "tracestate", value: state) }
        let start = tracer.nowUnixNano()
        do {
            // The HTTP transport's answer is one ready result.
            guard let answer = try await inner.send(operation).first() else { throw GatewayError.noResult }
            finish(context, parent: parent, attempt: attempt, start: start, status: answer.status, failure: nil)
            return .single(answer)
        } catch {
            finish(context, parent: parent, attempt: attempt, start: start, status: nil, failure: error)
            throw error
        }
    }

    private func finish(_ context: SpanContext, parent: SpanContext, attempt: Int, start: UInt64, status: Int?, failure: (any Error)?) {
        var attributes: [SpanAttribute] = []
        attributes.reserveCapacity(peer.attributes.count + 6)
        attributes.append(contentsOf: peer.attributes)
        attributes.append(SpanAttribute("gqlgate.upstream.attempt", attempt))
        if attempt > 1 { attributes.append(SpanAttribute("http.request.resend_count", attempt - 1)) }
        let outcome: String
        if let status {
            attributes.append(SpanAttribute("http.response.status_code", status))
            outcome = status >= 500 ? "error_status" : "answered"
            if status >= 500 { attributes.append(SpanAttribute("error.type", String(status))) }
        } else if let failure = failure as? UpstreamFailure {
            outcome = switch failure.kind {
            case .notReached: "not_reached"
            case .timedOut: "timed_out"
            case .failedAfterSend: "failed_after_send"
            case .answerTooLarge: "too_large"
            }
            attributes.append(SpanAttribute("error.type", outcome))
        } else {
            outcome = failure is CancellationError ? "cancelled" : "answered"
        }
        attributes.append(SpanAttribute("gqlgate.upstream.outcome", outcome))
        let failed = (status ?? 0) >= 500 || failure is UpstreamFailure
        tracer.finished(SpanRecord(
            context: context, parentSpanID: parent.spanID, name: "POST", kind: .client, startUnixNano: start,
            endUnixNano: tracer.nowUnixNano(), attributes: attributes, status: failed ? .error : .unset))
    }
}

/// The upstream's address for client spans, read once from `upstream.url`
/// without its user info (a password in the URL never reaches a span).
struct UpstreamPeer: Sendable {
    let attributes: [SpanAttribute]

    init(url: String) {
        var attributes = [SpanAttribute("http.request.method", "POST")]
        if let endpoint = ConfigURL.endpoint(of: url) {
            attributes.append(SpanAttribute("url.full", endpoint.url))
            attributes.append(SpanAttribute("server.address", endpoint.host))
            attributes.append(SpanAttribute("server.port", endpoint.port))
        }
        self.attributes = attributes
    }
}
