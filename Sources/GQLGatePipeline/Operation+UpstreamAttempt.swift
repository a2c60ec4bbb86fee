extension Operation {
    /// Runs one upstream attempt, `send`, and states it: its start and end
    /// are facts of the operation (`OperationFact.upstreamAttemptStarted`,
    /// `.upstreamAttemptEnded`, with what `send` returned or threw). When
    /// tracing sampled the request, `send` gets the operation with the
    /// attempt's own span as its `traceparent` (and `tracestate`) upstream
    /// header. The HTTP transport runs each attempt through it.
    package func upstreamAttempt(_ send: (Operation) async throws -> GraphQLResponse) async throws -> GraphQLResponse {
        guard let facts else { return try await send(self) }
        let attempt = facts.upstreamAttemptBegins()
        let answer: GraphQLResponse
        do {
            if let span = attempt.span {
                var traced = self
                traced.upstreamHeaders.replaceOrAdd(name: "traceparent", value: span.traceparent)
                if let state = span.traceState { traced.upstreamHeaders.replaceOrAdd(name: "tracestate", value: state) }
                answer = try await send(traced)
            } else {
                answer = try await send(self)
            }
        } catch {
            facts.record(.upstreamAttemptEnded(attempt, UpstreamAttemptOutcome(error: error)))
            throw error
        }
        facts.record(.upstreamAttemptEnded(attempt, .answered(status: answer.status)))
        return answer
    }
}
