/// `demand_control`: an estimate of each operation's cost from the schema
/// before it runs (the IBM GraphQL Cost Directives specification), measured
/// or enforced. Needs a schema (`schema.source`).
public struct DemandControlConfig: Sendable, Equatable {
    /// What is done with the estimate.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// No estimate (the default): the stage is not in the pipeline.
        case off
        /// Estimated and recorded (histogram, access line, span); nothing refused.
        case measure
        /// Estimated, recorded, and refused over `max_cost` (400 `COST_ESTIMATED_TOO_EXPENSIVE`).
        case enforce
    }

    /// One `weights` entry: a type (`"Review"`) or a field (`"Query.reviews"`) and its cost.
    public struct Weight: Sendable, Equatable {
        /// `Type` or `Type.field`.
        public var coordinate: String
        public var cost: Double

        public init(coordinate: String, cost: Double) {
            self.coordinate = coordinate
            self.cost = cost
        }
    }

    /// `demand_control.mode`. Default `off`.
    public var mode = Mode.off
    /// `demand_control.max_cost`: with `enforce`, a higher estimate is refused. Default 1000.
    public var maxCost = 1000.0
    /// `demand_control.list_size`: the length assumed for a list without
    /// `@listSize` or a slicing argument. Default 10.
    public var listSize = 10
    /// `demand_control.weights`: costs by type or field, over the schema's `@cost`
    /// (introspection does not carry directives). Default none.
    public var weights: [Weight] = []
    /// `demand_control.expose`: answers carry `extensions.cost {estimated, actual, max}`. Default false.
    public var expose = false

    /// The defaults.
    public init() {}

    /// Whether operations are estimated at all.
    public var isEnabled: Bool { mode != .off }
}

extension DemandControlConfig {
    static let keys = ["mode", "max_cost", "list_size", "weights", "expose"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        mode = try map["mode"]?.oneOf(Mode.self) ?? mode
        maxCost = try map["max_cost"]?.double(0...1e15) ?? maxCost
        listSize = try map["list_size"]?.int(0...1_000_000) ?? listSize
        expose = try map["expose"]?.bool() ?? expose
        if let weights = map["weights"] {
            for (coordinate, cost) in try weights.entries(expected: "a mapping of \"Type\" or \"Type.field\" to costs") {
                let parts = coordinate.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count <= 2, parts.allSatisfy({ String($0).isIdentifier }) else {
                    throw ConfigError.invalid(coordinate, expected: "a GraphQL type name or Type.field", keyPath: cost.path)
                }
                self.weights.append(Weight(coordinate: coordinate, cost: try cost.double(-1e9...1e9)))
            }
        }
    }
}
