import Foundation
import GQLGateCore
import GQLGatePipeline
import Testing

/// The body parsed back with Foundation: (message, code) of each error, and the top-level keys.
private func parse(_ body: String) throws -> (errors: [(message: String, code: String)], keys: [String]) {
    let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
    let errors = try #require(object["errors"] as? [[String: Any]])
    return (try errors.map { error in
        let extensions = try #require(error["extensions"] as? [String: Any])
        return (try #require(error["message"] as? String), try #require(extensions["code"] as? String))
    }, object.keys.sorted())
}

@Suite struct GatewayErrorTests {
    @Test func jsonBodyIsAGraphQLResponseWithOneError() throws {
        let error = GatewayError.badRequest("The request has no \"query\".")
        #expect(error.jsonBody() == #"{"errors":[{"message":"The request has no \"query\".","extensions":{"code":"BAD_REQUEST"}}]}"#)
        let parsed = try parse(error.jsonBody())
        #expect(parsed.keys == ["errors"])
        #expect(parsed.errors.count == 1)
        #expect(parsed.errors.first?.message == "The request has no \"query\".")
        #expect(parsed.errors.first?.code == "BAD_REQUEST")
    }

    @Test func aLocatedErrorNamesItsLineAndColumn() {
        var error = GatewayError.parseFailed("Syntax Error: Expected Name, found <EOF>")
        error.locations = [DocumentLocation(line: 2, column: 7)]
        #expect(error.jsonBody() == #"{"errors":[{"message":"Syntax Error: Expected Name, found <EOF>","locations":[{"line":2,"column":7}],"#
            + #""extensions":{"code":"GRAPHQL_PARSE_FAILED"}}]}"#)
        #expect(error != .parseFailed("Syntax Error: Expected Name, found <EOF>"))
    }

    @Test(arguments: [
        "say \"hi\"", "line one\nline two\r\n", "tab\there", "back\\slash", "nul \u{0} bell \u{7} esc \u{1B} us \u{1F}",
        "unicode é 中 😀 \u{2028}", "</script>", "",
    ])
    func messagesSurviveEscaping(message: String) throws {
        let parsed = try parse(GatewayError(status: 400, code: "BAD_REQUEST", message: message).jsonBody())
        #expect(parsed.errors.first?.message == message)
    }

    @Test func theErrorObjectInStreamsIsTheBodysOnlyError() {
        let error = GatewayError.upstreamTimeout("The upstream took \"too long\".")
        #expect(error.jsonBody() == #"{"errors":["# + error.graphQLError.serialized() + "]}")
    }

    @Test func codeIsEscapedToo() throws {
        let parsed = try parse(GatewayError(status: 400, code: "ODD\"CODE\n", message: "m").jsonBody())
        #expect(parsed.errors.first?.code == "ODD\"CODE\n")
    }

    @Test func responseCarriesStatusBodyAndTheMediaTypesContentType() {
        let error = GatewayError.unsupportedMediaType("Send application/json.")
        let response = error.response()
        #expect(response.status == 415)
        #expect(response.source == .gateway)
        #expect(response.body.string == error.jsonBody())
        #expect(response.headers.fields == [HTTPHeaders.Field(name: "Content-Type", value: "application/graphql-response+json; charset=utf-8")])
        let legacy = error.response(as: .json)
        #expect(legacy.status == 415)
        #expect(legacy.body.string == error.jsonBody())
        #expect(legacy.headers.fields == [HTTPHeaders.Field(name: "Content-Type", value: "application/json; charset=utf-8")])
    }

    @Test func responseKeepsExtraHeaders() {
        let response = GatewayError.methodNotAllowed("Mutations need POST.", allow: "POST").response(as: .json)
        #expect(response.status == 405)
        #expect(response.headers.fields == [
            HTTPHeaders.Field(name: "Allow", value: "POST"),
            HTTPHeaders.Field(name: "Content-Type", value: "application/json; charset=utf-8"),
        ])
    }

    /// GraphQL request errors of a well-formed request are 200 in `application/json`; every other
    /// answer keeps its status, whatever the media type.
    @Test func statusPerMediaType() {
        let cases: [(GatewayError, Int)] = [
            (.parseFailed("m"), 200),
            (.queryTooComplex("m"), 200),
            (.operationNotDetermined("m"), 200),
            (.badRequest("m"), 400),
            (.subscriptionTransportRequired, 400),
            (.persistedQueryHashMismatch, 400),
            (.persistedQueryNotFound, 200),
            (.methodNotAllowed("m", allow: "POST"), 405),
            (.unsupportedMediaType("m"), 415),
            (.noAcceptableMediaType, 406),
            (.payloadTooLarge(limit: 1), 413),
            (.unauthenticated("m"), 401),
            (.upstreamUnavailable("m"), 502),
            (.upstreamTimeout("m"), 504),
            (.shuttingDown, 503),
            (.internalError("m"), 500),
        ]
        for (error, legacyStatus) in cases {
            #expect(error.status(as: .graphQLResponse) == error.status, "\(error)")
            #expect(error.response(as: .graphQLResponse).status == error.status, "\(error)")
            #expect(error.status(as: .json) == legacyStatus, "\(error)")
            #expect(error.response(as: .json).status == legacyStatus, "\(error)")
        }
    }

    @Test func contractCases() {
        let cases: [(GatewayError, Int, String)] = [
            (.badRequest("m"), 400, "BAD_REQUEST"),
            (.parseFailed("m"), 400, "GRAPHQL_PARSE_FAILED"),
            (.methodNotAllowed("m", allow: "POST"), 405, "METHOD_NOT_ALLOWED"),
            (.subscriptionTransportRequired, 400, "SUBSCRIPTION_TRANSPORT_REQUIRED"),
            (.unsupportedMediaType("m"), 415, "UNSUPPORTED_MEDIA_TYPE"),
            (.payloadTooLarge(limit: 1024), 413, "PAYLOAD_TOO_LARGE"),
            (.upstreamUnavailable("m"), 502, "UPSTREAM_UNAVAILABLE"),
            (.upstreamTimeout("m"), 504, "UPSTREAM_TIMEOUT"),
            (.notFound("/x"), 404, "NOT_FOUND"),
            (.internalError("m"), 500, "INTERNAL_SERVER_ERROR"),
        ]
        #expect(cases.map { "\($0.0.status) \($0.0.code)" } == cases.map { "\($0.1) \($0.2)" })
    }

    @Test func messagesNameWhatWentWrong() {
        #expect(GatewayError.payloadTooLarge(limit: 1024).message.contains("server.max_body_bytes (1024 bytes)"))
        #expect(GatewayError.notFound("/nope").message.contains("/nope"))
        #expect(GatewayError.subscriptionTransportRequired.message.contains("WebSocket"))
        #expect(GatewayError.methodNotAllowed("m", allow: "POST").headers["allow"] == "POST")
    }

    @Test func descriptionAndEquality() {
        #expect(GatewayError.badRequest("No query.").description == "400 BAD_REQUEST: No query.")
        #expect(GatewayError.badRequest("a") == GatewayError.badRequest("a"))
        #expect(GatewayError.badRequest("a") != GatewayError.badRequest("b"))
        #expect(GatewayError.methodNotAllowed("a", allow: "POST") != GatewayError.methodNotAllowed("a", allow: "GET"))
        #expect(GatewayError.badRequest("a") != GatewayError.parseFailed("a"))
    }

    @Test func isItsOwnGatewayError() {
        let error: any GatewayErrorConvertible = GatewayError.upstreamTimeout("slow")
        #expect(error.gatewayError == .upstreamTimeout("slow"))
    }
}
