package import GQLGatePipeline

/// Refuses operations deeper or with more aliases than `limits` allow, with
/// 400 `QUERY_TOO_COMPLEX` naming the limit and the value found. The shape is
/// measured once per distinct document (fragments expanded), so the check
/// costs two comparisons. Place after `DocumentExchange`; document size is
/// checked there, before parsing.
package struct QueryLimitsExchange: InlineExchange {
    /// The limits applied.
    package struct Limits: Sendable, Equatable {
        /// Deepest field nesting allowed (root fields are depth 1).
        package var maxDepth: Int
        /// Most aliased fields allowed, fragments expanded.
        package var maxAliases: Int

        package init(maxDepth: Int = 15, maxAliases: Int = 30) {
            self.maxDepth = maxDepth
            self.maxAliases = maxAliases
        }
    }

    private let limits: Limits

    package init(limits: Limits) {
        self.limits = limits
    }

    package func decide(_ operation: inout Operation) throws(GatewayError) -> InlineDecision {
        if let shape = operation.selected?.shape { try check(shape) }
        return .passOn
    }

    /// Throws `QUERY_TOO_COMPLEX` when `shape` is over a limit.
    private func check(_ shape: OperationShape) throws(GatewayError) {
        if shape.depth > limits.maxDepth {
            throw .queryTooComplex("The operation is \(shape.depth) levels deep; limits.max_depth allows \(limits.maxDepth).")
        }
        if shape.aliases > limits.maxAliases {
            throw .queryTooComplex(
                "The operation has \(shape.aliases) aliased fields (fragments expanded); limits.max_aliases allows \(limits.maxAliases).")
        }
    }
}
