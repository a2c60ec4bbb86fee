import GQLGateCore
package import GQLGateExchanges
package import GQLGateHTTPClient
import GQLGatePipeline

extension OAuth2TokenRequest {
    /// A fetch for `OAuth2ClientCredentials` that sends this request with `client`.
    package func fetch(with client: HTTPClient) -> OAuth2ClientCredentials.Fetch {
        { [self] in
            let (headers, body) = encoded()
            let request = HTTPClientRequest(url: tokenURL, method: .post, headers: headers, body: body,
                                            timeout: timeout, connectTimeout: connectTimeout)
            do {
                let answer = try await client.execute(request)
                return OAuth2TokenResponse.parse(status: answer.status, body: answer.body, endpoint: URLRedaction.redactingUserInfo(tokenURL))
            } catch {
                return .failure(.upstreamAuthFailed("The token endpoint \(URLRedaction.redactingUserInfo(tokenURL)) could not be reached: \(error)."))
            }
        }
    }
}
