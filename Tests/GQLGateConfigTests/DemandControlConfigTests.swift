import GQLGateConfig
import Testing

/// `demand_control`, `metrics.field_usage`/`client_name_header` and
/// `clients.rate_limit.by_cost`: read, rendered back, and the rules tying them to a schema.
@Suite struct DemandControlConfigTests {
    private let schema = "schema: {source: file, file: schema.graphql}\n"

    @Test func defaultsAreOff() throws {
        let config = try load("")
        #expect(config.demandControl == DemandControlConfig())
        #expect(config.demandControl.mode == .off && config.demandControl.maxCost == 1000 && config.demandControl.listSize == 10)
        #expect(!config.metrics.fieldUsage && config.metrics.clientNameHeader == "apollographql-client-name")
        #expect(!config.clients.rateLimit.byCost)
    }

    @Test func everyKeyIsReadAndRendersBack() throws {
        let yaml = schema + """
            demand_control:
              mode: enforce
              max_cost: 250.5
              list_size: 20
              weights: {Review: 3, "Query.hero": 0.5}
              expose: true
            metrics: {field_usage: true, client_name_header: X-Client-Name}
            clients: {rate_limit: {requests_per_second: 5, by_cost: true}}
            """
        let config = try load(yaml)
        #expect(config.demandControl.mode == .enforce && config.demandControl.maxCost == 250.5 && config.demandControl.listSize == 20)
        #expect(config.demandControl.weights == [.init(coordinate: "Review", cost: 3), .init(coordinate: "Query.hero", cost: 0.5)])
        #expect(config.demandControl.expose && config.metrics.fieldUsage && config.clients.rateLimit.byCost)
        #expect(config.metrics.clientNameHeader == "x-client-name")
        try config.validate()
        #expect(try load(config.renderYAML(redactingSecrets: false)) == config)
    }

    @Test func badValuesNameTheirKey() {
        #expect(loadError("demand_control: {mode: sometimes}")?.hasPrefix("demand_control.mode: ") == true)
        #expect(loadError("demand_control: {max_cost: -1}")?.hasPrefix("demand_control.max_cost: ") == true)
        #expect(loadError("demand_control: {weights: {\"Query.hero.name\": 1}}")?.contains("a GraphQL type name or Type.field") == true)
        #expect(loadError("demand_control: {weights: {Review: lots}}")?.hasPrefix("demand_control.weights.Review: ") == true)
        #expect(loadError("metrics: {client_name_header: \"bad header\"}")?.hasPrefix("metrics.client_name_header: ") == true)
    }

    @Test func demandControlAndFieldUsageNeedASchema() throws {
        #expect(throws: ConfigError.self) { try load("demand_control: {mode: measure}").validate() }
        #expect(throws: ConfigError.self) { try load("metrics: {field_usage: true}").validate() }
        try load(schema + "demand_control: {mode: measure}\nmetrics: {field_usage: true}").validate()
    }

    @Test func costTokensNeedTheEstimate() throws {
        let yaml = schema + "clients: {rate_limit: {requests_per_second: 5, by_cost: true}}\n"
        do {
            try load(yaml).validate()
            Issue.record("by_cost without demand_control validated")
        } catch {
            #expect(error.keyPath == "clients.rate_limit.by_cost")
        }
        try load(yaml + "demand_control: {mode: measure}").validate()
    }
}
