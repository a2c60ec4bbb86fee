package import GQLGateCore
package import GQLGatePipeline

/// The `connection_init` payload gqlgate sends upstream (contract,
/// `auth.ws_init_payload`): `{header name: value}` for every credential
/// header it adds upstream, names as configured, with the configured
/// payload's members merged over it.
package enum UpstreamInitPayload {
    /// - Parameters:
    ///   - credentialHeaders: the credential headers gqlgate adds to upstream requests now.
    ///   - configured: `auth.ws_init_payload` (an object), or nil.
    package static func make(credentialHeaders: HTTPHeaders, configured: JSONValue?) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        func set(_ key: String, _ value: JSONValue) {
            if let index = members.firstIndex(where: { $0.key == key }) {
                members[index].value = value
            } else {
                members.append((key, value))
            }
        }
        for field in credentialHeaders { set(field.name, .string(field.value)) }
        if case .object(let overrides)? = configured {
            for member in overrides { set(member.key, member.value) }
        }
        return .object(members)
    }
}
