import GQLGateConfig
import GQLGateCore
import Testing
@testable import GQLGate

@Suite struct CORSPolicyTests {
    private static func policy(_ origins: [String], credentials: Bool = false, allowHeaders: [String] = [],
                               expose: [String] = ["x-request-id", "x-cache"]) -> CORSPolicy {
        var config = CORSConfig()
        config.allowOrigins = origins
        config.allowCredentials = credentials
        config.allowHeaders = allowHeaders
        config.exposeHeaders = expose
        config.maxAge = .seconds(600)
        return CORSPolicy(config)!
    }

    private static func fields(_ headers: HTTPHeaders?) -> [String: String] {
        Dictionary((headers ?? [:]).map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
    }

    @Test func isOffWithoutOrigins() {
        #expect(CORSPolicy(CORSConfig()) == nil)
    }

    @Test func listedOriginsMatchExactly() {
        let cors = Self.policy(["https://app.example.com", "http://localhost:3000"])
        #expect(cors.allows(origin: "https://app.example.com") && cors.allows(origin: "http://localhost:3000"))
        for other in ["https://evil.example.com", "http://app.example.com", "https://app.example.com:443", "https://app.example.com.evil",
                      "https://APP.example.com", "null", ""] {
            #expect(!cors.allows(origin: other), "\(other)")
        }
    }

    @Test func answersToAnAllowedOriginCarryTheCORSFields() {
        let cors = Self.policy(["https://app.example.com"], credentials: true)
        #expect(Self.fields(cors.answerFields(origin: "https://app.example.com")) == [
            "access-control-allow-origin": "https://app.example.com", "vary": "Origin",
            "access-control-allow-credentials": "true", "access-control-expose-headers": "x-request-id, x-cache",
        ])
        let plain = Self.policy(["https://app.example.com"], expose: [])
        #expect(Self.fields(plain.answerFields(origin: "https://app.example.com")) == [
            "access-control-allow-origin": "https://app.example.com", "vary": "Origin",
        ])
    }

    @Test func answersToOtherOriginsCarryOnlyVary() {
        let cors = Self.policy(["https://app.example.com"], credentials: true)
        #expect(Self.fields(cors.answerFields(origin: "https://evil.example.com")) == ["vary": "Origin"])
        #expect(Self.fields(cors.answerFields(origin: nil)) == ["vary": "Origin"])
    }

    @Test func aWildcardAnswersStarToEveryOriginAndNothingWithoutOne() {
        let cors = Self.policy(["*"])
        #expect(cors.allows(origin: "https://anything.example"))
        #expect(Self.fields(cors.answerFields(origin: "https://anything.example")) == [
            "access-control-allow-origin": "*", "access-control-expose-headers": "x-request-id, x-cache",
        ])
        #expect(cors.answerFields(origin: nil) == nil)
    }

    @Test func preflightsOfAllowedOriginsMirrorTheRequestedHeaders() {
        let cors = Self.policy(["https://app.example.com"])
        #expect(Self.fields(cors.preflightFields(origin: "https://app.example.com", requestedHeaders: "content-type, x-apollo-operation-name")) == [
            "access-control-allow-origin": "https://app.example.com", "access-control-allow-methods": "GET, POST",
            "access-control-max-age": "600", "access-control-allow-headers": "content-type, x-apollo-operation-name",
            "vary": "Origin, Access-Control-Request-Headers",
        ])
        #expect(Self.fields(cors.preflightFields(origin: "https://app.example.com", requestedHeaders: nil))["access-control-allow-headers"] == nil)
    }

    @Test func preflightsWithListedHeadersAnswerTheList() {
        let cors = Self.policy(["*"], allowHeaders: ["content-type", "authorization"])
        let fields = Self.fields(cors.preflightFields(origin: "https://a.example", requestedHeaders: "x-other"))
        #expect(fields["access-control-allow-origin"] == "*")
        #expect(fields["access-control-allow-headers"] == "content-type, authorization")
        #expect(fields["vary"] == "Origin")
        #expect(fields["access-control-allow-credentials"] == nil)
    }

    @Test func preflightsOfOtherOriginsOrNoneAreRefused() {
        let cors = Self.policy(["https://app.example.com"], credentials: true)
        #expect(cors.preflightFields(origin: "https://evil.example.com", requestedHeaders: "content-type") == nil)
        #expect(cors.preflightFields(origin: nil, requestedHeaders: nil) == nil)
        #expect(Self.fields(cors.preflightFields(origin: "https://app.example.com", requestedHeaders: nil))["access-control-allow-credentials"] == "true")
    }

    @Test func webSocketUpgradesWithoutOriginAreAllowed() {
        let cors = Self.policy(["https://app.example.com"])
        #expect(cors.allowsUpgrade(origin: nil))
        #expect(cors.allowsUpgrade(origin: "https://app.example.com"))
        #expect(!cors.allowsUpgrade(origin: "https://evil.example.com"))
    }
}
