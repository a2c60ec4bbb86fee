@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// The estimated costs of operations (`demand_control`), kept under one
/// lock for one addition each: `gqlgate_operation_cost` (a histogram of
/// estimates), and `gqlgate_operation_estimated_cost_total{operation_name}`
/// with `gqlgate_operation_estimates_total{operation_name}` (summed, and
/// counted, by operation name: their ratio is an operation's average
/// estimate, the dashboard's costliest operations). Names are the first 100
/// distinct ones seen (anonymous operations: empty), later ones `other`.
/// Recording one costs a tenth of a swift-prometheus histogram's record.
package final class OperationCostStatistics: Sendable {
    /// Upper bounds of the histogram's buckets (`+Inf` after them).
    package static let buckets: [Double] = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 100_000]

    private struct State {
        var bucketCounts = [UInt64](repeating: 0, count: OperationCostStatistics.buckets.count + 1)
        var sum = 0.0
        var names = CappedLabelValues()
        var sums: [Double] = []
        var counts: [UInt64] = []
        /// The last name recorded and its number: repeated names skip the hashing.
        var lastName: String?
        var lastNumber = -1
    }

    private let state = Lock(State())

    package init() {}

    /// An operation named `operationName` (nil: anonymous) was estimated at `cost`.
    package func record(_ cost: Double, operationName: String?) {
        let bucket = Self.buckets.firstIndex { cost <= $0 } ?? Self.buckets.count
        let name = operationName ?? ""
        state.withLock { state in
            state.bucketCounts[bucket] &+= 1
            state.sum += cost
            let number: Int
            if state.lastNumber >= 0, state.lastName == name {
                number = state.lastNumber
            } else {
                number = state.names.number(of: name)
                (state.lastName, state.lastNumber) = (name, number)
            }
            if number == state.sums.count {
                state.sums.append(0)
                state.counts.append(0)
            }
            state.sums[number] += cost
            state.counts[number] &+= 1
        }
    }

    /// The three series in Prometheus' text format, appended to `output`; the
    /// histogram always (at zero before the first estimate; numbers written as
    /// swift-prometheus writes the other histograms', `le="1.0"`), the counters by name once there are some.
    package func render(into output: inout [UInt8]) {
        let (bucketCounts, sum, labels, sums, counts) = state.withLock { ($0.bucketCounts, $0.sum, $0.names.labels, $0.sums, $0.counts) }
        var text = "# TYPE gqlgate_operation_cost histogram\n"
        var cumulative: UInt64 = 0
        for (index, bound) in Self.buckets.enumerated() {
            cumulative += bucketCounts[index]
            text += "gqlgate_operation_cost_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += bucketCounts[Self.buckets.count]
        text += "gqlgate_operation_cost_bucket{le=\"+Inf\"} \(cumulative)\n"
        text += "gqlgate_operation_cost_sum \(sum)\ngqlgate_operation_cost_count \(cumulative)\n"
        if !labels.isEmpty {
            let order = labels.indices.sorted { labels[$0] < labels[$1] }
            text += "# TYPE gqlgate_operation_estimated_cost_total counter\n"
            for number in order {
                text += "gqlgate_operation_estimated_cost_total{operation_name=\"\(CappedLabelValues.escaped(labels[number]))\"} \(JSONValue(cost: sums[number]).serialized())\n"
            }
            text += "# TYPE gqlgate_operation_estimates_total counter\n"
            for number in order {
                text += "gqlgate_operation_estimates_total{operation_name=\"\(CappedLabelValues.escaped(labels[number]))\"} \(counts[number])\n"
            }
        }
        output.append(contentsOf: text.utf8)
    }
}
