package import GQLGatePipeline

/// The documents of a set of manifest files, each parsed and checked once,
/// found by id, by the SHA-256 of their text, or by their definition set
/// (the safelist's match: whitespace, comments and definition order ignored).
package final class PersistedDocumentSet: Sendable {
    /// Why the manifests cannot be used: the file, and the entry when one is at fault.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// A listed document.
    package struct Listed: Sendable {
        /// Its text, as the manifest has it (what the upstream is sent).
        package let text: String
        /// Its analysis, from the document cache the set was loaded into.
        package let document: AnalysedDocument
    }

    private let byID: [String: Listed]
    private let bySHA256: [String: Listed]
    private let definitionSets: Set<DocumentDigest>

    /// Reads, parses and checks every manifest in `paths`; every document is
    /// analysed through `cache`, so its first request is a cache hit.
    /// - Parameter read: a file's text, nil when it cannot be read.
    package init(paths: [String], cache: DocumentCache, read: (String) -> String?) throws(Failure) {
        var byID: [String: (listed: Listed, path: String)] = [:]
        var bySHA256: [String: Listed] = [:]
        var definitionSets: Set<DocumentDigest> = []
        for path in paths {
            guard let text = read(path) else { throw Failure(description: "\(path): cannot be read") }
            let manifest: PersistedManifest
            do {
                manifest = try PersistedManifest(text: text, path: path)
            } catch {
                throw Failure(description: error.description)
            }
            for entry in manifest.entries {
                let document: AnalysedDocument
                do {
                    document = try cache.analyse(entry.text)
                } catch {
                    throw Failure(description: "\(path): id \(entry.id): the document is not valid (\(error.message))")
                }
                if let known = byID[entry.id], known.listed.text != entry.text {
                    throw Failure(description: "\(path): id \(entry.id): also in \(known.path) with another document")
                }
                let listed = Listed(text: entry.text, document: document)
                byID[entry.id] = (listed, path)
                bySHA256[document.sha256] = listed
                definitionSets.insert(document.definitionSetDigest)
            }
        }
        self.byID = byID.mapValues(\.listed)
        self.bySHA256 = bySHA256
        self.definitionSets = definitionSets
    }

    /// Documents listed (by distinct id).
    package var count: Int { byID.count }

    /// Every listed document with its id, in the order of the ids.
    package var listed: [(id: String, document: AnalysedDocument)] {
        byID.sorted { $0.key < $1.key }.map { ($0.key, $0.value.document) }
    }

    /// The document a client's id names: `sha256:<hex>` (or a bare 64-digit
    /// hex) by the SHA-256 of its text, anything else by its id in a manifest.
    package func document(forID id: String) -> Listed? {
        if id.utf8.count == 71, id.hasPrefix("sha256:") { return bySHA256[String(id.dropFirst(7)).lowercased()] }
        if let listed = byID[id] { return listed }
        return id.utf8.count == 64 ? bySHA256[id.lowercased()] : nil
    }

    /// The document whose text has SHA-256 `hash` (lower-case hex): APQ's hash.
    package func document(forSHA256 hash: String) -> Listed? {
        bySHA256[hash]
    }

    /// Whether `document` is listed: the same definitions as a listed one,
    /// whatever its whitespace, comments and definition order.
    package func lists(_ document: AnalysedDocument) -> Bool {
        definitionSets.contains(document.definitionSetDigest)
    }
}
