import GQLGatePipeline

/// One manifest file's operations, read by shape: an Apollo persisted query
/// manifest (`{"format": "apollo-persisted-query-manifest", "version": 1,
/// "operations": [{"id", "body", "name", "type"}]}`, each id the SHA-256 of
/// its body) or a Relay-style map (`{"<id>": "<document text>"}`, ids as the
/// Relay compiler's `persistConfig` makes them).
struct PersistedManifest {
    /// One listed operation.
    struct Entry: Equatable {
        let id: String
        let text: String
    }

    /// Why a manifest cannot be used: the file, and the entry when one is at fault.
    struct Failure: Error, Equatable, CustomStringConvertible {
        let description: String

        init(path: String, entry: String? = nil, _ problem: String) {
            description = entry.map { "\(path): \($0): \(problem)" } ?? "\(path): \(problem)"
        }
    }

    let entries: [Entry]

    /// Reads the manifest text of the file at `path` (named in failures).
    init(text: String, path: String) throws(Failure) {
        let root: JSONValue
        do {
            root = try JSONReader.read(text)
        } catch {
            throw Failure(path: path, "not JSON (\(error.predicate))")
        }
        guard case .object(let members) = root else {
            throw Failure(path: path, "expected a JSON object: an Apollo persisted query manifest or a Relay-style map of id to document")
        }
        if root["format"] == .string("apollo-persisted-query-manifest") {
            entries = try Self.apolloEntries(root, path: path)
        } else {
            entries = try Self.relayEntries(members, path: path)
        }
    }

    private static func apolloEntries(_ root: JSONValue, path: String) throws(Failure) -> [Entry] {
        guard root["version"]?.doubleValue == 1 else { throw Failure(path: path, "\"version\" must be 1") }
        guard case .array(let operations) = root["operations"] else { throw Failure(path: path, "\"operations\" must be a list") }
        var entries: [Entry] = []
        for (index, operation) in operations.enumerated() {
            let place = "operations[\(index)]"
            guard case .string(let id) = operation["id"], !id.isEmpty else { throw Failure(path: path, entry: place, "\"id\" must be a string") }
            guard case .string(let body) = operation["body"] else { throw Failure(path: path, entry: "\(place) (id \(id))", "\"body\" must be a string") }
            guard DocumentCache.digest(of: body).hexString == id.lowercased() else {
                throw Failure(path: path, entry: "\(place) (id \(id))", "the id is not the SHA-256 of the body")
            }
            entries.append(Entry(id: id, text: body))
        }
        return entries
    }

    private static func relayEntries(_ members: [(key: String, value: JSONValue)], path: String) throws(Failure) -> [Entry] {
        var entries: [Entry] = []
        for (id, value) in members {
            guard case .string(let text) = value, !id.isEmpty else {
                throw Failure(path: path, entry: "id \"\(id)\"",
                              "expected a document text (a Relay-style map holds only id: text; an Apollo manifest has \"format\": \"apollo-persisted-query-manifest\")")
            }
            entries.append(Entry(id: id, text: text))
        }
        return entries
    }
}
