/// What the demand control stage is told by `demand_control` (the gateway
/// makes it from the configuration).
package struct DemandControlSettings: Sendable, Equatable {
    /// `enforce`: refuse an operation estimated over `maxCost`; else only measure.
    package var enforcing: Bool
    package var maxCost: Double
    /// The length assumed for a list without `@listSize` or a slicing argument.
    package var listSize: Int
    /// Costs by type (`Type`) or field (`Type.field`), over the schema's `@cost`.
    package var weights: [String: Double]
    /// Answers carry `extensions.cost`.
    package var expose: Bool

    package init(enforcing: Bool = false, maxCost: Double = 1000, listSize: Int = 10, weights: [String: Double] = [:], expose: Bool = false) {
        self.enforcing = enforcing
        self.maxCost = maxCost
        self.listSize = listSize
        self.weights = weights
        self.expose = expose
    }
}
