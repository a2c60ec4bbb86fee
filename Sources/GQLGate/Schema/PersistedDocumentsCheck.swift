import GQLGateExchanges
import GQLGatePipeline
import Logging

/// Reports each persisted document that does not validate against the
/// schema held, when it is loaded: when the manifests are read and when a
/// new schema arrives. A listed document is not refused for it (its clients
/// are shipped); each request of it is, like any other text.
struct PersistedDocumentsCheck: Sendable {
    let logger: Logger

    /// One warning per document of `documents` that `schema` refuses.
    func report(_ documents: PersistedDocumentSet, against schema: LoadedSchema) {
        for (id, document) in documents.listed {
            let verdict = schema.verdict(on: document)
            guard !verdict.isValid else { continue }
            logger.warning("A persisted document does not validate against the schema", metadata: [
                "id": .string(id), "sha256": .string(document.sha256),
                "errors": .array(verdict.problems.map { .string($0.message) }),
            ])
        }
    }
}
