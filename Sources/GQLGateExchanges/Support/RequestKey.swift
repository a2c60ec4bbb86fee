import GQLGateCore
import GQLGatePipeline

/// What makes two queries the same for the response cache and dedupe: the
/// normalised document, the operation name, the variables in canonical form
/// (object keys sorted) and the scope (the values of the vary headers). Held
/// as the hex SHA-256 of those parts, so entries of different scopes never
/// meet and a key costs 64 bytes however large the variables are.
public struct RequestKey: Hashable, Sendable, CustomStringConvertible {
    /// Hex SHA-256 of the parts.
    public let digest: String
    /// Whether the request carried none of the vary headers.
    public let hasEmptyScope: Bool

    /// The key of `operation` (after `DocumentExchange`; without an analysed
    /// document the query text stands in for the normalised one).
    /// - Parameter varyHeaders: the header names that scope the cache (`cache.vary_headers`).
    public init(operation: Operation, varyHeaders: [String]) {
        let scope = Self.scope(of: operation.headers, varyHeaders: varyHeaders)
        let document = operation.document?.normalisedDigest ?? operation.request.query ?? ""
        var variables = operation.request.variables?.serialized(sortedKeys: true) ?? ""
        if variables == "{}" { variables = "" }
        var text = document
        for part in [operation.request.operationName ?? "", variables, scope] {
            text += "\u{0}"
            text += part
        }
        digest = DocumentCache.digest(of: text).hexString
        hasEmptyScope = scope.isEmpty
    }

    /// The scope: each vary header present, as `name:value[,value]` lines in
    /// the configured order; empty when none is present.
    public static func scope(of headers: HTTPHeaders, varyHeaders: [String]) -> String {
        var scope = ""
        for name in varyHeaders {
            let values = headers.values(for: name)
            guard !values.isEmpty else { continue }
            scope += name.lowercased() + ":" + values.joined(separator: ",") + "\n"
        }
        return scope
    }

    public var description: String { digest }
}
