import GQLGateConfig
import GQLGateCore
import GQLGateExchanges
import GQLGateHTTPClient
import GQLGateTransports
import Logging

extension UpstreamAuthExchange {
    /// The credentials the `auth` keys describe; tokens are fetched with `client`. Why a token
    /// could not be had goes to `logger` (at most 10 lines in 10 s), never to clients.
    /// Token refreshes are told to `recorder`.
    init(_ auth: AuthConfig, client: HTTPClient, upstream: UpstreamConfig, recorder: GatewayRecorder, logger: Logger) {
        let tokens: (any BearerTokenSource)?
        if let oauth2 = auth.oauth2 {
            let request = OAuth2TokenRequest(
                tokenURL: oauth2.tokenURL, clientID: oauth2.clientID, clientSecret: oauth2.clientSecret, scope: oauth2.scope,
                clientAuthentication: oauth2.clientAuth == .basic ? .basic : .post,
                timeout: upstream.timeout, connectTimeout: upstream.connectTimeout)
            tokens = OAuth2ClientCredentials(fetch: request.fetch(with: client), recorder: recorder)
        } else if let path = auth.bearerTokenFile {
            tokens = BearerTokenFile(path: path, recorder: recorder)
        } else {
            tokens = nil
        }
        let budget = LineBudget(lines: 10, window: .seconds(10))
        self.init(staticHeaders: auth.headers.map { HTTPHeaders.Field(name: $0.name, value: $0.value) },
                  tokens: tokens, refreshOnUnauthorized: auth.refreshOn401,
                  onFailure: { reason in
                      guard let dropped = budget.take() else { return }
                      var metadata: Logger.Metadata = ["error": "\(reason)"]
                      if dropped > 0 { metadata["not_logged_before"] = "\(dropped)" }
                      logger.error("no upstream credentials", metadata: metadata)
                  })
    }
}

extension AuthConfig {
    /// Whether gqlgate adds any credential to upstream requests.
    var addsCredentials: Bool {
        !headers.isEmpty || bearerTokenFile != nil || oauth2 != nil
    }
}
