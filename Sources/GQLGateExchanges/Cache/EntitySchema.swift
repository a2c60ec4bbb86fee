package import GQLGatePipeline

/// What the gateway knows of the upstream schema to tag cached answers with
/// entities: the root types, the named type of each field of each object and
/// interface type, which types have an `id: ID!` field without arguments
/// (identified types), and the possible object types of interfaces and
/// unions. Learned by introspection (`init(introspection:)`); immutable.
package final class EntitySchema: Sendable {
    /// The root type of each operation kind the schema has.
    package let rootTypes: [OperationKind: String]
    /// Field name to named type (lists and non-null unwrapped), per type.
    package let fieldTypes: [String: [String: String]]
    /// Object and interface types with an `id: ID!` field.
    package let identifiedTypes: Set<String>
    /// The possible object types of each interface and union, sorted.
    package let possibleTypes: [String: [String]]

    package init(rootTypes: [OperationKind: String], fieldTypes: [String: [String: String]], identifiedTypes: Set<String>,
                possibleTypes: [String: [String]]) {
        self.rootTypes = rootTypes
        self.fieldTypes = fieldTypes
        self.identifiedTypes = identifiedTypes
        self.possibleTypes = possibleTypes.mapValues { $0.sorted() }
    }

    /// How a selection set on `type` gets the `id` of the object it selects.
    package enum IDSelection: Equatable, Sendable {
        /// `type` has no `id`, nor does any of its possible types, or is unknown.
        case none
        /// `type` declares `id: ID!` itself: select it directly.
        case direct
        /// `type` is abstract without an `id` of its own: select it in an
        /// inline fragment on each of these possible types.
        case perType([String])
    }

    /// How a selection set on `type` selects `id`.
    package func idSelection(on type: String) -> IDSelection {
        if identifiedTypes.contains(type) { return .direct }
        let identified = possibleTypes[type]?.filter(identifiedTypes.contains) ?? []
        return identified.isEmpty ? .none : .perType(identified)
    }

    /// The named type of `field` on `type`; nil when either is unknown.
    package func type(ofField field: String, on type: String) -> String? {
        fieldTypes[type]?[field]
    }
}
