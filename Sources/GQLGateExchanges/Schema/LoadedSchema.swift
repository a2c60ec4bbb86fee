import GQLGateCore
import GQLGatePipeline
package import GraphQL
import Synchronization

/// A schema gqlgate holds: built from SDL (a file's, or one printed from an
/// introspection answer), with what the response cache reads of it.
/// Immutable; a reload builds a new one with a new `generation`.
package final class LoadedSchema: Sendable {
    /// The schema documents are validated against.
    package let schema: GraphQLSchema
    /// Tells one load from another (validation verdicts are kept per generation).
    package let generation: Int
    /// The SDL it was built from, as read (the file's text, or what the
    /// introspection answer printed as): what the admin API's `GET /schema` answers.
    package let sdl: String
    /// Hex SHA-256 of the SDL it was built from: a reload of the same text changes nothing.
    package let sdlSHA256: String
    /// The types, fields and ids the response cache tags answers with.
    package let entitySchema: EntitySchema

    private static let generations = Atomic<Int>(0)

    /// Builds the schema `sdl` describes.
    /// - Throws: `SchemaLoadError` when the text is not SDL or does not make a schema.
    package init(sdl: String) throws(SchemaLoadError) {
        let text = ImpliedDirectives.adding(to: sdl)
        let built: GraphQLSchema
        do {
            built = try buildSchema(source: text)
        } catch let error as GraphQLError {
            throw SchemaLoadError(error.locations.first.map { "\(error.message) (\($0.line):\($0.column))" } ?? error.message)
        } catch {
            throw SchemaLoadError("\(error)")
        }
        guard built.queryType != nil else { throw SchemaLoadError("the schema has no query type") }
        schema = built
        generation = Self.generations.add(1, ordering: .relaxed).newValue
        self.sdl = sdl
        var bytes = sdl
        sdlSHA256 = bytes.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }.hexString
        entitySchema = EntitySchema(schema: built)
    }
}

/// Why a schema could not be built.
package struct SchemaLoadError: Error, Equatable, CustomStringConvertible {
    package let reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var description: String { reason }
}
