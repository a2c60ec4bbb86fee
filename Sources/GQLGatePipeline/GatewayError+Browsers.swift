import GQLGateCore

extension GatewayError {
    /// 400 `CSRF_ERROR`: a request a browser could send cross-site without a
    /// preflight, without any of `csrf.required_headers`.
    public static func csrf(requiredHeaders: [String]) -> GatewayError {
        let names = requiredHeaders.isEmpty ? "" : " (" + requiredHeaders.joined(separator: ", ") + ")"
        return GatewayError(status: 400, code: "CSRF_ERROR",
                            message: "This request could have been sent by another site: send Content-Type: application/json, "
                                + "or one of the headers csrf.required_headers lists\(names).")
    }

    /// 403 `ORIGIN_NOT_ALLOWED`: a preflight or WebSocket upgrade from an origin not in `cors.allow_origins`.
    public static func originNotAllowed(_ origin: String?) -> GatewayError {
        let who = origin.map { "Origin \(JSONString.quoted($0)) is" } ?? "A request without Origin is"
        return GatewayError(status: 403, code: "ORIGIN_NOT_ALLOWED", message: "\(who) not allowed (cors.allow_origins).")
    }

    /// 401 `UNAUTHENTICATED`: the TLS client presented no certificate, or one
    /// the CAs of `server.tls.client_ca_file` did not sign (or expired, or not for TLS clients).
    public static let clientCertificateRequired = GatewayError(
        status: 401, code: "UNAUTHENTICATED",
        message: "A valid client certificate is required: one signed by a CA of server.tls.client_ca_file, for TLS clients, not expired.")
}
