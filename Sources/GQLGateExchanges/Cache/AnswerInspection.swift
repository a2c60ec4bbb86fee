import GQLGateCore
import GQLGatePipeline

/// What the response cache learns from a GraphQL answer body, and the body
/// the client gets: every `__typename` and `id` the gateway added (the
/// aliases of `TypenamedDocument`) removed at any depth — in nested objects, lists,
/// fragments' and aliased fields' objects alike, since they all come back as
/// plain JSON objects — while the client's own `__typename`s and `id`s stay.
public struct AnswerInspection: Sendable {
    /// The body to send: the original bytes when nothing was removed.
    public let body: Bytes
    /// Whether the answer has a non-empty `errors` list.
    public let hasErrors: Bool
    /// Whether `data` is an object.
    public let hasData: Bool
    /// The object types below the root (root types do not count).
    public let types: Set<String>
    /// The types of the objects the root fields returned (list items included).
    public let rootFieldTypes: Set<String>
    /// The entities held, as `Typename:id`, for objects with an `id` (string
    /// or integer), the client's or the one the gateway added.
    public let entities: Set<String>

    /// Reads `body`; nil when it is not a JSON object.
    /// - Parameters:
    ///   - alias: the response key of the added `__typename`, to strip; nil when none was added.
    ///   - idAlias: the response key of the added `id`, to strip; nil when none was added.
    public init?(body: Bytes, alias: String?, idAlias: String? = nil) {
        guard let root = try? body.withUnsafeBytes({ try JSONReader.read($0) }), case .object(var members) = root else {
            return nil
        }
        var walker = Walker(alias: alias, idAlias: idAlias)
        var hasData = false
        var hasErrors = false
        for i in members.indices {
            switch members[i].key {
            case "data":
                if case .object(let fields) = members[i].value {
                    hasData = true
                    members[i].value = .object(walker.root(fields))
                }
            case "errors":
                if case .array(let errors) = members[i].value, !errors.isEmpty { hasErrors = true }
            default:
                continue
            }
        }
        self.body = walker.removedAny ? Bytes(JSONValue.object(members).serialized()) : body
        self.hasErrors = hasErrors
        self.hasData = hasData
        types = walker.types
        rootFieldTypes = walker.rootFieldTypes
        entities = walker.entities
    }

    private struct Walker {
        let alias: String?
        let idAlias: String?
        var removedAny = false
        var types: Set<String> = []
        var rootFieldTypes: Set<String> = []
        var entities: Set<String> = []

        mutating func root(_ fields: [(key: String, value: JSONValue)]) -> [(key: String, value: JSONValue)] {
            var kept: [(key: String, value: JSONValue)] = []
            for field in fields {
                if field.key == alias || field.key == idAlias {
                    removedAny = true
                    continue
                }
                kept.append((field.key, visit(field.value, isRootField: true)))
            }
            return kept
        }

        mutating func visit(_ value: JSONValue, isRootField: Bool) -> JSONValue {
            switch value {
            case .array(let items):
                return .array(items.map { visit($0, isRootField: isRootField) })
            case .object(let fields):
                return .object(object(fields, isRootField: isRootField))
            default:
                return value
            }
        }

        private mutating func object(_ fields: [(key: String, value: JSONValue)], isRootField: Bool) -> [(key: String, value: JSONValue)] {
            var typename: String?
            var id: String?
            var kept: [(key: String, value: JSONValue)] = []
            kept.reserveCapacity(fields.count)
            for field in fields {
                switch (field.key, field.value) {
                case (alias, .string(let name)), ("__typename", .string(let name)):
                    typename = name
                case ("id", .string(let text)), (idAlias, .string(let text)):
                    id = text
                case ("id", .integer(let number)), (idAlias, .integer(let number)):
                    id = String(number)
                default:
                    break
                }
                if field.key == alias || field.key == idAlias {
                    removedAny = true
                    continue
                }
                kept.append((field.key, visit(field.value, isRootField: false)))
            }
            if let typename {
                types.insert(typename)
                if isRootField { rootFieldTypes.insert(typename) }
                if let id { entities.insert(typename + ":" + id) }
            }
            return kept
        }
    }
}
