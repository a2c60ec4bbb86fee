/// The top-level keys of a request body read so far, to refuse one that
/// comes again: a bit for each member gqlgate reads (no allocation on a
/// request's path), a set, made only when needed, for any other.
struct RequestBodyKeys {
    /// The members gqlgate reads.
    enum Member: UInt8 {
        case query = 1, operationName = 2, variables = 4, extensions = 8, documentId = 16, docID = 32, id = 64

        /// The member's key in the body.
        var key: String { self == .docID ? "doc_id" : String(describing: self) }
    }

    private var members: UInt8 = 0
    private var others: Set<String> = []

    /// Notes `member`, whose key is at `offset`; throws when it came before.
    mutating func insert(_ member: Member, at offset: Int) throws(JSONReader.Failure) {
        guard members & member.rawValue == 0 else {
            throw JSONReader.Failure(offset: offset, problem: .repeatedKey(member.key))
        }
        members |= member.rawValue
    }

    /// Notes another member's key (UTF-8), at `offset`; throws when it came before.
    mutating func insert(other key: UnsafeRawBufferPointer, at offset: Int) throws(JSONReader.Failure) {
        let key = String(decoding: key, as: UTF8.self)
        guard others.insert(key).inserted else { throw JSONReader.Failure(offset: offset, problem: .repeatedKey(key)) }
    }
}
