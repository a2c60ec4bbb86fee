/// What one replica tells the others through Redis pub/sub when it purges
/// answers (a mutation's entities, a purge): which replica sent it (so that
/// it skips its own), and what to purge, as `ResponseCacheStore.purge` takes it.
///
/// Layout (see `RecordCoding`): `"GQI1"`, the sender, the entities, the
/// types, the root arguments.
struct CacheInvalidationMessage: Equatable {
    var sender: String
    var entities: Set<String>
    var types: Set<String>
    var arguments: [String: Set<String>]

    private static let magic: [UInt8] = Array("GQI1".utf8)

    var encoded: [UInt8] {
        var out = Self.magic
        RecordCoding.append(sender, to: &out)
        RecordCoding.append(entities.sorted(), to: &out)
        RecordCoding.append(types.sorted(), to: &out)
        RecordCoding.append(arguments, to: &out)
        return out
    }

    /// The message in `bytes`; nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var reader = RecordCoding.Reader(bytes: bytes)
        guard reader.take(Self.magic.count) == Self.magic[...], let sender = reader.text(), let entities = reader.texts(),
              let types = reader.texts(), let arguments = reader.arguments(), reader.isAtEnd else { return nil }
        self.init(sender: sender, entities: Set(entities), types: Set(types), arguments: arguments)
    }

    init(sender: String, entities: Set<String>, types: Set<String>, arguments: [String: Set<String>]) {
        self.sender = sender
        self.entities = entities
        self.types = types
        self.arguments = arguments
    }
}
