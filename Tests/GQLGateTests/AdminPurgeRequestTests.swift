import GQLGateCore
import GQLGateExchanges
@testable import GQLGate
import Testing

/// The body of `POST /cache/purge`.
@Suite struct AdminPurgeRequestTests {
    private func decode(_ body: String, contentType: String? = "application/json") throws(GatewayError) -> AdminPurgeRequest {
        try AdminPurgeRequest.decode(contentType: contentType, body: Bytes(body))
    }

    private func refusal(_ body: String, contentType: String? = "application/json") -> GatewayError? {
        do {
            _ = try decode(body, contentType: contentType)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryMember() throws {
        let request = try decode(#"{"types": ["Book"], "entities": ["Review:7"], "operations": ["HeroQuery"], "all": false, "soft": true}"#)
        #expect(request == AdminPurgeRequest(types: ["Book"], entities: ["Review:7"], operations: ["HeroQuery"], all: false, soft: true))
        #expect(request.purge == CachePurge(entities: ["Review:7", CacheTags.operation("HeroQuery")], types: ["Book"], soft: true))
    }

    @Test func membersAreOptionalAndNullIsTheDefault() throws {
        #expect(try decode(#"{"all": true}"#) == AdminPurgeRequest(all: true))
        #expect(try decode(#"{"all": true}"#).purge == CachePurge(entities: [CacheTags.everyAnswer]))
        #expect(try decode(#"{"entities": ["Review:7"], "types": null, "soft": null}"#) == AdminPurgeRequest(entities: ["Review:7"]))
        #expect(try decode(#"{"operations": ["Reviews"]}"#).purge == CachePurge(entities: [CacheTags.operation("Reviews")]))
        #expect(try decode(#"{"types": ["Review"]}"#, contentType: "application/json; charset=utf-8").purge == CachePurge(types: ["Review"]))
    }

    @Test func entityIdsMayHoldAnyCharacter() throws {
        #expect(try decode(#"{"entities": ["Review:a:b c", "_T:1"]}"#).entities == ["Review:a:b c", "_T:1"])
    }

    @Test func aBodyThatSelectsNothingIsRefused() {
        let expected = GatewayError.badRequest("Nothing to purge: name \"types\", \"entities\" or \"operations\", or set \"all\": true.")
        #expect(refusal("{}") == expected)
        #expect(refusal(#"{"types": [], "entities": [], "operations": [], "all": false, "soft": true}"#) == expected)
    }

    @Test func unknownMembersAreRefused() {
        #expect(refusal(#"{"all": true, "everything": true}"#)
            == .badRequest(#"Unknown member "everything"; expected "types", "entities", "operations", "all", "soft"."#))
    }

    @Test func wrongTypesAreRefused() {
        #expect(refusal(#"{"types": "Review"}"#) == .badRequest(#""types" must be a list of strings."#))
        #expect(refusal(#"{"entities": [7]}"#) == .badRequest(#""entities"[0] must be a string: "entities" is a list of strings."#))
        #expect(refusal(#"{"all": "true"}"#) == .badRequest(#""all" must be true or false."#))
        #expect(refusal(#"{"all": true, "soft": 1}"#) == .badRequest(#""soft" must be true or false."#))
    }

    @Test func namesAndEntitiesMustBeWellFormed() {
        #expect(refusal(#"{"types": ["Review", "not a type"]}"#)
            == .badRequest(#""types"[1] is "not a type"; expected a GraphQL type name."#))
        #expect(refusal(#"{"operations": ["Hero-Query"]}"#) == .badRequest(#""operations"[0] is "Hero-Query"; expected an operation name."#))
        for entity in ["Review", "Review:", ":7", "1Review:7", ""] {
            let message = refusal(#"{"entities": ["\#(entity)"]}"#)?.message
            #expect(message?.hasSuffix(#"expected an entity as Type:id, such as "Review:7"."#) == true, "\(entity)")
        }
    }

    @Test func aBodyThatIsNotAJSONObjectIsRefused() {
        #expect(refusal("") == .badRequest(#"The request body is empty; send a JSON object such as {"all": true}."#))
        #expect(refusal("[]") == .badRequest(#"The request body must be a JSON object such as {"all": true}."#))
        #expect(refusal("true") == .badRequest(#"The request body must be a JSON object such as {"all": true}."#))
        #expect(refusal(#"{"all": tru}"#) == .badRequest("The request body is not valid JSON (at byte 8)."))
        #expect(refusal(#"{"all": true, "all": false}"#) == .badRequest(#"The request body repeats the member "all"."#))
    }

    @Test func onlyJSONIsAccepted() {
        #expect(refusal(#"{"all": true}"#, contentType: nil)?.status == 415)
        #expect(refusal(#"{"all": true}"#, contentType: "text/plain")?.status == 415)
        #expect(refusal(#"{"all": true}"#, contentType: "application/x-www-form-urlencoded")?.code == "UNSUPPORTED_MEDIA_TYPE")
    }
}
