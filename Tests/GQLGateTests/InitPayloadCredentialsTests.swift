@testable import GQLGate
import GQLGatePipeline
import Testing

@Suite struct InitPayloadCredentialsTests {
    @Test func takesTheKeyFromTheTopLevelInAnyLetterCase() {
        let headers = InitPayloadCredentials.headers(in: .object([("X-API-KEY", .string("k-1")), ("other", .string("x"))]))
        #expect(headers.fields.map { "\($0.name): \($0.value)" } == ["x-api-key: k-1"])
    }

    @Test func takesAuthorizationFromNestedHeaders() {
        let payload = JSONValue.object([("headers", .object([("Authorization", .string("Bearer k-2"))]))])
        #expect(InitPayloadCredentials.headers(in: payload)["authorization"] == "Bearer k-2")
    }

    @Test(arguments: [nil, JSONValue.null, .string("k"), .object([("x-api-key", .integer(5))])])
    func findsNothingElsewhere(payload: JSONValue?) {
        #expect(InitPayloadCredentials.headers(in: payload).isEmpty)
    }
}
