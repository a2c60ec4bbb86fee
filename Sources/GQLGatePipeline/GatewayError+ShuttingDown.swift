extension GatewayError {
    /// The answer to a request still unanswered when a drain runs out of time,
    /// and to a subscription started after the upstream connections closed.
    public static let shuttingDown = GatewayError(
        status: 503, code: "SHUTTING_DOWN", message: "The gateway is shutting down; retry the request on another instance.")
}
