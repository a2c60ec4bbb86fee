import GQLGatePipeline

/// The slot a document's cost plans are kept in, under a `CostSchema.identity`
/// (nil where the schema has no root type for the operation's kind).
enum CostPlanMemo: DocumentMemo {
    typealias Value = PerOperation<CostPlan?>
}

extension CostSchema {
    /// The plans of `document` when they were made under this schema
    /// already; never plans (so it can run on the server thread).
    func knownPlans(for document: AnalysedDocument) -> PerOperation<CostPlan?>? {
        document.known(CostPlanMemo.self, key: identity)
    }

    /// The plans of `document`'s operations, made once per document and schema.
    func plans(for document: AnalysedDocument) -> PerOperation<CostPlan?> {
        var planner = CostPlanner(schema: self, document: document.document)
        return document.perOperation(CostPlanMemo.self, key: identity) { planner.plan($0) }
    }
}
