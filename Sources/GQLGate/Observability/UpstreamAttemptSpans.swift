import GQLGateConfig
import GQLGateCore
import GQLGatePipeline
import GQLGateTracing

/// The client spans of sampled requests' upstream attempts: each a child of
/// the request's span, with the id the upstream got as `traceparent`
/// (OpenTelemetry HTTP client conventions, the attempt number and its
/// outcome), made from the attempt's facts.
struct UpstreamAttemptSpans: Sendable {
    let tracer: Tracer
    /// The upstream as the span names it: its URL without user info, host and port.
    let peer: UpstreamPeer

    /// The span of `attempt`, a child of `parent`, which ended now with `outcome`.
    func finished(_ attempt: UpstreamAttempt, span context: SpanContext, parent: SpanContext, outcome: UpstreamAttemptOutcome) {
        var attributes: [SpanAttribute] = []
        attributes.reserveCapacity(peer.attributes.count + 6)
        attributes.append(contentsOf: peer.attributes)
        attributes.append(SpanAttribute("gqlgate.upstream.attempt", attempt.number))
        if attempt.number > 1 { attributes.append(SpanAttribute("http.request.resend_count", attempt.number - 1)) }
        if case .answered(let status) = outcome { attributes.append(SpanAttribute("http.response.status_code", status)) }
        let errorType = outcome.spanErrorType
        if let errorType { attributes.append(SpanAttribute("error.type", errorType)) }
        attributes.append(SpanAttribute("gqlgate.upstream.outcome", outcome.spanLabel))
        tracer.finished(SpanRecord(
            context: context, parentSpanID: parent.spanID, name: "POST", kind: .client,
            startUnixNano: tracer.unixNano(ofMonotonic: attempt.start), endUnixNano: tracer.nowUnixNano(), attributes: attributes,
            status: errorType != nil ? .error : .unset))
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
