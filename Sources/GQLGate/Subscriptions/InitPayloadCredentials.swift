import GQLGateCore
import GQLGatePipeline

/// The client key a WebSocket client may put in its `connection_init`
/// payload: `X-Api-Key` or `Authorization` (any letter case), at the top
/// level or under `headers`, as header fields for `ClientAuthenticator`.
enum InitPayloadCredentials {
    static func headers(in payload: JSONValue?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard case .object(let members)? = payload else { return headers }
        var candidates = members
        if case .object(let nested)? = payload?["headers"] { candidates += nested }
        for member in candidates {
            guard case .string(let value) = member.value else { continue }
            let name = member.key.lowercased()
            if name == "x-api-key" || name == "authorization" { headers.add(name: name, value: value) }
        }
        return headers
    }
}
