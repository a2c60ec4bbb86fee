import GQLGateCore
@testable import GQLGate
import Testing

@Suite struct UpstreamSubscriptionsTests {
    @Test func theConnectionKeyIsTheCredentialSet() {
        let credentials: HTTPHeaders = ["Authorization": "Bearer t", "X-Key": "k"]
        #expect(UpstreamSubscriptions.credentialKey(credentials) == "authorization:Bearer t\nx-key:k\n")
        #expect(UpstreamSubscriptions.credentialKey(HTTPHeaders()) == "")
    }
}
