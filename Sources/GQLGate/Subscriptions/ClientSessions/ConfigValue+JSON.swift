import GQLGateConfig
import GQLGatePipeline

extension ConfigValue {
    /// The same value as JSON (`auth.ws_init_payload` on its way into `connection_init`).
    var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .integer(value)
        case .double(let value): JSONValue(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.json))
        case .object(let members): .object(members.map { (key: $0.key, value: $0.value.json) })
        }
    }
}
