package import GQLGateCore

/// Reads GraphQL-over-HTTP requests (POST JSON and GET) into a
/// `GraphQLRequest`, with the contract's status and code for every bad input.
package enum GraphQLHTTPDecoder {
    /// Decodes a request to the GraphQL endpoint.
    /// - Parameters:
    ///   - method: `GET` or `POST` (anything else is 405).
    ///   - contentType: the `Content-Type` header, for POST.
    ///   - queryItems: decoded URL parameters, for GET.
    ///   - body: the request body, for POST.
    package static func decode(method: String, contentType: String?, queryItems: [(name: String, value: String?)],
                              body: Bytes) throws(GatewayError) -> (GraphQLRequest, ClientTransport) {
        switch method {
        case "POST": return (try decodePOST(contentType: contentType, body: body), .httpPost)
        case "GET": return (try decodeGET(queryItems), .httpGet)
        default: throw .methodNotAllowed("Method \(method) is not supported; use GET or POST.", allow: "GET, POST")
        }
    }

    static func decodePOST(contentType: String?, body: Bytes) throws(GatewayError) -> GraphQLRequest {
        try checkContentType(contentType)
        guard body.count > 0 else { throw .badRequest("The request body is empty; send a JSON object with a \"query\".") }
        defer { withExtendedLifetime(body) {} }
        let bytes = UnsafeRawBufferPointer(start: body.baseAddress, count: body.count)
        // Member by member, without building the object; a member of the wrong
        // type is reported once the whole body is known to be JSON. A repeated
        // key is refused at once: the upstream, which gets these bytes, might
        // read the other member.
        var request = GraphQLRequest(query: nil)
        var wrongType: GatewayError?
        var seen = RequestBodyKeys()
        var ids = DocumentIDs()
        let isObject: Bool
        do {
            isObject = try JSONReader.readObject(bytes) { key, reader throws(JSONReader.Failure) in
                if isKey(key, "query") {
                    try seen.insert(.query, at: reader.keyOffset)
                    guard let query = try reader.stringOrNull() else { return noteWrongType(&wrongType, "\"query\" must be a string.") }
                    request.query = query
                } else if isKey(key, "operationName") {
                    try seen.insert(.operationName, at: reader.keyOffset)
                    guard let name = try reader.stringOrNull() else { return noteWrongType(&wrongType, "\"operationName\" must be a string.") }
                    request.operationName = name
                } else if isKey(key, "variables") {
                    try seen.insert(.variables, at: reader.keyOffset)
                    guard let variables = try object(&reader) else { return noteWrongType(&wrongType, "\"variables\" must be a JSON object.") }
                    request.variables = variables
                } else if isKey(key, "extensions") {
                    try seen.insert(.extensions, at: reader.keyOffset)
                    guard let extensions = try object(&reader) else { return noteWrongType(&wrongType, "\"extensions\" must be a JSON object.") }
                    request.extensions = extensions
                } else if isKey(key, "documentId") {
                    try seen.insert(.documentId, at: reader.keyOffset)
                    ids.documentId = try reader.stringOrNull() ?? nil
                } else if isKey(key, "doc_id") {
                    try seen.insert(.docID, at: reader.keyOffset)
                    ids.docID = try reader.stringOrNull() ?? nil
                } else if isKey(key, "id") {
                    try seen.insert(.id, at: reader.keyOffset)
                    ids.id = try reader.stringOrNull() ?? nil
                } else {
                    try seen.insert(other: key, at: reader.keyOffset)
                    try reader.skipValue()
                }
            }
        } catch {
            throw invalidJSON(error)
        }
        guard isObject else {
            do {
                _ = try JSONReader.read(bytes)
            } catch {
                throw invalidJSON(error)
            }
            throw .badRequest("The request body must be a JSON object (batched requests are not supported).")
        }
        if let wrongType { throw wrongType }
        request.documentID = ids.first
        return request
    }

    /// The ids a request may name a persisted document by; `first` is the one that counts.
    private struct DocumentIDs {
        var documentId: String?
        var docID: String?
        var id: String?

        var first: String? { nonEmpty(documentId) ?? nonEmpty(docID) ?? nonEmpty(id) }

        private func nonEmpty(_ id: String?) -> String? {
            guard let id, !id.isEmpty else { return nil }
            return id
        }
    }

    /// The 400 for a body that is not JSON, nests too deep or repeats a key.
    private static func invalidJSON(_ failure: JSONReader.Failure) -> GatewayError {
        .badRequest("The request body \(failure.predicate).")
    }

    /// Whether a member's key is `name`: by length, then bytes.
    private static func isKey(_ key: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount && name.withUTF8Buffer { JSONReader.sameBytes(key, UnsafeRawBufferPointer($0)) }
    }

    /// Keeps the first member of the wrong type (members are read in order).
    private static func noteWrongType(_ wrongType: inout GatewayError?, _ message: String) {
        if wrongType == nil { wrongType = .badRequest(message) }
    }

    /// The value here as an optional object: `.some(nil)` for null, nil for
    /// any other kind; an object that repeats a key, at any depth, is refused.
    private static func object(_ reader: inout JSONReader) throws(JSONReader.Failure) -> JSONValue?? {
        let offset = reader.offset
        let value = try reader.value()
        switch value {
        case .null: return .some(nil)
        case .object:
            if let key = value.repeatedKey { throw JSONReader.Failure(offset: offset, problem: .repeatedKey(key)) }
            return .some(value)
        default: return nil
        }
    }

    /// Accepts `application/json`, optionally with `charset=utf-8`.
    package static func checkContentType(_ contentType: String?) throws(GatewayError) {
        guard let contentType else {
            throw .unsupportedMediaType("Content-Type is missing; send application/json.")
        }
        if contentType.equalsIgnoringASCIICase("application/json") { return }
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false)
        guard String(parts[0].trimmingASCIISpaces()).equalsIgnoringASCIICase("application/json") else {
            throw .unsupportedMediaType("Content-Type \(contentType) is not supported; send application/json.")
        }
        for parameter in parts.dropFirst() {
            let pair = parameter.trimmingASCIISpaces().split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0]).equalsIgnoringASCIICase("charset") else { continue }
            let charset = String(pair[1].filter { $0 != "\"" })
            guard charset.equalsIgnoringASCIICase("utf-8") || charset.equalsIgnoringASCIICase("utf8") else {
                throw .unsupportedMediaType("Charset \(charset) is not supported; send UTF-8.")
            }
        }
    }

    static func decodeGET(_ items: [(name: String, value: String?)]) throws(GatewayError) -> GraphQLRequest {
        var seen: [String: String] = [:]
        for item in items where ["query", "operationName", "variables", "extensions", "documentId", "doc_id", "id"].contains(item.name) {
            guard seen[item.name] == nil else { throw .badRequest("The parameter \"\(item.name)\" is given more than once.") }
            seen[item.name] = item.value ?? ""
        }
        func nonEmpty(_ name: String) -> String? {
            guard let value = seen[name], !value.isEmpty else { return nil }
            return value
        }
        return GraphQLRequest(query: nonEmpty("query"), operationName: nonEmpty("operationName"),
                              variables: try jsonObject(nonEmpty("variables"), name: "variables"),
                              extensions: try jsonObject(nonEmpty("extensions"), name: "extensions"),
                              documentID: DocumentIDs(documentId: nonEmpty("documentId"), docID: nonEmpty("doc_id"), id: nonEmpty("id")).first)
    }

    static func jsonObject(_ text: String?, name: String) throws(GatewayError) -> JSONValue? {
        guard let text else { return nil }
        let value: JSONValue
        do throws(JSONReader.Failure) {
            value = try JSONReader.read(text)
            if let key = value.repeatedKey { throw JSONReader.Failure(offset: 0, problem: .repeatedKey(key)) }
        } catch where error.problem != .invalid {
            throw .badRequest("The parameter \"\(name)\" \(error.predicate).")
        } catch {
            throw .badRequest("The parameter \"\(name)\" must be a JSON object.")
        }
        guard value.isObject || value == .null else { throw .badRequest("The parameter \"\(name)\" must be a JSON object.") }
        return value == .null ? nil : value
    }
}
