package import GQLGateCore
package import GQLGatePipeline

/// A token endpoint's successful answer (RFC 6749 §5.1): `access_token`,
/// `token_type` (must be Bearer when given) and `expires_in` (seconds).
package struct OAuth2TokenResponse: Sendable, Equatable {
    package var accessToken: String
    /// How long the token is valid, when the endpoint said.
    package var lifetime: Duration?

    package init(accessToken: String, lifetime: Duration?) {
        self.accessToken = accessToken
        self.lifetime = lifetime
    }

    /// The longest lifetime taken from `expires_in`, in seconds: a year.
    static let maximumLifetime = 365 * 86_400

    /// Reads the endpoint's answer; the error names what was wrong, never a secret.
    package static func parse(status: Int, body: Bytes, endpoint: String) -> Result<OAuth2TokenResponse, GatewayError> {
        let json = try? body.withUnsafeBytes { bytes throws(JSONReader.Failure) in try JSONReader.read(bytes) }
        guard status == 200 else {
            var reason = ""
            if case .string(let code)? = json?["error"], code.utf8.count <= 64, code.isSafeHeaderValue { reason = " (\(code))" }
            return .failure(.upstreamAuthFailed("The token endpoint \(endpoint) answered \(status)\(reason)."))
        }
        guard let json, case .string(let token)? = json["access_token"], !token.isEmpty, token.isSafeHeaderValue else {
            return .failure(.upstreamAuthFailed("The token endpoint \(endpoint) sent no usable access_token."))
        }
        if case .string(let type)? = json["token_type"], !type.equalsIgnoringASCIICase("bearer") {
            return .failure(.upstreamAuthFailed("The token endpoint \(endpoint) sent a \(type) token; gqlgate sends Bearer tokens."))
        }
        let lifetime: Duration?
        // Capped, so that no `expires_in` (`1e400`, `9223372036854775807`) overflows a clock.
        switch json["expires_in"] {
        case .integer(let seconds)? where seconds > 0: lifetime = .seconds(min(seconds, maximumLifetime))
        case .number(let text)? where Double(text).map({ $0 > 0 }) == true:
            lifetime = .milliseconds(Int64(min(Double(text)!, Double(maximumLifetime)) * 1000))
        case .string(let text)? where Int(text).map({ $0 > 0 }) == true: lifetime = .seconds(min(Int(text)!, maximumLifetime))
        default: lifetime = nil
        }
        return .success(OAuth2TokenResponse(accessToken: token, lifetime: lifetime))
    }
}
