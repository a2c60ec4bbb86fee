import GQLGateCore
package import GQLGatePipeline

/// Asks the upstream for its schema with an introspection query, sent
/// through the exchanges given (credentials, retries) to the transport:
/// the response cache's `EntitySchema`, or the whole schema (`IntrospectionSDL`).
package enum SchemaIntrospection {
    /// Why no schema was learned.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// No answer, or a 5xx one: worth asking again later.
        case unanswered(String)
        /// The upstream answered without a schema (introspection disabled,
        /// an error, a body that is not one): asking again will not help.
        case refused(String)

        package var description: String {
            switch self {
            case .unanswered(let reason), .refused(let reason): reason
            }
        }
    }

    /// The request id the introspection query carries upstream.
    package static let requestID = "gqlgate-introspection"

    /// The introspection operation `query`, as `DocumentExchange` would pass it on.
    package static func operation(_ query: String = EntitySchema.introspectionQuery) -> Operation {
        Operation(
            request: GraphQLRequest(query: query), clientTransport: .httpPost,
            headers: ["Accept": "application/json"], requestID: requestID)
    }

    /// Sends the introspection query through `chain` and reads the answer.
    package static func learn(through chain: ExchangeChain) async -> Result<EntitySchema, Failure> {
        await ask(EntitySchema.introspectionQuery, through: chain).flatMap { data in
            guard let schema = EntitySchema(introspection: data) else { return .failure(.refused("the upstream answered without a schema")) }
            return .success(schema)
        }
    }

    /// Sends the introspection `query` through `chain`; the answer's `data`.
    package static func ask(_ query: String, through chain: ExchangeChain) async -> Result<JSONValue, Failure> {
        let response: GraphQLResponse
        do {
            guard let answer = try await chain.run(operation(query)).first() else { return .failure(.unanswered("no answer")) }
            response = answer
        } catch let error as any GatewayErrorConvertible {
            return .failure(.unanswered(error.gatewayError.message))
        } catch {
            return .failure(.unanswered("\(error)"))
        }
        return read(response)
    }

    /// The `data` of an introspection answer.
    package static func read(_ response: GraphQLResponse) -> Result<JSONValue, Failure> {
        if response.status >= 500 { return .failure(.unanswered("the upstream answered \(response.status)")) }
        guard let body = try? response.body.withUnsafeBytes({ try JSONReader.read($0) }) else {
            return .failure(.refused("the upstream answered \(response.status) with a body that is not JSON"))
        }
        if case .array(let errors) = body["errors"], case .string(let message) = errors.first?["message"] {
            return .failure(.refused("the upstream refused introspection: \(message)"))
        }
        guard response.status == 200, let data = body["data"], data["__schema"] != nil else {
            return .failure(.refused("the upstream answered \(response.status) without a schema"))
        }
        return .success(data)
    }
}
