import GQLGateCore
import GQLGatePipeline

/// The client key a WebSocket client may put in its `connection_init`
/// payload: `X-Api-Key` or `Authorization` (any letter case), at the top
/// level or under `headers`, as header fields for `ClientAuthenticator`.
/// Other fields so sent (the trace context) are read the same way.
enum InitPayloadCredentials {
    /// The string members of `payload` (or of its `headers`) named `names` (lower case), as header fields.
    static func headers(in payload: JSONValue?, named names: [String] = ["x-api-key", "authorization"]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard case .object(let members)? = payload else { return headers }
        var candidates = members
        if case .object(let nested)? = payload?["headers"] { candidates += nested }
        for member in candidates {
            guard case .string(let value) = member.value else { continue }
            let name = member.key.lowercased()
            if names.contains(name) { headers.add(name: name, value: value) }
        }
        return headers
    }
}
