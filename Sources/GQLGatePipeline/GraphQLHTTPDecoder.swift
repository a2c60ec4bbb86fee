import GQLGateCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads GraphQL-over-HTTP requests (POST JSON and GET) into a
/// `GraphQLRequest`, with the contract's status and code for every bad input.
public enum GraphQLHTTPDecoder {
    /// Decodes a request to the GraphQL endpoint.
    /// - Parameters:
    ///   - method: `GET` or `POST` (anything else is 405).
    ///   - contentType: the `Content-Type` header, for POST.
    ///   - queryItems: decoded URL parameters, for GET.
    ///   - body: the request body, for POST.
    public static func decode(method: String, contentType: String?, queryItems: [(name: String, value: String?)],
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
        let data = body.withUnsafeBytes { Data($0) }
        do {
            return try JSONDecoder().decode(WireRequest.self, from: data).request
        } catch let error as GatewayError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .badRequest("The request body must be a JSON object (batched requests are not supported).")
        } catch {
            throw .badRequest("The request body is not valid JSON.")
        }
    }

    static func checkContentType(_ contentType: String?) throws(GatewayError) {
        guard let contentType else {
            throw .unsupportedMediaType("Content-Type is missing; send application/json.")
        }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == "application/json" else {
            throw .unsupportedMediaType("Content-Type \(contentType) is not supported; send application/json.")
        }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).filter { $0 != "\"" }
            guard charset == "utf-8" || charset == "utf8" else {
                throw .unsupportedMediaType("Charset \(charset) is not supported; send UTF-8.")
            }
        }
    }

    static func decodeGET(_ items: [(name: String, value: String?)]) throws(GatewayError) -> GraphQLRequest {
        var seen: [String: String] = [:]
        for item in items where ["query", "operationName", "variables", "extensions"].contains(item.name) {
            guard seen[item.name] == nil else { throw .badRequest("The parameter \"\(item.name)\" is given more than once.") }
            seen[item.name] = item.value ?? ""
        }
        func nonEmpty(_ name: String) -> String? {
            guard let value = seen[name], !value.isEmpty else { return nil }
            return value
        }
        return GraphQLRequest(query: nonEmpty("query"), operationName: nonEmpty("operationName"),
                              variables: try jsonObject(nonEmpty("variables"), name: "variables"),
                              extensions: try jsonObject(nonEmpty("extensions"), name: "extensions"))
    }

    static func jsonObject(_ text: String?, name: String) throws(GatewayError) -> JSONValue? {
        guard let text else { return nil }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), value.isObject || value == .null else {
            throw .badRequest("The parameter \"\(name)\" must be a JSON object.")
        }
        return value == .null ? nil : value
    }
}

/// The POST body's fields, type-checked one by one so errors can name them.
private struct WireRequest: Decodable {
    let request: GraphQLRequest

    enum Key: String, CodingKey {
        case query, operationName, variables, extensions
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func string(_ key: Key) throws -> String? {
            do { return try container.decodeIfPresent(String.self, forKey: key) } catch DecodingError.typeMismatch {
                throw GatewayError.badRequest("\"\(key.rawValue)\" must be a string.")
            }
        }
        func object(_ key: Key) throws -> JSONValue? {
            guard let value = try container.decodeIfPresent(JSONValue.self, forKey: key), value != .null else { return nil }
            guard value.isObject else { throw GatewayError.badRequest("\"\(key.rawValue)\" must be a JSON object.") }
            return value
        }
        request = GraphQLRequest(query: try string(.query), operationName: try string(.operationName),
                                 variables: try object(.variables), extensions: try object(.extensions))
    }
}
