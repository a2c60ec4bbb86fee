import Foundation
import GQLGatePipeline
import GQLGateSubscriptions
import GraphQL
import OrderedCollections

/// Converts between the subscription protocols' values (`GQLGatePipeline`'s
/// request and `JSONValue`) and GraphQLSwift's (`GraphQLRequest`, `Map`,
/// `GraphQLResult`).
enum DemoWireFormat {
    /// The request GraphQLSwift runs; an error when it carries no query text
    /// or its variables are not a JSON object.
    static func graphQLRequest(_ request: GQLGatePipeline.GraphQLRequest) -> Result<GraphQL.GraphQLRequest, GraphQLError> {
        guard let query = request.query else {
            return .failure(GraphQLError(message: "Missing \"query\": the demo API needs the document text (persisted queries are not supported)."))
        }
        var variables: [String: Map] = [:]
        switch request.variables {
        case nil, .null?:
            break
        case .object(let members)?:
            for member in members { variables[member.key] = map(member.value) }
        default:
            return .failure(GraphQLError(message: "The variables must be a JSON object."))
        }
        return .success(GraphQL.GraphQLRequest(query: query, operationName: request.operationName, variables: variables))
    }

    /// `value` as GraphQLSwift's `Map`, in one pass (decoding a `Map` with
    /// `JSONDecoder` decodes every object twice, once per level: exponential
    /// in the nesting). Recursive: `value` comes from `JSONReader`, which
    /// bounds the nesting.
    static func map(_ value: JSONValue) -> Map {
        switch value {
        case .null: .null
        case .bool(let value): .bool(value)
        case .integer(let value): .number(Number(value))
        case .number(let text): .number(Number(Double(text) ?? .nan))  // JSON number text always reads (±infinity past the range)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(map))
        case .object(let members):
            .dictionary(OrderedDictionary(members.map { ($0.key, map($0.value)) }, uniquingKeysWith: { _, last in last }))
        }
    }

    /// `result` as the payload of a `next` (or legacy `data`) message.
    static func payload(_ result: GraphQLResult) -> SerializedJSON {
        guard let data = try? GraphQLJSONEncoder().encode(result) else {
            return SerializedJSON(.object([("errors", .array(errors([GraphQLError(message: "The result could not be encoded.")])))]))
        }
        return SerializedJSON(trusted: String(decoding: data, as: UTF8.self))
    }

    /// `errors` as the JSON objects of an `error` message.
    static func errors(_ errors: [GraphQLError]) -> [JSONValue] {
        errors.map { error in
            guard let data = try? GraphQLJSONEncoder().encode(error),
                  let value = try? JSONReader.read(String(decoding: data, as: UTF8.self))
            else {
                return .object([("message", .string(error.message))])
            }
            return value
        }
    }
}
