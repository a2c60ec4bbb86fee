import GQLGateCore
import GQLGateHTTPClient
import GQLGatePipeline

/// The client credentials grant request (RFC 6749 §4.4) for `auth.oauth2`,
/// sent through the gateway's own libcurl client on the loops.
public struct OAuth2TokenRequest: Sendable {
    /// How the client authenticates to the token endpoint.
    public enum ClientAuthentication: Sendable {
        /// `Authorization: Basic` (RFC 6749 §2.3.1).
        case basic
        /// `client_id` and `client_secret` in the form body.
        case post
    }

    public var tokenURL: String
    public var clientID: String
    public var clientSecret: String
    public var scope: String?
    public var clientAuthentication: ClientAuthentication
    public var timeout: Duration
    public var connectTimeout: Duration

    public init(tokenURL: String, clientID: String, clientSecret: String, scope: String?,
                clientAuthentication: ClientAuthentication, timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(2)) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.clientAuthentication = clientAuthentication
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }

    /// The HTTP request to send.
    public func httpRequest() -> HTTPClientRequest {
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
        return HTTPClientRequest(url: tokenURL, method: .post, headers: headers, body: Bytes(body),
                                 timeout: timeout, connectTimeout: connectTimeout)
    }

    /// A fetch for `OAuth2ClientCredentials` that sends this request with `client`.
    public func fetch(with client: HTTPClient) -> OAuth2ClientCredentials.Fetch {
        { [self] in
            do {
                let answer = try await client.execute(httpRequest())
                return OAuth2TokenResponse.parse(status: answer.status, body: answer.body, endpoint: tokenURL)
            } catch {
                return .failure(.upstreamAuthFailed("The token endpoint \(tokenURL) could not be reached: \(error)."))
            }
        }
    }
}
