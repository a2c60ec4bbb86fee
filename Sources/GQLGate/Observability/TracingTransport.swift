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
            finish(context, parent: parent, attempt: attempt, start: start, outcome: .answered(status: answer.status))
            return .single(answer)
        } catch {
            finish(context, parent: parent, attempt: attempt, start: start, outcome: UpstreamAttemptOutcome(error: error))
            throw error
        }
    }

    private func finish(_ context: SpanContext, parent: SpanContext, attempt: Int, start: UInt64, outcome: UpstreamAttemptOutcome) {
        var attributes: [SpanAttribute] = []
        attributes.reserveCapacity(peer.attributes.count + 6)
        attributes.append(contentsOf: peer.attributes)
        attributes.append(SpanAttribute("gqlgate.upstream.attempt", attempt))
        if attempt > 1 { attributes.append(SpanAttribute("http.request.resend_count", attempt - 1)) }
        if case .answered(let status) = outcome { attributes.append(SpanAttribute("http.response.status_code", status)) }
        let errorType = outcome.spanErrorType
        if let errorType { attributes.append(SpanAttribute("error.type", errorType)) }
        attributes.append(SpanAttribute("gqlgate.upstream.outcome", outcome.spanLabel))
        tracer.finished(SpanRecord(
            context: context, parentSpanID: parent.spanID, name: "POST", kind: .client, startUnixNano: start,
            endUnixNano: tracer.nowUnixNano(), attributes: attributes, status: errorType != nil ? .error : .unset))
    }
}

extension UpstreamAttemptOutcome {
    /// `gqlgate.upstream.outcome` of an attempt's span: an answer is
    /// `answered`, or `error_status` from 500 up; no answer reads as `label`.
    var spanLabel: String {
        switch self {
        case .answered(let status): status >= 500 ? "error_status" : "answered"
        case .failed, .cancelled: label
        }
    }

    /// `error.type` of an attempt that failed (its span's status is then an
    /// error): an answer's status from 500 up, a failure's label; nil otherwise.
    var spanErrorType: String? {
        switch self {
        case .answered(let status): status >= 500 ? String(status) : nil
        case .failed(let kind): kind.label
        case .cancelled: nil
        }
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
