package import GraphQL

/// What the demo schema made of a request sent over a WebSocket, where
/// subscriptions are allowed.
package enum DemoOperation: Sendable {
    /// A query or mutation ran (or did not, for the reasons given).
    case single(DemoExecutionResult)
    /// A subscription is listening: one result per event, until the consumer
    /// stops iterating or drops the stream (which ends the source stream too).
    case stream(AsyncThrowingStream<GraphQLResult, any Error>)
}

extension DemoSchema {
    /// Runs a query or mutation, or starts a subscription. A subscription whose
    /// source stream cannot be created (bad variables, say) is `.rejected`.
    package func start(_ request: GraphQLRequest) async -> DemoOperation {
        let document: Document
        switch parseAndValidate(request) {
        case .success(let parsed): document = parsed
        case .failure(let errors): return .single(.rejected(errors.errors))
        }
        guard Self.selectedOperation(in: document, named: request.operationName)?.operation == .subscription else {
            return .single(await execute(document, request))
        }
        do {
            // GraphQLSwift 4.3.0 subscribes only from a query string (the
            // document-taking `subscribe` is internal): it parses it again.
            switch try await graphqlSubscribe(
                schema: graphQLSchema, request: request.query, rootValue: resolver, context: (),
                variableValues: request.variables, operationName: request.operationName) {
            case .success(let results): return .stream(results)
            case .failure(let errors): return .single(.rejected(errors.errors))
            }
        } catch let error as GraphQLError {
            return .single(.rejected([error]))
        } catch {
            return .single(.rejected([GraphQLError(error)]))
        }
    }
}
