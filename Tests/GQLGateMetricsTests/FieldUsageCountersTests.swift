import GQLGateMetrics
import GQLGatePipeline
import Testing

/// `gqlgate_field_usage_total`, `gqlgate_deprecated_field_usage_total` and the
/// estimated costs by operation name: counted, capped and rendered.
@Suite struct FieldUsageCountersTests {
    private func lines(_ render: (inout [UInt8]) -> Void) -> [String] {
        var output: [UInt8] = []
        render(&output)
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func eachCoordinateCountsOncePerRequestByClient() {
        let counters = FieldUsageCounters()
        let hero = FieldCoordinates.intern("Query.hero", isDeprecated: false)
        let legacy = FieldCoordinates.intern("Review.legacyScore", isDeprecated: true)
        counters.count(SelectedFields([hero, legacy]), clientName: "ios")
        counters.count(SelectedFields([hero]), clientName: "ios")
        counters.count(SelectedFields([hero]), clientName: nil)
        let rendered = lines(counters.render)
        #expect(rendered.contains(#"gqlgate_field_usage_total{coordinate="Query.hero",client_name="ios"} 2"#))
        #expect(rendered.contains(#"gqlgate_field_usage_total{coordinate="Query.hero",client_name=""} 1"#))
        #expect(rendered.contains(#"gqlgate_field_usage_total{coordinate="Review.legacyScore",client_name="ios"} 1"#))
        #expect(rendered.contains(#"gqlgate_deprecated_field_usage_total{coordinate="Review.legacyScore",client_name="ios"} 1"#))
        #expect(!rendered.contains { $0.hasPrefix("gqlgate_deprecated_field_usage_total{coordinate=\"Query.hero\"") })
    }

    @Test func nothingIsRenderedBeforeTheFirstCount() {
        #expect(lines(FieldUsageCounters().render).isEmpty)
        #expect(lines(OperationCostStatistics().render).allSatisfy { !$0.contains("operation_name") })
    }

    @Test func past100ClientNamesTheRestCountAsOther() {
        let counters = FieldUsageCounters()
        let hero = FieldCoordinates.intern("Query.hero", isDeprecated: false)
        for n in 0..<150 { counters.count(SelectedFields([hero]), clientName: "client-\(n)") }
        counters.count(SelectedFields([hero]), clientName: "client-0")
        let rendered = lines(counters.render).filter { $0.hasPrefix("gqlgate_field_usage_total{") }
        #expect(rendered.count == 101)
        #expect(rendered.contains(#"gqlgate_field_usage_total{coordinate="Query.hero",client_name="other"} 50"#))
        #expect(rendered.contains(#"gqlgate_field_usage_total{coordinate="Query.hero",client_name="client-0"} 2"#))
    }

    @Test func labelValuesAreEscaped() {
        let counters = FieldUsageCounters()
        counters.count(SelectedFields([FieldCoordinates.intern("Query.hero", isDeprecated: false)]), clientName: "a\"b\\c\nd")
        #expect(lines(counters.render).contains(#"gqlgate_field_usage_total{coordinate="Query.hero",client_name="a\"b\\c\nd"} 1"#))
    }

    @Test func costsAreSummedAndCountedByOperationName() {
        let costs = OperationCostStatistics()
        costs.record(11, operationName: "Hero")
        costs.record(4.5, operationName: "Hero")
        costs.record(2, operationName: nil)
        let rendered = lines(costs.render)
        #expect(rendered.contains(#"gqlgate_operation_estimated_cost_total{operation_name="Hero"} 15.5"#))
        #expect(rendered.contains(#"gqlgate_operation_estimates_total{operation_name="Hero"} 2"#))
        #expect(rendered.contains(#"gqlgate_operation_estimates_total{operation_name=""} 1"#))
    }
}
