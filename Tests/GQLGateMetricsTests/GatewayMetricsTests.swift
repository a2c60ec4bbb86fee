import GQLGateMetrics
import Testing

@Suite struct GatewayMetricsTests {
    /// The rendered exposition, one line per element.
    private func lines(_ metrics: GatewayMetrics) -> [String] {
        String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func everyContractMetricIsRegisteredBeforeAnyTraffic() {
        let rendered = lines(GatewayMetrics())
        let expected = [
            "# TYPE gqlgate_requests_total counter",
            "# TYPE gqlgate_request_duration_seconds histogram",
            "# TYPE gqlgate_upstream_requests_total counter",
            "# TYPE gqlgate_upstream_duration_seconds histogram",
            "# TYPE gqlgate_retries_total counter",
            "# TYPE gqlgate_cache_hits_total counter",
            "# TYPE gqlgate_cache_misses_total counter",
            "# TYPE gqlgate_cache_bytes gauge",
            "# TYPE gqlgate_subscriptions_active gauge",
            "# TYPE gqlgate_upstream_subscriptions_active gauge",
            "# TYPE gqlgate_websocket_connections_active gauge",
            "# TYPE gqlgate_token_refreshes_total counter",
            "# TYPE gqlgate_persisted_documents_total counter",
            "# TYPE gqlgate_rate_limited_total counter",
            "# TYPE gqlgate_load_shed_total counter",
            "# TYPE gqlgate_upstream_in_flight gauge",
            "# TYPE gqlgate_circuit_state gauge",
            "# TYPE gqlgate_spans_dropped_total counter",
            "# TYPE gqlgate_schema_loaded gauge",
            "# TYPE gqlgate_schema_refreshes_total counter",
            "# TYPE gqlgate_cache_invalidations_total counter",
            "# TYPE gqlgate_cache_memory_tier_drops_total counter",
            "# TYPE gqlgate_redis_up gauge",
            "# TYPE gqlgate_redis_reconnects_total counter",
            "# TYPE gqlgate_redis_errors_total counter",
            "# TYPE gqlgate_rate_limit_settlements_total counter",
            "# TYPE gqlgate_operation_cost histogram",
        ]
        #expect(expected.filter { !rendered.contains($0) } == [])
        #expect(rendered.filter { $0.hasPrefix("# TYPE") }.count == expected.count)
        #expect(rendered.contains(#"gqlgate_requests_total{operation="unknown",status="4xx"} 0"#))
        #expect(rendered.contains("gqlgate_cache_hits_total 0"))
        #expect(rendered.contains(#"gqlgate_persisted_documents_total{outcome="unlisted_text"} 0"#))
        #expect(rendered.contains(#"gqlgate_load_shed_total{reason="circuit_open"} 0"#))
        #expect(rendered.contains("gqlgate_circuit_state 0.0"))
        #expect(rendered.contains(#"gqlgate_redis_errors_total{store="rate_limit"} 0"#))
        #expect(rendered.contains(#"gqlgate_rate_limit_settlements_total{outcome="failed"} 0"#))
    }

    @Test func requestsAreCountedByOperationKindAndStatusClass() {
        let metrics = GatewayMetrics()
        metrics.requestFinished(kind: .query, status: 200, duration: .milliseconds(3))
        metrics.requestFinished(kind: .query, status: 204, duration: .milliseconds(3))
        metrics.requestFinished(kind: .mutation, status: 502, duration: .milliseconds(3))
        metrics.requestFinished(kind: nil, status: 400, duration: .milliseconds(3))
        let rendered = lines(metrics)
        #expect(rendered.contains(#"gqlgate_requests_total{operation="query",status="2xx"} 2"#))
        #expect(rendered.contains(#"gqlgate_requests_total{operation="mutation",status="5xx"} 1"#))
        #expect(rendered.contains(#"gqlgate_requests_total{operation="unknown",status="4xx"} 1"#))
        #expect(rendered.contains(#"gqlgate_requests_total{operation="subscription",status="2xx"} 0"#))
    }

    @Test func requestDurationsFallIntoSecondBuckets() {
        let metrics = GatewayMetrics()
        metrics.requestFinished(kind: .query, status: 200, duration: .milliseconds(3))
        metrics.requestFinished(kind: .query, status: 200, duration: .seconds(20))
        let rendered = lines(metrics)
        #expect(rendered.contains(#"gqlgate_request_duration_seconds_bucket{operation="query",le="0.0025"} 0"#))
        #expect(rendered.contains(#"gqlgate_request_duration_seconds_bucket{operation="query",le="0.005"} 1"#))
        #expect(rendered.contains(#"gqlgate_request_duration_seconds_bucket{operation="query",le="10.0"} 1"#))
        #expect(rendered.contains(#"gqlgate_request_duration_seconds_bucket{operation="query",le="+Inf"} 2"#))
        #expect(rendered.contains(#"gqlgate_request_duration_seconds_count{operation="query"} 2"#))
        #expect(rendered.contains(#"gqlgate_request_duration_seconds_sum{operation="query"} 20.003"#))
    }

    @Test func upstreamAttemptsAreCountedByOutcome() {
        let metrics = GatewayMetrics()
        metrics.upstreamFinished(outcome: .answered(status: 200), duration: .milliseconds(1))
        metrics.upstreamFinished(outcome: .answered(status: 503), duration: .milliseconds(1))
        metrics.upstreamFinished(outcome: .failed(.notReached), duration: .milliseconds(1))
        let rendered = lines(metrics)
        #expect(rendered.contains(#"gqlgate_upstream_requests_total{outcome="ok"} 1"#))
        #expect(rendered.contains(#"gqlgate_upstream_requests_total{outcome="http_error"} 1"#))
        #expect(rendered.contains(#"gqlgate_upstream_requests_total{outcome="unreachable"} 1"#))
        #expect(rendered.contains(#"gqlgate_upstream_requests_total{outcome="timeout"} 0"#))
        #expect(rendered.contains("gqlgate_upstream_duration_seconds_count 3"))
    }

    @Test func featureCountersAndGauges() {
        let metrics = GatewayMetrics()
        metrics.retry(reason: .status(503))
        metrics.retry(reason: .status(429))
        metrics.cacheHit()
        metrics.cacheMiss()
        metrics.cacheBytes(4096)
        metrics.subscriptionStarted()
        metrics.subscriptionStarted()
        metrics.subscriptionEnded()
        metrics.websocketOpened()
        metrics.tokenRefreshed(.failed)
        let rendered = lines(metrics)
        #expect(rendered.contains(#"gqlgate_retries_total{reason="status"} 2"#))
        #expect(rendered.contains(#"gqlgate_retries_total{reason="timeout"} 0"#))
        #expect(rendered.contains("gqlgate_cache_hits_total 1"))
        #expect(rendered.contains("gqlgate_cache_misses_total 1"))
        #expect(rendered.contains("gqlgate_cache_bytes 4096.0"))
        #expect(rendered.contains("gqlgate_subscriptions_active 1.0"))
        #expect(rendered.contains("gqlgate_upstream_subscriptions_active 0.0"))
        #expect(rendered.contains("gqlgate_websocket_connections_active 1.0"))
        #expect(rendered.contains(#"gqlgate_token_refreshes_total{outcome="failed"} 1"#))
    }

    @Test(arguments: [(199, StatusClass.success), (200, .success), (304, .redirection), (404, .clientError), (503, .serverError), (600, .serverError)])
    func statusClasses(status: Int, expected: StatusClass) {
        #expect(StatusClass(status: status) == expected)
    }
}
