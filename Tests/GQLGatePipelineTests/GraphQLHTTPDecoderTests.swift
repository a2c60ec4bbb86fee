import GQLGateCore
import GQLGatePipeline
import Testing

/// Decodes a POST with `body`.
private func post(_ body: String, contentType: String? = "application/json") throws(GatewayError) -> GraphQLRequest {
    let (request, transport) = try GraphQLHTTPDecoder.decode(method: "POST", contentType: contentType, queryItems: [], body: Bytes(body))
    #expect(transport == .httpPost)
    return request
}

/// Decodes a GET with `items` as its URL parameters.
private func get(_ items: [(name: String, value: String?)]) throws(GatewayError) -> GraphQLRequest {
    let (request, transport) = try GraphQLHTTPDecoder.decode(method: "GET", contentType: nil, queryItems: items, body: .empty)
    #expect(transport == .httpGet)
    return request
}

/// The error decoding throws, or nil when it succeeds.
private func failure(method: String = "POST", contentType: String? = "application/json",
                     queryItems: [(name: String, value: String?)] = [], body: String = "") -> GatewayError? {
    do {
        _ = try GraphQLHTTPDecoder.decode(method: method, contentType: contentType, queryItems: queryItems, body: Bytes(body))
        return nil
    } catch {
        return error
    }
}

@Suite struct GraphQLHTTPDecoderPOSTTests {
    @Test func readsEveryField() throws {
        let request = try post(#"""
            {"query":"query Q($id: ID) { review(id: $id) { stars } }","operationName":"Q",
             "variables":{"id":"1000"},"extensions":{"persistedQuery":{"version":1}}}
            """#)
        #expect(request == GraphQLRequest(
            query: "query Q($id: ID) { review(id: $id) { stars } }", operationName: "Q",
            variables: .object([("id", .string("1000"))]),
            extensions: .object([("persistedQuery", .object([("version", .integer(1))]))])))
    }

    @Test func readsVariablesOfEveryJSONType() throws {
        let request = try post(#"{"query":"{ a }","variables":{"s":"x","i":-3,"d":2.5,"b":false,"n":null,"l":[1,"two"],"o":{"k":true}}}"#)
        let variables = try #require(request.variables)
        #expect(variables["s"] == .string("x"))
        #expect(variables["i"] == .integer(-3))
        #expect(variables["d"] == .number("2.5"))
        #expect(variables["b"] == .bool(false))
        #expect(variables["n"] == .null)
        #expect(variables["l"] == .array([.integer(1), .string("two")]))
        #expect(variables["o"] == .object([("k", .bool(true))]))
        #expect(variables["missing"] == nil)
    }

    @Test func variablesKeepTheClientsKeyOrder() throws {
        let variables = #"{"z":1,"y":{"b":2,"a":1},"x":3,"w":4,"v":5,"u":6,"t":7,"s":8}"#
        let request = try post(#"{"variables":"# + variables + #","query":"{ a }"}"#)
        #expect(request.jsonBody() == #"{"query":"{ a }","variables":"# + variables + "}")
    }

    @Test func nullFieldsAreAbsent() throws {
        let request = try post(#"{"query":"{ a }","operationName":null,"variables":null,"extensions":null}"#)
        #expect(request == GraphQLRequest(query: "{ a }"))
    }

    @Test func missingFieldsAreAbsentAndUnknownOnesIgnored() throws {
        #expect(try post(#"{"extensions":{"persistedQuery":{"version":1}},"other":[1]}"#)
            == GraphQLRequest(query: nil, extensions: .object([("persistedQuery", .object([("version", .integer(1))]))])))
        #expect(try post("{}") == GraphQLRequest(query: nil))
    }

    @Test func emptyVariablesObjectIsKept() throws {
        #expect(try post(#"{"query":"{ a }","variables":{}}"#).variables == .object([]))
    }

    @Test(arguments: [#"{"query": "{ a }""#, "query={a}", #"{"query":'{ a }'}"#, "\u{FF}\u{FE}"])
    func bodyNotJSONIsBadRequest(body: String) throws {
        let error = try #require(failure(body: body))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains("not valid JSON"))
    }

    @Test(arguments: [#"[{"query":"{ a }"},{"query":"{ b }"}]"#, #""{ a }""#, "42", "true", "null"])
    func bodyThatIsNotAnObjectIsBadRequest(body: String) throws {
        let error = try #require(failure(body: body))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains("must be a JSON object"))
    }

    @Test(arguments: [
        (#"{"query":1}"#, #""query" must be a string"#),
        (#"{"query":["{ a }"]}"#, #""query" must be a string"#),
        (#"{"query":"{ a }","operationName":{"name":"Q"}}"#, #""operationName" must be a string"#),
        (#"{"query":"{ a }","operationName":7}"#, #""operationName" must be a string"#),
        (#"{"query":"{ a }","variables":"{\"id\":1}"}"#, #""variables" must be a JSON object"#),
        (#"{"query":"{ a }","variables":[1,2]}"#, #""variables" must be a JSON object"#),
        (#"{"query":"{ a }","variables":5}"#, #""variables" must be a JSON object"#),
        (#"{"query":"{ a }","extensions":"x"}"#, #""extensions" must be a JSON object"#),
        (#"{"query":"{ a }","extensions":[]}"#, #""extensions" must be a JSON object"#),
    ])
    func fieldOfTheWrongTypeIsBadRequestNamingTheField(body: String, message: String) throws {
        let error = try #require(failure(body: body))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func escapedMemberNamesAreTheSameMembers() throws {
        #expect(try post(#"{"\u0071uery":"{ a }","operation\u004eame":"Q"}"#) == GraphQLRequest(query: "{ a }", operationName: "Q"))
    }

    @Test(arguments: [
        (#"{"query":"{ a { b { c } } }","query":"{ hero { name } }"}"#, "query"),
        (#"{"query":"{ a }","\u0071uery":"{ b }"}"#, "query"),
        (#"{"query":null,"query":"{ b }"}"#, "query"),
        (#"{"query":"{ a }","operationName":"A","operationName":"B"}"#, "operationName"),
        (#"{"query":"{ a }","variables":{"id":1},"variables":{"id":2}}"#, "variables"),
        (#"{"query":"{ a }","extensions":{},"extensions":{"persistedQuery":{"version":1}}}"#, "extensions"),
        (#"{"query":"{ a }","documentId":"a","documentId":"b"}"#, "documentId"),
        (#"{"query":"{ a }","variables":{"id":1,"id":2}}"#, "id"),
        (#"{"query":"{ a }","variables":{"input":{"list":[{"x":1,"y":2,"x":3}]}}}"#, "x"),
        (#"{"query":"{ a }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"a","sha256Hash":"b"}}}"#, "sha256Hash"),
        (#"{"query":"{ a }","extensions":{"persistedQuery":{},"persistedQuery":{}}}"#, "persistedQuery"),
    ])
    func aRepeatedKeyThatGQLGateReadsIsBadRequestNamingIt(body: String, key: String) throws {
        let error = try #require(failure(body: body))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains("repeats the key \"\(key)\""), "\(error.message)")
    }

    @Test func keysRepeatedInsideAMemberGQLGateDoesNotReadAreLeftToTheUpstream() throws {
        #expect(try post(#"{"query":"{ a }","other":{"k":1,"k":2}}"#) == GraphQLRequest(query: "{ a }"))
    }

    @Test func aBodyNestedPastTheBoundIsBadRequestSayingSo() throws {
        let deep = String(repeating: "[", count: 100_000)
        for body in [deep, #"{"query":"{ a }","variables":{"v":"# + deep + "}}", #"{"query":"{ a }","other":"# + deep + "}"] {
            let error = try #require(failure(body: body))
            #expect(error.status == 400)
            #expect(error.code == "BAD_REQUEST")
            #expect(error.message.contains("deeper than \(JSONReader.maximumDepth) levels"), "\(error.message)")
        }
        let depth = JSONReader.maximumDepth - 2
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(try post(#"{"query":"{ a }","variables":{"v":"# + nested + "}}").variables != nil)
    }

    @Test func numbersInVariablesKeepTheirText() throws {
        let variables = #"{"a":5.0,"b":1e400,"c":-0,"d":12345678901234567890,"e":1.5E+3}"#
        let request = try post(#"{"query":"{ a }","variables":"# + variables + "}")
        #expect(request.jsonBody() == #"{"query":"{ a }","variables":"# + variables + "}")
    }

    @Test func invalidJSONIsReportedBeforeAMemberOfTheWrongType() throws {
        let error = try #require(failure(body: #"{"query":1,"variables":{"#))
        #expect(error.message.contains("not valid JSON"), "\(error.message)")
    }

    @Test func firstMemberOfTheWrongTypeIsTheOneNamed() throws {
        let error = try #require(failure(body: #"{"operationName":1,"query":2}"#))
        #expect(error.message.contains(#""operationName" must be a string"#), "\(error.message)")
    }

    @Test func emptyBodyIsBadRequest() throws {
        let error = try #require(failure(body: ""))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains("empty"))
    }
}

@Suite struct GraphQLHTTPDecoderContentTypeTests {
    @Test(arguments: [
        "application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8",
        "Application/JSON; Charset=\"utf-8\"", "application/json; charset=utf8", "application/json ; boundary=x",
    ])
    func jsonInUTF8IsAccepted(contentType: String) throws {
        #expect(try post(#"{"query":"{ a }"}"#, contentType: contentType) == GraphQLRequest(query: "{ a }"))
    }

    @Test func missingContentTypeIs415() throws {
        let error = try #require(failure(contentType: nil, body: #"{"query":"{ a }"}"#))
        #expect(error.status == 415)
        #expect(error.code == "UNSUPPORTED_MEDIA_TYPE")
        #expect(error.message.contains("Content-Type is missing"))
    }

    @Test(arguments: ["text/plain", "application/graphql", "application/x-www-form-urlencoded", "", "application/jsonx"])
    func otherMediaTypesAre415(contentType: String) throws {
        let error = try #require(failure(contentType: contentType, body: #"{"query":"{ a }"}"#))
        #expect(error.status == 415)
        #expect(error.code == "UNSUPPORTED_MEDIA_TYPE")
        #expect(error.message.contains("application/json"))
    }

    @Test func otherCharsetsAre415NamingTheCharset() throws {
        let error = try #require(failure(contentType: "application/json; charset=latin1", body: #"{"query":"{ a }"}"#))
        #expect(error.status == 415)
        #expect(error.code == "UNSUPPORTED_MEDIA_TYPE")
        #expect(error.message.contains("latin1"))
    }

    @Test func contentTypeIsCheckedBeforeTheBody() throws {
        #expect(try #require(failure(contentType: "text/plain", body: "")).status == 415)
    }
}

@Suite struct GraphQLHTTPDecoderGETTests {
    @Test func readsEveryParameter() throws {
        let request = try get([
            ("query", "query Q($id: ID) { review(id: $id) { stars } }"), ("operationName", "Q"),
            ("variables", #"{"id":"1000"}"#), ("extensions", #"{"persistedQuery":{"version":1}}"#), ("utm_source", "x"),
        ])
        #expect(request == GraphQLRequest(
            query: "query Q($id: ID) { review(id: $id) { stars } }", operationName: "Q",
            variables: .object([("id", .string("1000"))]),
            extensions: .object([("persistedQuery", .object([("version", .integer(1))]))])))
    }

    @Test func variablesKeepTheClientsKeyOrder() throws {
        let variables = #"{"z":1,"y":{"b":2,"a":1},"x":3,"w":4,"v":5,"u":6,"t":7,"s":8}"#
        #expect(try get([("query", "{ a }"), ("variables", variables)]).jsonBody() == #"{"query":"{ a }","variables":"# + variables + "}")
    }

    @Test func ignoresContentTypeAndBody() throws {
        let (request, _) = try GraphQLHTTPDecoder.decode(method: "GET", contentType: "text/plain", queryItems: [("query", "{ a }")],
                                                         body: Bytes("not json"))
        #expect(request == GraphQLRequest(query: "{ a }"))
    }

    @Test(arguments: ["query", "operationName", "variables", "extensions"])
    func duplicateParameterIsBadRequestNamingIt(name: String) throws {
        let value = name == "variables" || name == "extensions" ? "{}" : "Q"
        let items: [(name: String, value: String?)] = name == "query"
            ? [("query", "{ a }"), ("query", "{ b }")]
            : [("query", "{ a }"), (name, value), (name, value)]
        let error = try #require(failure(method: "GET", queryItems: items))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains("\"\(name)\" is given more than once"), "\(error.message)")
    }

    @Test func duplicateUnknownParametersAreIgnored() throws {
        #expect(try get([("query", "{ a }"), ("x", "1"), ("x", "2")]) == GraphQLRequest(query: "{ a }"))
    }

    @Test(arguments: [("variables", "[1]"), ("variables", #""x""#), ("variables", "3"), ("variables", "{not json"),
                      ("extensions", "[]"), ("extensions", "true")])
    func objectParameterThatIsNotAnObjectIsBadRequest(name: String, value: String) throws {
        let error = try #require(failure(method: "GET", queryItems: [("query", "{ a }"), (name, value)]))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains("\"\(name)\" must be a JSON object"), "\(error.message)")
    }

    @Test(arguments: [("variables", #"{"id":1,"id":2}"#, "repeats the key \"id\""),
                      ("extensions", #"{"persistedQuery":{"version":1,"version":2}}"#, "repeats the key \"version\"")])
    func objectParameterThatRepeatsAKeyIsBadRequest(name: String, value: String, message: String) throws {
        let error = try #require(failure(method: "GET", queryItems: [("query", "{ a }"), (name, value)]))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message.contains("\"\(name)\" \(message)"), "\(error.message)")
    }

    @Test func objectParameterNestedPastTheBoundIsBadRequestSayingSo() throws {
        let deep = #"{"v":"# + String(repeating: "[", count: 100_000) + "}"
        let error = try #require(failure(method: "GET", queryItems: [("query", "{ a }"), ("variables", deep)]))
        #expect(error.status == 400)
        #expect(error.code == "BAD_REQUEST")
        #expect(error.message == "The parameter \"variables\" nests arrays and objects deeper than \(JSONReader.maximumDepth) levels.")
    }

    @Test func emptyAndNullParametersAreAbsent() throws {
        #expect(try get([("query", ""), ("operationName", ""), ("variables", ""), ("extensions", "")]) == GraphQLRequest(query: nil))
        #expect(try get([("query", nil), ("operationName", nil), ("variables", "null"), ("extensions", "null")])
            == GraphQLRequest(query: nil))
        #expect(try get([]) == GraphQLRequest(query: nil))
    }
}

@Suite struct GraphQLHTTPDecoderMethodTests {
    @Test(arguments: ["PUT", "DELETE", "PATCH", "OPTIONS"])
    func otherMethodsAre405WithAllow(method: String) throws {
        let error = try #require(failure(method: method, body: #"{"query":"{ a }"}"#))
        #expect(error.status == 405)
        #expect(error.code == "METHOD_NOT_ALLOWED")
        #expect(error.headers["Allow"] == "GET, POST")
        #expect(error.message.contains(method))
    }
}

@Suite struct GraphQLHTTPDecoderDocumentIDTests {
    @Test func documentIdDocIDAndIDAreReadInThatOrderOfPrecedence() throws {
        #expect(try post(#"{"documentId": "sha256:abc", "doc_id": "d", "id": "i"}"#).documentID == "sha256:abc")
        #expect(try post(#"{"doc_id": "d", "id": "i", "variables": {"a": 1}}"#).documentID == "d")
        #expect(try post(#"{"id": "i"}"#).documentID == "i")
        #expect(try post(#"{"query": "{ a }"}"#).documentID == nil)
        #expect(try post(#"{"id": 5, "query": "{ a }"}"#).documentID == nil)
        #expect(try get([("documentId", "custom-1"), ("variables", #"{"a":1}"#)]).documentID == "custom-1")
        #expect(try get([("doc_id", "d"), ("id", "i")]).documentID == "d")
        #expect(try get([("id", "i")]).documentID == "i")
    }

    @Test func aRepeatedIDIsRefused() {
        #expect(failure(body: #"{"doc_id": "a", "doc_id": "b"}"#)?.message.contains("\"doc_id\"") == true)
        #expect(failure(method: "GET", queryItems: [("documentId", "a"), ("documentId", "b")])
            == .badRequest("The parameter \"documentId\" is given more than once."))
    }
}
