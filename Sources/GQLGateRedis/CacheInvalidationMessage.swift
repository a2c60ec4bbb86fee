import GQLGateExchanges

/// What one replica tells the others through Redis pub/sub when it purges
/// answers (a mutation's entities, an operator's purge): which replica sent
/// it (so that it skips its own), and the purge.
///
/// Layout (see `RecordCoding`): `"GQI1"`, the sender, the entities, the
/// types, the root arguments, and 1 for a soft purge (else 0).
struct CacheInvalidationMessage: Equatable {
    var sender: String
    var purge: CachePurge

    private static let magic: [UInt8] = Array("GQI1".utf8)

    init(sender: String, purge: CachePurge) {
        self.sender = sender
        self.purge = purge
    }

    var encoded: [UInt8] {
        var out = Self.magic
        RecordCoding.append(sender, to: &out)
        RecordCoding.append(purge.entities.sorted(), to: &out)
        RecordCoding.append(purge.types.sorted(), to: &out)
        RecordCoding.append(purge.arguments, to: &out)
        out.append(purge.soft ? 1 : 0)
        return out
    }

    /// The message in `bytes`; nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var reader = RecordCoding.Reader(bytes: bytes)
        guard reader.take(Self.magic.count) == Self.magic[...], let sender = reader.text(), let entities = reader.texts(),
              let types = reader.texts(), let arguments = reader.arguments(), let soft = reader.integer(UInt8.self), soft <= 1,
              reader.isAtEnd else { return nil }
        self.init(sender: sender, purge: CachePurge(entities: Set(entities), types: Set(types), arguments: arguments, soft: soft == 1))
    }
}
