import Foundation
import GQLGatePipeline
import GQLGateSubscriptions
import GraphQL

/// Converts between the subscription protocols' values (`GQLGatePipeline`'s
/// request and `JSONValue`) and GraphQLSwift's (`GraphQLRequest`, `Map`,
/// `GraphQLResult`).
enum DemoWireFormat {
    /// The request GraphQLSwift runs; an error when it carries no query text
    /// or its variables are not a JSON object.
    static func graphQLRequest(_ request: GQLGatePipeline.GraphQLRequest) -> Result<GraphQL.GraphQLRequest, GraphQLError> {
        guard let query = request.query else {
            return .failure(GraphQLError(message: "The demo API needs the query text; persisted queries are not supported."))
        }
        var variables: [String: Map] = [:]
        switch request.variables {
        case nil, .null?:
            break
        case let value? where value.isObject:
            do {
                variables = try JSONDecoder().decode([String: Map].self, from: Data(value.serialized().utf8))
            } catch {
                return .failure(GraphQLError(message: "The variables could not be read: \(error)"))
            }
        default:
            return .failure(GraphQLError(message: "The variables must be a JSON object."))
        }
        return .success(GraphQL.GraphQLRequest(query: query, operationName: request.operationName, variables: variables))
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
