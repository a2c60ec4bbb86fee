@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
package import GQLGateExchanges
@_spi(GQLGateInternals) package import GQLGatePipeline

/// The response cache in Redis, shared by every replica that uses the same
/// server and key prefix (see `RedisCacheKeys` for the data model). Answers
/// expire in Redis once past their TTL and both stale windows. Redis that is
/// down, slow (past the client's command timeout) or answering something
/// unexpected never fails a request: the look-up says `.unavailable` (the
/// query is fetched and not stored) and the failure is counted in
/// `statistics.storeErrors`.
///
/// Its clock is `.wall`, so that replicas agree on an answer's age.
/// `max_bytes` does not bound Redis; its own `maxmemory` does.
package final class RedisResponseCache: ResponseCacheStore {

    private let redis: RedisClient
    private let keys: RedisCacheKeys
    private let staleWhileRevalidate: Duration
    private let staleIfError: Duration
    private let counters = Lock(ResponseCacheStatistics())
    private let recorder: (any FactRecorder)?

    /// - Parameters:
    ///   - keys: the key names, under `cache.redis_key_prefix`.
    ///   - staleWhileRevalidate: `cache.stale_while_revalidate`.
    ///   - staleIfError: `cache.stale_if_error`.
    ///   - recorder: told of each command that failed (`redisCommandFailed(.cache)`).
    package init(client: RedisClient, keys: RedisCacheKeys = RedisCacheKeys(), staleWhileRevalidate: Duration = .zero,
                staleIfError: Duration = .zero, recorder: (any FactRecorder)? = nil) {
        self.recorder = recorder
        redis = client
        self.keys = keys
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
    }

    package func lookup(_ key: RequestKey, now: Duration) async -> ResponseCacheLookup {
        let reply: RedisReply
        do {
            reply = try await redis.send([Array("GET".utf8), Array(keys.answer(key).utf8)])
        } catch {
            failed()
            return .unavailable
        }
        switch reply {
        case .null:
            return .miss
        case .bulk(let record):
            // An unreadable record (another version, say) is a miss: the next store replaces it.
            guard let answer = StoredAnswerEncoding.decode(record) else { return .miss }
            let age = max(.zero, now - answer.storedAt)
            if age < answer.ttl { return .fresh(answer, age: age) }
            if age < answer.ttl + staleWhileRevalidate {
                return .stale(answer, age: age, refresh: await claimRefresh(key))
            }
            if age < answer.ttl + staleIfError { return .expired(answer, age: age) }
            return .miss
        default:
            failed()
            return .unavailable
        }
    }

    /// Whether this caller is the one to refresh `key` (`SET NX` across replicas).
    private func claimRefresh(_ key: RequestKey) async -> Bool {
        let claim = try? await redis.send("SET", keys.refresh(key), "1", "NX", "PX", String(Self.milliseconds(staleWhileRevalidate)))
        return claim?.isOK == true
    }

    @discardableResult
    package func store(_ answer: CachedAnswer, for key: RequestKey) async -> Bool {
        let lifetime = answer.ttl + max(staleWhileRevalidate, staleIfError)
        let tags = answer.tags.entities.union(answer.tags.types).sorted()
        var arguments: [[UInt8]] = ["EVAL", Self.storeScript, String(2 + tags.count), keys.answer(key), keys.refresh(key)].map { Array($0.utf8) }
        let partition = keys.partition(ofHex: key.description)
        arguments += tags.map { Array(keys.tag($0, partition: partition).utf8) }
        arguments.append(StoredAnswerEncoding.encode(answer))
        arguments += [String(Self.milliseconds(lifetime)), key.description, String(Self.milliseconds(answer.storedAt + lifetime)),
                      String(Self.milliseconds(answer.storedAt))].map { Array($0.utf8) }
        guard case .integer? = try? await redis.send(arguments) else {
            failed()
            return false
        }
        return true
    }

    package func refreshFailed(_ key: RequestKey) async {
        if (try? await redis.send("DEL", keys.refresh(key))) == nil { failed() }
    }

    @discardableResult
    package func purge(_ purge: CachePurge, now: Duration) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for partition in 0..<keys.partitions {
                group.addTask { await self.purge(purge, now: now, partition: partition) }
            }
            return await group.reduce(0, +)
        }
    }

    /// Purges the answers of one key group (every command in its slot).
    private func purge(_ purge: CachePurge, now: Duration, partition: Int) async -> Int {
        do throws(RedisError) {
            var doomed: Set<String> = []
            for entity in purge.entities { doomed.formUnion(try await members(of: entity, partition: partition)) }
            var typed: Set<String> = []
            for type in purge.types { typed.formUnion(try await members(of: type, partition: partition)) }
            let candidates = Array(typed.subtracting(doomed))
            if !candidates.isEmpty {
                for (hex, record) in try await records(candidates) {
                    // An unreadable record goes too: nothing shows it does not hold the type.
                    if StoredAnswerEncoding.decode(record)?.tags.disagrees(with: purge.arguments) != true { doomed.insert(hex) }
                }
            }
            guard !doomed.isEmpty else { return 0 }
            let purged = purge.soft ? try await soften(Array(doomed), now: now) : try await delete(Array(doomed))
            counters.withLock { $0.invalidations += purged }
            return purged
        } catch {
            failed()
            return 0
        }
    }

    /// The records of the answers whose key hexes are `hexes` (one group), those still there.
    private func records(_ hexes: [String]) async throws(RedisError) -> [(String, [UInt8])] {
        let reply = try await redis.send([Array("MGET".utf8)] + hexes.map { Array(keys.answer(hex: $0).utf8) })
        guard let records = reply.elements, records.count == hexes.count else { throw .unexpectedReply("MGET: \(reply)") }
        return zip(hexes, records).compactMap { hex, record in record.bytes.map { (hex, $0) } }
    }

    private func delete(_ hexes: [String]) async throws(RedisError) -> Int {
        let reply = try await redis.send([Array("DEL".utf8)] + hexes.map { Array(keys.answer(hex: $0).utf8) })
        guard let removed = reply.integer else { throw .unexpectedReply("DEL: \(reply)") }
        return Int(removed)
    }

    /// Makes the answers stale as of `now`: each record is written again with
    /// its TTL cut to its age, to live out the stale windows (or deleted without any).
    private func soften(_ hexes: [String], now: Duration) async throws(RedisError) -> Int {
        let window = max(staleWhileRevalidate, staleIfError)
        guard window > .zero else { return try await delete(hexes) }
        var softened = 0
        for (hex, record) in try await records(hexes) {
            guard var answer = StoredAnswerEncoding.decode(record) else { continue }
            answer.ttl = min(answer.ttl, max(.zero, now - answer.storedAt))
            let reply = try await redis.send([Array("SET".utf8), Array(keys.answer(hex: hex).utf8), StoredAnswerEncoding.encode(answer),
                                              Array("PX".utf8), Array(String(Self.milliseconds(window)).utf8)])
            guard reply.isOK else { throw .unexpectedReply("SET: \(reply)") }
            softened += 1
        }
        return softened
    }

    /// The key hexes of group `partition`'s answers tagged `tag`. Members whose
    /// answers Redis has expired may be among them until the next store under
    /// the tag drops them: their records read as nil, and deleting them is a no-op.
    private func members(of tag: String, partition: Int) async throws(RedisError) -> [String] {
        let reply = try await redis.send("ZRANGE", keys.tag(tag, partition: partition), "0", "-1")
        guard let elements = reply.elements else { throw .unexpectedReply("ZRANGE: \(reply)") }
        return elements.compactMap { $0.bytes.map { String(decoding: $0, as: UTF8.self) } }
    }

    package func record(_ outcome: CacheOutcome) {
        counters.withLock { counters in
            switch outcome {
            case .hit: counters.hits += 1
            case .miss: counters.misses += 1
            case .bypass: counters.bypasses += 1
            }
        }
    }

    package var statistics: ResponseCacheStatistics { counters.withLock { $0 } }

    package var clock: CacheClock { .wall }

    /// Counts a failed look-up, store or purge.
    private func failed() {
        counters.withLock { $0.storeErrors += 1 }
        recorder?.record(.redisCommandFailed(.cache))
    }

    /// Whole milliseconds, rounded up, at least 1 (Redis refuses a `PX` of 0).
    private static func milliseconds(_ duration: Duration) -> Int {
        max(1, duration.milliseconds)
    }

    /// Stores an answer atomically: KEYS = the answer, its refresh claim, its
    /// tag sets; ARGV = the record, its lifetime in ms, its key hex, when it
    /// expires and when it was stored (ms since the epoch). Each tag set
    /// drops members expired before now, scores the answer by its expiry, and
    /// lives at least as long as it.
    static let storeScript = """
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('DEL', KEYS[2])
        for i = 3, #KEYS do
          redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[5])
          redis.call('ZADD', KEYS[i], ARGV[4], ARGV[3])
          if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
        end
        return #KEYS - 2
        """
}
