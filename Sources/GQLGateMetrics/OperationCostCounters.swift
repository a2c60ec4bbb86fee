import GQLGateCore

/// `gqlgate_operation_estimated_cost_total{operation_name}` and
/// `gqlgate_operation_estimates_total{operation_name}`: the estimated costs
/// (`demand_control`) summed, and counted, by operation name, for the
/// dashboard's costliest operations (their ratio is an operation's average
/// estimate). Names are the first 100 distinct ones seen (anonymous
/// operations: empty), later ones `other`.
package final class OperationCostCounters: Sendable {
    private struct State {
        var names = CappedLabelValues()
        var sums: [Double] = []
        var counts: [UInt64] = []
    }

    private let state = Lock(State())

    package init() {}

    /// An operation named `operationName` (nil: anonymous) was estimated at `cost`.
    package func record(_ cost: Double, operationName: String?) {
        state.withLock { state in
            let number = state.names.number(of: operationName ?? "")
            if number == state.sums.count {
                state.sums.append(0)
                state.counts.append(0)
            }
            state.sums[number] += cost
            state.counts[number] &+= 1
        }
    }

    /// The two counters in Prometheus' text format, appended to `output` (nothing before the first estimate).
    package func render(into output: inout [UInt8]) {
        let (labels, sums, counts) = state.withLock { ($0.names.labels, $0.sums, $0.counts) }
        guard !labels.isEmpty else { return }
        let order = labels.indices.sorted { labels[$0] < labels[$1] }
        var text = "# HELP gqlgate_operation_estimated_cost_total Estimated costs (demand_control) summed, by operation name.\n"
        text += "# TYPE gqlgate_operation_estimated_cost_total counter\n"
        for number in order {
            text += "gqlgate_operation_estimated_cost_total{operation_name=\"\(CappedLabelValues.escaped(labels[number]))\"} \(sums[number])\n"
        }
        text += "# HELP gqlgate_operation_estimates_total Operations whose cost was estimated, by operation name.\n"
        text += "# TYPE gqlgate_operation_estimates_total counter\n"
        for number in order {
            text += "gqlgate_operation_estimates_total{operation_name=\"\(CappedLabelValues.escaped(labels[number]))\"} \(counts[number])\n"
        }
        output.append(contentsOf: text.utf8)
    }
}
