import GQLGateCore
import GQLGatePipeline
import GQLGateSubscriptions
import Testing

@Suite struct UpstreamInitPayloadTests {
    @Test func credentialHeadersBecomeMembersNamedAsConfigured() {
        let payload = UpstreamInitPayload.make(credentialHeaders: ["X-Api-Key": "k", "Authorization": "Bearer t"], configured: nil)
        #expect(payload.serialized() == #"{"X-Api-Key":"k","Authorization":"Bearer t"}"#)
    }

    @Test func theConfiguredPayloadIsMergedOver() {
        let configured = JSONValue.object([("Authorization", .string("Bearer other")), ("tenant", .integer(7))])
        let payload = UpstreamInitPayload.make(credentialHeaders: ["X-Api-Key": "k", "Authorization": "Bearer t"], configured: configured)
        #expect(payload.serialized() == #"{"X-Api-Key":"k","Authorization":"Bearer other","tenant":7}"#)
    }

    @Test func nothingConfiguredAndNoCredentialsIsAnEmptyObject() {
        #expect(UpstreamInitPayload.make(credentialHeaders: [:], configured: .object([])).serialized() == "{}")
    }
}
