package import GQLGateCore

/// One stored answer: what the client gets back (status, end-to-end headers,
/// the stripped body), when it was stored, how long it stays fresh, and the
/// tags invalidation looks at.
///
/// What never changes after storing is held in one shared box: a hit copies
/// the answer out of the cache with one retain instead of one per part.
package struct CachedAnswer: Sendable {
    private let stored: Stored
    /// `CacheClock` time of storing.
    package var storedAt: Duration
    package var ttl: Duration

    package var status: Int { stored.status }
    /// The upstream's headers without `X-Request-Id` and `Age` (set per answer).
    package var headers: HTTPHeaders { stored.headers }
    package var body: Bytes { stored.body }
    package var tags: CacheTags { stored.tags }
    /// The body's compressed forms, made on the first hits that ask for them
    /// (`compression`); not counted in `cost` (a fraction of the body).
    package var encodings: EncodedBodies { stored.encodings }

    package init(status: Int, headers: HTTPHeaders, body: Bytes, storedAt: Duration, ttl: Duration, tags: CacheTags) {
        stored = Stored(status: status, headers: headers, body: body, tags: tags)
        self.storedAt = storedAt
        self.ttl = ttl
    }

    private final class Stored: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Bytes
        let tags: CacheTags
        let encodings = EncodedBodies()

        init(status: Int, headers: HTTPHeaders, body: Bytes, tags: CacheTags) {
            self.status = status
            self.headers = headers
            self.body = body
            self.tags = tags
        }
    }

    /// Bookkeeping per entry beyond its bytes (the entry, its LRU slot, index
    /// and tag-index slots), an estimate counted so that many small answers
    /// cannot exceed `max_bytes` by far.
    package static let entryOverhead = 256

    /// The bytes this answer holds: body, header names and values, tags,
    /// plus `entryOverhead` (a store adds its key's).
    package var cost: Int {
        var bytes = Self.entryOverhead + body.count
        for field in headers { bytes += field.name.utf8.count + field.value.utf8.count + 4 }
        bytes += tags.byteCount
        return bytes
    }
}

/// What an answer holds, for invalidation: its entities (`Review:7`), its
/// object types, and the scalar argument values of its root fields.
package struct CacheTags: Sendable, Equatable {
    package var entities: Set<String>
    package var types: Set<String>
    /// Root field argument values by argument name, as text.
    package var arguments: [String: Set<String>]

    package init(entities: Set<String> = [], types: Set<String> = [], arguments: [String: Set<String>] = [:]) {
        self.entities = entities
        self.types = types
        self.arguments = arguments
    }

    /// The tag every stored answer carries: a purge of it purges everything.
    package static let everyAnswer = "#all"

    /// The tag of the answers to operations named `name`. Entity tags are
    /// `Type:id` and type names cannot hold `#`, so neither can collide with it.
    package static func operation(_ name: String) -> String { "#operation:" + name }

    /// Whether some argument both operations name has no value in common:
    /// `reviews(episode: EMPIRE)` and `createReview(episode: JEDI)` disagree.
    package func disagrees(with arguments: [String: Set<String>]) -> Bool {
        for (name, values) in arguments {
            if let own = self.arguments[name], own.isDisjoint(with: values) { return true }
        }
        return false
    }

    var byteCount: Int {
        var bytes = 0
        for tag in entities { bytes += tag.utf8.count }
        for tag in types { bytes += tag.utf8.count }
        for (name, values) in arguments {
            bytes += name.utf8.count
            for value in values { bytes += value.utf8.count }
        }
        return bytes
    }
}
