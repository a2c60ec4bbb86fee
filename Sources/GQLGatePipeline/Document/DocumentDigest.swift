/// The SHA-256 of a form of a document (`AnalysedDocument.definitionSetDigest`),
/// as a set member that hashes one word instead of 64 hex digits.
package struct DocumentDigest: Hashable, Sendable {
    let key: DigestKey
}
