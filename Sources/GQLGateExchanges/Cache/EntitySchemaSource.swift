@_spi(GQLGateInternals) import GQLGateCore
@_spi(GQLGateInternals) import GQLGatePipeline

/// Where the response cache reads the upstream schema from: empty until
/// introspection answers (`SchemaIntrospection`), then the learned
/// `EntitySchema`. Shared by every loop; read once per cached request.
package final class EntitySchemaSource: Sendable {
    private let schema = Lock<EntitySchema?>(nil)

    package init(_ schema: EntitySchema? = nil) {
        self.schema.withLock { $0 = schema }
    }

    /// The schema learned so far; nil before introspection answered.
    package var current: EntitySchema? {
        schema.withLock { $0 }
    }

    /// Makes `learned` the schema requests use from now on.
    package func update(_ learned: EntitySchema) {
        schema.withLock { $0 = learned }
    }
}
