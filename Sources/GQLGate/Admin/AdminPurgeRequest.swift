import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline

/// The body of `POST /cache/purge`: a JSON object whose members are all optional,
/// `{"types": ["Review"], "entities": ["Review:7"], "operations": ["HeroQuery"], "all": false, "soft": false}`.
/// A member absent or null keeps its default (`[]`, `false`); any other member,
/// a member of the wrong type, an element that is not a name (`types`,
/// `operations`) or a `Type:id` (`entities`), or a body that selects nothing is refused.
struct AdminPurgeRequest: Equatable {
    /// Object type names: every answer holding an object of one of them.
    var types: [String] = []
    /// Entities as `Type:id`: every answer holding one of them.
    var entities: [String] = []
    /// Operation names: every answer to an operation of one of these names.
    var operations: [String] = []
    /// Every answer.
    var all = false
    /// Mark the answers stale instead of dropping them.
    var soft = false

    static let members = ["types", "entities", "operations", "all", "soft"]

    /// The purge the store carries out: operations and `all` are entity tags (`CacheTags`).
    var purge: CachePurge {
        var tags = Set(entities)
        for name in operations { tags.insert(CacheTags.operation(name)) }
        if all { tags.insert(CacheTags.everyAnswer) }
        return CachePurge(entities: tags, types: Set(types), soft: soft)
    }

    /// Reads a request's `Content-Type` and body.
    /// - Throws: 415 `UNSUPPORTED_MEDIA_TYPE` for anything but `application/json`
    ///   (so a browser page cannot send it cross-site without a preflight), 400
    ///   `BAD_REQUEST` for a body that is not the object above.
    static func decode(contentType: String?, body: Bytes) throws(GatewayError) -> AdminPurgeRequest {
        try GraphQLHTTPDecoder.checkContentType(contentType)
        guard body.count > 0 else { throw .badRequest("The request body is empty; send a JSON object such as {\"all\": true}.") }
        let value: JSONValue
        do {
            defer { withExtendedLifetime(body) {} }
            value = try JSONReader.read(UnsafeRawBufferPointer(start: body.baseAddress, count: body.count))
        } catch {
            throw .badRequest("The request body \(error.predicate).")
        }
        guard case .object(let members) = value else {
            throw .badRequest("The request body must be a JSON object such as {\"all\": true}.")
        }
        if let key = value.repeatedKey { throw .badRequest("The request body repeats the member \(quoted(key)).") }
        var request = AdminPurgeRequest()
        for (key, member) in members {
            switch key {
            case "types": request.types = try names(member, key: key, valid: \.isGraphQLName, expected: "a GraphQL type name")
            case "entities":
                request.entities = try names(member, key: key, valid: \.isEntityTag, expected: "an entity as Type:id, such as \"Review:7\"")
            case "operations": request.operations = try names(member, key: key, valid: \.isGraphQLName, expected: "an operation name")
            case "all": request.all = try flag(member, key: key)
            case "soft": request.soft = try flag(member, key: key)
            default:
                throw .badRequest("Unknown member \(quoted(key)); expected \(Self.members.map { "\"\($0)\"" }.joined(separator: ", ")).")
            }
        }
        guard request.all || !request.types.isEmpty || !request.entities.isEmpty || !request.operations.isEmpty else {
            throw .badRequest("Nothing to purge: name \"types\", \"entities\" or \"operations\", or set \"all\": true.")
        }
        return request
    }

    private static func names(_ value: JSONValue, key: String, valid: (String) -> Bool, expected: String) throws(GatewayError) -> [String] {
        switch value {
        case .null:
            return []
        case .array(let elements):
            var names: [String] = []
            for (index, element) in elements.enumerated() {
                guard case .string(let name) = element else {
                    throw .badRequest("\"\(key)\"[\(index)] must be a string: \"\(key)\" is a list of strings.")
                }
                guard valid(name) else { throw .badRequest("\"\(key)\"[\(index)] is \(quoted(name)); expected \(expected).") }
                names.append(name)
            }
            return names
        default:
            throw .badRequest("\"\(key)\" must be a list of strings.")
        }
    }

    private static func flag(_ value: JSONValue, key: String) throws(GatewayError) -> Bool {
        switch value {
        case .null: return false
        case .bool(let flag): return flag
        default: throw .badRequest("\"\(key)\" must be true or false.")
        }
    }

    /// `text` as a JSON string, shortened past 64 characters.
    private static func quoted(_ text: String) -> String {
        var quoted = ""
        JSONValue.writeString(text.count > 64 ? text.prefix(64) + "…" : text, to: &quoted)
        return quoted
    }
}

extension String {
    /// A GraphQL name: `[_A-Za-z][_0-9A-Za-z]*`.
    fileprivate var isGraphQLName: Bool {
        guard let first = utf8.first, first == UInt8(ascii: "_") || first.isASCIILetterByte else { return false }
        return utf8.allSatisfy { $0 == UInt8(ascii: "_") || $0.isASCIILetterByte || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// An entity tag, `Type:id`: a GraphQL name, a colon, an id that is not empty.
    fileprivate var isEntityTag: Bool {
        guard let colon = firstIndex(of: ":") else { return false }
        return String(self[..<colon]).isGraphQLName && index(after: colon) < endIndex
    }
}

extension UInt8 {
    fileprivate var isASCIILetterByte: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}
