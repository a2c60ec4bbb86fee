@testable import GQLGateHTTPClient
import Testing

/// libcurl's rules for proxy variables, read once by `ProxyEnvironment`.
@Suite struct ProxyEnvironmentTests {
    private func proxies(_ environment: [String: String]) -> ProxyEnvironment {
        ProxyEnvironment { environment[$0] }
    }

    @Test func noVariablesMeanNoProxy() {
        let settings = proxies([:])
        #expect(settings.proxy(for: "http://upstream/graphql") == "")
        #expect(settings.proxy(for: "https://upstream/graphql") == "")
        #expect(settings.noProxy == "")
        #expect(settings.isSameForEveryURL)
    }

    @Test func plainHTTPTakesOnlyTheLowerCaseVariable() {
        #expect(proxies(["HTTP_PROXY": "http://upper:3128"]).proxy(for: "http://upstream/graphql") == "")
        #expect(proxies(["http_proxy": "http://lower:3128"]).proxy(for: "http://upstream/graphql") == "http://lower:3128")
    }

    @Test func httpsTakesEitherCaseAndTheSchemeIsCaseInsensitive() {
        #expect(proxies(["HTTPS_PROXY": "http://upper:3128"]).proxy(for: "https://upstream/graphql") == "http://upper:3128")
        let both = proxies(["https_proxy": "http://lower:3128", "HTTPS_PROXY": "http://upper:3128"])
        #expect(both.proxy(for: "HTTPS://upstream/graphql") == "http://lower:3128")
        #expect(both.proxy(for: "http://upstream/graphql") == "")
        #expect(!both.isSameForEveryURL)
    }

    @Test func allProxyIsTheFallbackForBothSchemes() {
        let settings = proxies(["ALL_PROXY": "http://all:3128", "https_proxy": "http://tls:3128"])
        #expect(settings.proxy(for: "http://upstream/graphql") == "http://all:3128")
        #expect(settings.proxy(for: "https://upstream/graphql") == "http://tls:3128")
        #expect(proxies(["all_proxy": "http://lower:1", "ALL_PROXY": "http://upper:2"]).proxy(for: "http://u/") == "http://lower:1")
    }

    @Test func aVariableSetButEmptyMeansNoProxyAndStopsTheFallback() {
        #expect(proxies(["http_proxy": "", "all_proxy": "http://all:3128"]).proxy(for: "http://upstream/graphql") == "")
    }

    @Test func noProxyPrefersTheLowerCaseVariable() {
        #expect(proxies(["NO_PROXY": "upper.example"]).noProxy == "upper.example")
        #expect(proxies(["no_proxy": "lower.example", "NO_PROXY": "upper.example"]).noProxy == "lower.example")
    }
}
