@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// Validates each operation against the schema gqlgate holds before anything
/// goes upstream: the document (every rule of GraphQL §5), once per distinct
/// document and schema, and the variables against their declared types, per
/// request. Answers 400 `GRAPHQL_VALIDATION_FAILED` with every error and its
/// locations, or 400 `BAD_USER_INPUT`.
///
/// A document naming what the schema lacks first asks for one early refresh
/// (at most one a period: the upstream may be ahead of the schema held), and
/// is refused only if the schema after it refuses it too. Without a schema
/// it passes everything on. With `enforcing` off it refuses nothing and
/// states, once per document, what it would have refused
/// (`OperationFact.validationWouldRefuse`).
package struct ValidationExchange: InlineExchange {
    private let schema: GatewaySchema
    private let enforcing: Bool

    package init(schema: GatewaySchema, enforcing: Bool) {
        self.schema = schema
        self.enforcing = enforcing
    }

    /// Decides at once when the document's verdict is known; on a loop when
    /// it must be validated (or the schema refreshed).
    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        guard let loaded = schema.current, let document = operation.document else { return .passOn }
        guard let verdict = loaded.knownVerdict(on: document) else { return .onLoop }
        guard verdict.isValid else {
            guard verdict.namesWhatTheSchemaLacks, enforcing else { return try refuse(verdict, operation: operation, document: document) }
            return .onLoop
        }
        try checkVariables(of: operation, verdict: verdict, in: document)
        return .passOn
    }

    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        guard let loaded = schema.current, let document = operation.document else { return try await next(operation) }
        var verdict = loaded.verdict(on: document)
        if !verdict.isValid, verdict.namesWhatTheSchemaLacks, enforcing, let refreshed = await schema.refreshEarly(),
           refreshed.generation != loaded.generation {
            verdict = refreshed.verdict(on: document)
        }
        if !verdict.isValid { _ = try refuse(verdict, operation: operation, document: document) }
        try checkVariables(of: operation, verdict: verdict, in: document)
        return try await next(operation)
    }

    /// Throws the verdict's 400 (or, not enforcing, logs it and passes on).
    private func refuse(_ verdict: ValidationVerdict, operation: borrowing Operation, document: AnalysedDocument) throws(GatewayError) -> InlineDecision {
        let error = GatewayError.validationFailed(verdict.problems)
        guard enforcing else {
            stateWouldRefuse(error, operation: operation, document: document)
            return .passOn
        }
        throw error
    }

    private func checkVariables(of operation: borrowing Operation, verdict: ValidationVerdict, in document: AnalysedDocument) throws(GatewayError) {
        guard verdict.declaresVariables, let selected = operation.selected, let index = document.index(of: selected),
              index < verdict.variables.count, !verdict.variables[index].isEmpty
        else { return }
        let problems = VariableCoercion.problems(operation.request.variables, declared: verdict.variables[index])
        guard !problems.isEmpty else { return }
        let error = GatewayError.badUserInput(problems)
        guard enforcing else { return stateWouldRefuse(error, operation: operation, document: document) }
        throw error
    }

    /// Once per document and code (`WouldRefuseMemo`), so a roll-out's log stays short.
    private func stateWouldRefuse(_ error: GatewayError, operation: borrowing Operation, document: AnalysedDocument) {
        guard document.memoized(WouldRefuseMemo.self, derive: { WouldRefuseMemo.Stated() }).first(error.code) else { return }
        operation.record(.validationWouldRefuse(error, documentSHA256: document.sha256))
    }
}

/// Which refusals of a document were stated already (`schema.validate: false`).
private enum WouldRefuseMemo: DocumentMemo {
    final class Stated: Sendable {
        private let codes = Lock<Set<String>>([])

        /// True the first time `code` is seen.
        func first(_ code: String) -> Bool {
            codes.withLock { $0.insert(code).inserted }
        }
    }

    typealias Value = Stated
}
