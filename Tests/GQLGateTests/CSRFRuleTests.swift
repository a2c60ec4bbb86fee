import GQLGateConfig
import GQLGateCore
import Testing
@testable import GQLGate

@Suite struct CSRFRuleTests {
    private let rule = CSRFRule(CSRFConfig())!

    @Test func isOffWhenDisabled() {
        var config = CSRFConfig()
        config.enabled = false
        #expect(CSRFRule(config) == nil)
    }

    @Test func simpleContentTypesAreRefusedWithoutARequiredHeader() {
        for contentType in [
            "text/plain", "TEXT/PLAIN", "text/plain;charset=UTF-8", " text/plain ; charset=utf-8", "\ttext/plain",
            "multipart/form-data; boundary=x", "Multipart/Form-Data", "application/x-www-form-urlencoded",
            "application/x-www-form-urlencoded;charset=utf-8", "text/plain;",
        ] {
            #expect(!rule.allows(["Content-Type": contentType]), "\(contentType)")
            #expect(rule.allows(["Content-Type": contentType, "Apollo-Require-Preflight": "true"]), "\(contentType)")
        }
    }

    @Test func noContentTypeCountsAsSimple() {
        #expect(!rule.allows([:]))
        #expect(!rule.allows(["Accept": "application/json", "X-Requested-With": "XMLHttpRequest"]))
    }

    @Test func otherContentTypesPassAlone() {
        for contentType in [
            "application/json", "application/json; charset=utf-8", "application/graphql-response+json", "text/plain+json",
            "text/plainx", "text/html", "", "text/plain, application/json", "text/ plain", "multipart/mixed",
        ] {
            #expect(rule.allows(["Content-Type": contentType]), "\(contentType)")
        }
    }

    @Test func requiredHeadersAreMatchedWithoutCaseWhateverTheirValue() {
        for name in ["x-apollo-operation-name", "X-APOLLO-OPERATION-NAME", "Apollo-Require-Preflight", "APOLLO-require-PREFLIGHT"] {
            #expect(rule.allows(HTTPHeaders([.init(name: name, value: "")])), "\(name)")
        }
        #expect(!rule.allows(["X-Apollo-Operation": "Hero", "Apollo-Require": "1"]))
    }

    @Test func requiredHeadersAreTheConfiguredOnes() {
        var config = CSRFConfig()
        config.requiredHeaders = ["x-requested-with"]
        let custom = CSRFRule(config)!
        #expect(custom.allows(["X-Requested-With": "XMLHttpRequest"]))
        #expect(!custom.allows(["Apollo-Require-Preflight": "true"]))
        config.requiredHeaders = []
        #expect(!CSRFRule(config)!.allows(["Apollo-Require-Preflight": "true", "Content-Type": "text/plain"]))
        #expect(CSRFRule(config)!.allows(["Content-Type": "application/json"]))
    }
}
