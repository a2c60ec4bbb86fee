import GQLGateConfig
import GQLGateExchanges

extension DemandControlSettings {
    /// The demand control stage's settings from `demand_control`.
    init(_ config: DemandControlConfig) {
        self.init(enforcing: config.mode == .enforce, maxCost: config.maxCost, listSize: config.listSize,
                  weights: Dictionary(config.weights.map { ($0.coordinate, $0.cost) }, uniquingKeysWith: { _, last in last }),
                  expose: config.expose)
    }
}
