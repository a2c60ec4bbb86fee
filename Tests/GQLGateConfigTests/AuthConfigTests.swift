import Testing
@testable import GQLGateConfig

@Suite struct AuthConfigTests {
    @Test func defaults() {
        let auth = GatewayConfig().auth
        #expect(auth.headers.isEmpty)
        #expect(auth.bearerTokenFile == nil)
        #expect(auth.oauth2 == nil)
        #expect(auth.refreshOn401)
        #expect(auth.wsInitPayload == .object([]))
    }

    @Test func readsEveryKey() throws {
        let auth = try load("""
            auth:
              headers:
                X-Api-Key: ${KEY}
                X-Tenant: acme
              bearer_token_file: /var/run/secrets/token
              oauth2:
                token_url: https://id.example/oauth/token
                client_id: gqlgate
                client_secret: "${SECRET}"
                scope: read write
                client_auth: post
              refresh_on_401: false
              ws_init_payload: {tenant: acme}
            """, environment: ["KEY": "k1", "SECRET": "s1"]).auth
        #expect(auth.headers == [HeaderField(name: "X-Api-Key", value: "k1"), HeaderField(name: "X-Tenant", value: "acme")])
        #expect(auth.bearerTokenFile == "/var/run/secrets/token")
        #expect(auth.oauth2 == OAuth2Config(
            tokenURL: "https://id.example/oauth/token", clientID: "gqlgate", clientSecret: "s1", scope: "read write", clientAuth: .post
        ))
        #expect(!auth.refreshOn401)
        #expect(auth.wsInitPayload == .object([.init(key: "tenant", value: .string("acme"))]))
    }

    @Test func oauth2DefaultsToBasicClientAuth() throws {
        let oauth2 = try load("auth: {oauth2: {token_url: \"https://id.example/token\", client_id: a, client_secret: b}}").auth.oauth2
        #expect(oauth2?.clientAuth == .basic)
        #expect(oauth2?.scope == nil)
    }

    @Test func rejectsBadHeaders() {
        #expect(loadError("auth: {headers: {\"X Key\": v}}")
            == #"auth.headers.X Key: "X Key" is not valid: expected a header name (letters, digits and !#$%&'*+-.^_`|~)"#)
        #expect(loadError("auth: {headers: {X-Key: v, x-key: w}}") == "auth.headers.x-key: header x-key is set twice (names are case-insensitive)")
        #expect(loadError("auth: {headers: {X-Key: ~}}") == "auth.headers.X-Key: no value: expected a header value")
        #expect(loadError("auth: {headers: [X-Key]}") == "auth.headers: a list is not valid: expected a mapping of header names to values")
        #expect(loadError("auth:\n  headers:\n    X-Key: ${V}\n", environment: ["V": "a\r\nInjected: 1"])
            == #"auth.headers.X-Key: "<redacted>" is not valid: expected a header value without line breaks"#)
    }

    @Test func rejectsBadOAuth2Values() {
        #expect(loadError("auth: {oauth2: {token_url: \"id.example/token\"}}")
            == #"auth.oauth2.token_url: "id.example/token" is not valid: expected a http:// or https:// URL with a host"#)
        #expect(loadError("auth: {oauth2: {client_auth: jwt}}")
            == #"auth.oauth2.client_auth: "jwt" is not valid: expected one of basic, post"#)
    }
}
