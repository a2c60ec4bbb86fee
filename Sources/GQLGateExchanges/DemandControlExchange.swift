@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// `demand_control`: estimates each operation's cost from the schema gqlgate
/// holds (the IBM GraphQL Cost Directives specification, `CostPlan`) before
/// anything goes upstream, over every transport (a subscription at its
/// `subscribe`). The estimate is planned once per document and schema; a
/// request whose variables do not size lists only looks it up. It is stated
/// (`OperationFact.costEstimated`: the histogram, the access line, the span)
/// and kept on the operation (`estimatedCost`, for `clients.rate_limit.by_cost`);
/// with `enforce`, an operation over `max_cost` is answered 400
/// `COST_ESTIMATED_TOO_EXPENSIVE`. With `expose`, an answer carries
/// `extensions.cost {estimated, actual, max}`, `actual` from its `data`.
/// Without a schema loaded yet it passes everything on.
package struct DemandControlExchange: InlineExchange {
    private let schema: GatewaySchema
    private let costSchemas: CostSchemas
    private let enforcing: Bool
    private let expose: Bool

    package init(schema: GatewaySchema, settings: DemandControlSettings) {
        self.schema = schema
        costSchemas = CostSchemas(settings: settings)
        enforcing = settings.enforcing
        expose = settings.expose
    }

    /// Decides at once when the document's plan is known (and nothing is
    /// exposed); on a loop when it must be planned, or its answer given its cost.
    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        guard let loaded = schema.current, let document = operation.document, let selected = operation.selected else { return .passOn }
        guard let costSchema = costSchemas.known(for: loaded), let plans = costSchema.knownPlans(for: document) else { return .onLoop }
        guard let plan = plans.value(of: selected, in: document) ?? nil else { return .passOn }
        try estimate(plan, costSchema: costSchema, operation: &operation)
        return expose && exposes(operation) ? .onLoop : .passOn
    }

    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        var operation = operation
        guard let loaded = schema.current, let document = operation.document, let selected = operation.selected else {
            return try await next(operation)
        }
        let costSchema = costSchemas.resolve(for: loaded)
        guard let plan = costSchema.plans(for: document).value(of: selected, in: document) ?? nil else { return try await next(operation) }
        if operation.estimatedCost == nil { try estimate(plan, costSchema: costSchema, operation: &operation) }
        let stream = try await next(operation)
        guard expose, exposes(operation), let estimated = operation.estimatedCost else { return stream }
        let variables = operation.request.variables
        return stream.map { response in
            CostExtension.adding(to: response, plan: plan, estimated: estimated, max: costSchema.maxCost, variables: variables)
        }
    }

    private func estimate(_ plan: CostPlan, costSchema: CostSchema, operation: inout Operation) throws(GatewayError) {
        let cost = plan.estimate(variables: operation.request.variables)
        operation.estimatedCost = cost
        operation.record(.costEstimated(cost, operationName: operation.selected?.name))
        if enforcing, cost > costSchema.maxCost {
            throw GatewayError.costEstimatedTooExpensive(estimated: cost, max: costSchema.maxCost)
        }
    }

    /// Whether the operation's answer is one result that can carry its cost, however it is
    /// delivered (JSON, SSE, multipart): not a subscription's events, not an incremental answer.
    private func exposes(_ operation: borrowing Operation) -> Bool {
        operation.kind != .subscription && !operation.defersResults
    }
}

/// The `CostSchema` of the schema held, resolved once per schema load.
final class CostSchemas: Sendable {
    private let settings: DemandControlSettings
    private let current = Lock<CostSchema?>(nil)

    init(settings: DemandControlSettings) {
        self.settings = settings
    }

    /// The weights of `loaded` when they were resolved already; never resolves (the server thread asks).
    func known(for loaded: LoadedSchema) -> CostSchema? {
        current.withLock { $0?.schemaGeneration == loaded.generation ? $0 : nil }
    }

    /// The weights of `loaded`, resolved on the first call after it was loaded.
    func resolve(for loaded: LoadedSchema) -> CostSchema {
        if let known = known(for: loaded) { return known }
        let resolved = CostSchema(schema: loaded, settings: settings)
        current.withLock { $0 = resolved }
        return resolved
    }
}
