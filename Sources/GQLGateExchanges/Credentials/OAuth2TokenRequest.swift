package import GQLGateCore
import GQLGatePipeline

/// The client credentials grant request (RFC 6749 §4.4) for `auth.oauth2`:
/// what to send where. The transport sends it (`fetch(with:)` in
/// GQLGateTransports, with the gateway's own HTTP client on the loops).
package struct OAuth2TokenRequest: Sendable {
    /// How the client authenticates to the token endpoint.
    package enum ClientAuthentication: Sendable {
        /// `Authorization: Basic` (RFC 6749 §2.3.1).
        case basic
        /// `client_id` and `client_secret` in the form body.
        case post
    }

    package var tokenURL: String
    package var clientID: String
    package var clientSecret: String
    package var scope: String?
    package var clientAuthentication: ClientAuthentication
    package var timeout: Duration
    package var connectTimeout: Duration

    package init(tokenURL: String, clientID: String, clientSecret: String, scope: String?,
                clientAuthentication: ClientAuthentication, timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(2)) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.clientAuthentication = clientAuthentication
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }

    /// The header fields and the form body of the POST to `tokenURL`.
    package func encoded() -> (headers: HTTPHeaders, body: Bytes) {
        var form = [("grant_type", "client_credentials")]
        if let scope { form.append(("scope", scope)) }
        var headers: HTTPHeaders = [
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
        ]
        switch clientAuthentication {
        case .basic:
            let credentials = FormEncoding.encode(clientID) + ":" + FormEncoding.encode(clientSecret)
            headers.add(name: "Authorization", value: "Basic " + Base64.encode(Array(credentials.utf8)))
        case .post:
            form += [("client_id", clientID), ("client_secret", clientSecret)]
        }
        let body = form.map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
        return (headers, Bytes(body))
    }
}
