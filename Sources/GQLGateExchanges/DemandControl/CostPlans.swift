import GQLGatePipeline
import GraphQL

/// The cost plans of one document's operations under one `CostSchema`,
/// kept with the document (`AnalysedDocument.memoized`).
final class CostPlans: Sendable {
    /// The `CostSchema.identity` they were planned under.
    let identity: Int
    /// By the operation's place in the document; nil where the schema has no root type for it.
    let plans: [CostPlan?]

    init(identity: Int, plans: [CostPlan?]) {
        self.identity = identity
        self.plans = plans
    }
}

/// The slot cost plans are kept in.
enum CostPlanMemo: DocumentMemo {
    typealias Value = CostPlans
}

extension CostSchema {
    /// The plans of `document` when they were made under this schema
    /// already; never plans (so it can run on the server thread).
    func knownPlans(for document: AnalysedDocument) -> CostPlans? {
        document.memo(CostPlanMemo.self) { $0.identity == identity }
    }

    /// The plans of `document`'s operations, made once per document and schema.
    func plans(for document: AnalysedDocument) -> CostPlans {
        document.memoized(CostPlanMemo.self, isCurrent: { $0.identity == identity }) {
            var planner = CostPlanner(schema: self, document: document.document)
            let operations = document.document.definitions.compactMap { $0 as? OperationDefinition }
            return CostPlans(identity: identity, plans: operations.map { planner.plan($0) })
        }
    }
}

extension CostPlans {
    /// The plan of `selected`, one of the document's operations.
    func plan(of selected: DocumentOperation, in document: AnalysedDocument) -> CostPlan? {
        guard let index = document.index(of: selected), index < plans.count else { return nil }
        return plans[index]
    }
}
