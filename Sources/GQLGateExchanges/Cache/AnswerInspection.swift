package import GQLGateCore
import GQLGatePipeline

/// What the response cache learns from a GraphQL answer body, and the body
/// the client gets: every `__typename` and `id` the gateway added (the
/// aliases of `TypenamedDocument`) removed at any depth — in nested objects, lists,
/// fragments' and aliased fields' objects alike, since they all come back as
/// plain JSON objects — while the client's own `__typename`s and `id`s stay.
/// Those members are cut out of the bytes: every other byte (numbers' text,
/// string escapes, whitespace) reaches the client as the upstream sent it.
package struct AnswerInspection: Sendable {
    /// The body to send: the original bytes when nothing was removed.
    package let body: Bytes
    /// Whether the answer has a non-empty `errors` list.
    package let hasErrors: Bool
    /// Whether `data` is an object.
    package let hasData: Bool
    /// The object types below the root (root types do not count).
    package let types: Set<String>
    /// The types of the objects the root fields returned (list items included).
    package let rootFieldTypes: Set<String>
    /// The entities held, as `Typename:id`, for objects with an `id` (string
    /// or integer), the client's or the one the gateway added.
    package let entities: Set<String>

    /// Reads `body`; nil when it is not a JSON object (or nests deeper than
    /// `JSONReader.maximumDepth`): such an answer is passed on as it is, not stored.
    /// - Parameters:
    ///   - alias: the response key of the added `__typename`, to strip; nil when none was added.
    ///   - idAlias: the response key of the added `id`, to strip; nil when none was added.
    package init?(body: Bytes, alias: String?, idAlias: String? = nil) {
        var walker = AnswerWalker(alias: alias, idAlias: idAlias)
        guard (try? body.withUnsafeBytes { bytes throws(JSONReader.Failure) in try walker.walk(bytes) }) == true else { return nil }
        self.body = walker.cuts.isEmpty ? body : body.removing(walker.cuts)
        hasErrors = walker.hasErrors
        hasData = walker.hasData
        types = walker.types
        rootFieldTypes = walker.rootFieldTypes
        entities = walker.entities
    }
}
