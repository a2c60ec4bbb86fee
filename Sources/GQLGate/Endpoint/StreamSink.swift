import GQLGateHTTPServer

/// Where a streamed answer's bytes go: the response's `StreamingBody`.
protocol StreamSink: Sendable {
    /// Queues `text` to send; false once the client is gone or dropped: stop writing.
    func write(_ text: String) -> Bool
    /// Ends the answer once what is queued was sent.
    func finish()
}

extension StreamingBody: StreamSink {}
