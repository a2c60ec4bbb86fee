@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// `gqlgate_field_usage_total{coordinate, client_name}` and
/// `gqlgate_deprecated_field_usage_total{coordinate, client_name}`
/// (`metrics.field_usage`): how many requests selected each schema
/// coordinate, by client. Counting one request is one lock and an addition
/// per coordinate it selects (`SelectedFields`, worked out once per
/// document). Client names are the first `mostClients` distinct ones seen;
/// later ones count as `other`, so the series stay bounded by the schema's
/// fields times 101.
package final class FieldUsageCounters: Sendable {
    /// Distinct client names kept as labels; the rest are `other`.
    package static let mostClients = 100

    private struct State {
        var clients = CappedLabelValues(most: FieldUsageCounters.mostClients)
        /// `client << 32 | coordinate.index` → requests.
        var counts: [Int: UInt64] = [:]
        /// The coordinates counted, by index.
        var coordinates: [Int: FieldCoordinate] = [:]
        /// The number of requests that name no client (-1 until the first).
        var unnamed = -1
    }

    private let state = Lock(State())

    package init() {}

    /// One request selected `fields`, for the client `clientName` (nil: none named).
    package func count(_ fields: SelectedFields, clientName: String?) {
        state.withLock { state in
            let client: Int
            if let clientName {
                client = state.clients.number(of: clientName)
            } else {
                // Most requests name no client: their number is looked up once.
                if state.unnamed < 0 { state.unnamed = state.clients.number(of: "") }
                client = state.unnamed
            }
            for coordinate in fields.coordinates {
                let key = client << 32 | coordinate.index
                if let index = state.counts.index(forKey: key) {
                    state.counts.values[index] &+= 1
                } else {
                    state.counts[key] = 1
                    state.coordinates[coordinate.index] = coordinate
                }
            }
        }
    }

    /// The two counters in Prometheus' text format, appended to `output`.
    package func render(into output: inout [UInt8]) {
        let (rows, names) = state.withLock { state in
            (state.counts.map { (client: $0.key >> 32, coordinate: state.coordinates[$0.key & 0xFFFF_FFFF], count: $0.value) },
             state.clients.labels)
        }
        guard !rows.isEmpty else { return }
        let sorted = rows.compactMap { row in row.coordinate.map { (names[row.client], $0, row.count) } }
            .sorted { ($0.1.name, $0.0) < ($1.1.name, $1.0) }
        var text = "# HELP gqlgate_field_usage_total Requests that selected a schema coordinate, by client.\n"
        text += "# TYPE gqlgate_field_usage_total counter\n"
        for (client, coordinate, count) in sorted { text += Self.line("gqlgate_field_usage_total", coordinate, client, count) }
        text += "# HELP gqlgate_deprecated_field_usage_total Requests that selected a deprecated field, by client.\n"
        text += "# TYPE gqlgate_deprecated_field_usage_total counter\n"
        for (client, coordinate, count) in sorted where coordinate.isDeprecated {
            text += Self.line("gqlgate_deprecated_field_usage_total", coordinate, client, count)
        }
        output.append(contentsOf: text.utf8)
    }

    private static func line(_ name: String, _ coordinate: FieldCoordinate, _ client: String, _ count: UInt64) -> String {
        let labels = "coordinate=\"\(CappedLabelValues.escaped(coordinate.name))\",client_name=\"\(CappedLabelValues.escaped(client))\""
        return "\(name){\(labels)} \(count)\n"
    }
}
