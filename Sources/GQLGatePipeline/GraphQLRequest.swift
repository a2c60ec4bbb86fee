/// The GraphQL-over-HTTP request parameters, however the client sent them.
public struct GraphQLRequest: Sendable, Equatable {
    /// The document text; nil when only a persisted-query hash was sent.
    public var query: String?
    /// The operation to run, for documents with several.
    public var operationName: String?
    /// Variables (a JSON object) or nil.
    public var variables: JSONValue?
    /// Extensions (a JSON object) or nil.
    public var extensions: JSONValue?
    /// The persisted document asked for by id: `documentId` (`sha256:<hex>`
    /// or a custom id), else Relay's `doc_id`, else `id`; nil when none was
    /// sent (or none was a string).
    public var documentID: String?

    public init(query: String?, operationName: String? = nil, variables: JSONValue? = nil, extensions: JSONValue? = nil,
                documentID: String? = nil) {
        self.query = query
        self.operationName = operationName
        self.variables = variables
        self.extensions = extensions
        self.documentID = documentID
    }

    /// The request as a JSON body (`{"query":...,"operationName":...,...}`), absent fields left out
    /// (`documentID` too: the upstream is sent the document it names).
    package func jsonBody() -> String {
        var members: [(key: String, value: JSONValue)] = []
        if let query { members.append(("query", .string(query))) }
        if let operationName { members.append(("operationName", .string(operationName))) }
        if let variables { members.append(("variables", variables)) }
        if let extensions { members.append(("extensions", extensions)) }
        return JSONValue.object(members).serialized()
    }
}
