@_spi(GQLGateInternals) import GQLGateCore
package import GQLGateExchanges
@_spi(GQLGateInternals) package import GQLGatePipeline
package import Logging

/// The fleet's rate-limit buckets in Redis (`clients.rate_limit.store:
/// redis`), for every replica under the same key prefix:
///
/// - `<prefix>rl:<digest>`, a hash per bucket: field `=` holds its
///   theoretical arrival time (microseconds of Redis's clock, `TIME`), each
///   other field a replica taking from it and when it last settled. A script
///   adds a settlement, drops the replicas gone quiet and answers how far
///   ahead the arrival time is and how many replicas remain; it expires once
///   the bucket would be full again and no replica settled for `activeFor`.
/// - `<prefix>rl:replicas`, a sorted set of the replicas running, scored by
///   when each last announced itself.
///
/// Each command touches one key, so a Redis Cluster serves it as any other.
/// Scripts are sent by their SHA-1 (`EVALSHA`), in full when a server does
/// not know them yet. A failure (no connection, no reply within
/// `redis.timeout`, another reply) is counted (`redisCommandFailed(.rateLimit)`)
/// and answered nil: the limiter falls back to per-replica buckets. The
/// first failure after a success is logged (a warning), and so is the next
/// success (a notice): once per outage, besides the client's own line.
package final class RedisRateLimitStore: SharedRateLimitStore {
    private struct Outage {
        var down = false
    }

    private let redis: RedisClient
    private let prefix: String
    private let recorder: (any FactRecorder)?
    private let logger: Logger?
    private let outage = Lock(Outage())

    /// - Parameters:
    ///   - keyPrefix: `redis.key_prefix`.
    ///   - recorder: told of each command that failed.
    ///   - logger: told when the limit becomes per replica, and shared again.
    package init(client: RedisClient, keyPrefix: String, recorder: (any FactRecorder)? = nil, logger: Logger? = nil) {
        redis = client
        prefix = keyPrefix
        self.recorder = recorder
        self.logger = logger
    }

    package func settle(_ key: String, admitted: Int, replica: String, policy: SharedRateLimitPolicy) async -> SharedBucket? {
        let arguments = [Self.microseconds(policy.interval), String(max(0, admitted)), replica,
                         String(max(1, policy.activeFor.nanoseconds / 1000))]
        let reply: RedisReply
        do {
            reply = try await run(Self.settleScript, sha1: Self.settleScriptSHA1, key: bucketKey(key), arguments)
        } catch {
            failed("\(error)")
            return nil
        }
        guard let elements = reply.elements, elements.count == 2, let text = elements[0].bytes,
              let ahead = UInt64(String(decoding: text, as: UTF8.self)), let replicas = elements[1].integer else {
            failed("unexpected reply: \(reply)")
            return nil
        }
        succeeded()
        let (nanoseconds, overflow) = ahead.multipliedReportingOverflow(by: 1000)
        return SharedBucket(ahead: overflow ? .max : nanoseconds, replicas: Int(replicas))
    }

    package func announce(replica: String, policy: SharedRateLimitPolicy) async -> Int? {
        let reply: RedisReply
        do {
            reply = try await run(Self.announceScript, sha1: Self.announceScriptSHA1, key: replicasKey,
                                  [replica, String(max(1, policy.activeFor.milliseconds))])
        } catch {
            failed("\(error)")
            return nil
        }
        guard let count = reply.integer else {
            failed("unexpected reply: \(reply)")
            return nil
        }
        succeeded()
        return Int(count)
    }

    /// The key of the bucket named `digest`.
    package func bucketKey(_ digest: String) -> String { "\(prefix)rl:\(digest)" }

    /// The key of the replicas running.
    package var replicasKey: String { "\(prefix)rl:replicas" }

    /// `EVALSHA`, then `EVAL` when the server does not hold the script (a restart, another cluster node).
    private func run(_ script: String, sha1: String, key: String, _ arguments: [String]) async throws(RedisError) -> RedisReply {
        let tail = ["1", key] + arguments
        let reply = try await redis.send((["EVALSHA", sha1] + tail).map { Array($0.utf8) })
        if case .error(let message) = reply, message.hasPrefix("NOSCRIPT") {
            return try await redis.send((["EVAL", script] + tail).map { Array($0.utf8) })
        }
        return reply
    }

    /// Counts a failed command; the first after a success is logged.
    private func failed(_ reason: String) {
        recorder?.record(.redisCommandFailed(.rateLimit))
        let warn = outage.withLock { outage in
            defer { outage.down = true }
            return !outage.down
        }
        if warn {
            logger?.warning("rate limit settlements with redis fail; each replica limits on its own until they succeed",
                            metadata: ["reason": "\(reason)"])
        }
    }

    private func succeeded() {
        let recovered = outage.withLock { outage in
            defer { outage.down = false }
            return outage.down
        }
        if recovered { logger?.notice("rate limit settlements with redis succeed again; limits are shared by the fleet") }
    }

    /// Whole microseconds and their fraction, as Lua reads them.
    private static func microseconds(_ nanoseconds: UInt64) -> String {
        "\(Double(nanoseconds) / 1000)"
    }

    /// KEYS[1] the bucket; ARGV: microseconds per token, requests let
    /// through since the last settlement, the replica, microseconds a
    /// replica stays counted. Returns {microseconds the arrival time is
    /// ahead of now, replicas taking from the bucket}.
    package static let settleScript = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
        local tat = tonumber(redis.call('HGET', KEYS[1], '=') or 0) or 0
        if tat < now then tat = now end
        tat = tat + tonumber(ARGV[2]) * tonumber(ARGV[1])
        local active = tonumber(ARGV[4])
        local replicas = 1
        local fields = redis.call('HGETALL', KEYS[1])
        for i = 1, #fields, 2 do
          local name = fields[i]
          if name ~= '=' and name ~= ARGV[3] then
            if now - (tonumber(fields[i + 1]) or 0) < active then replicas = replicas + 1 else redis.call('HDEL', KEYS[1], name) end
          end
        end
        redis.call('HSET', KEYS[1], '=', string.format('%.0f', tat), ARGV[3], string.format('%.0f', now))
        redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil((tat - now + active) / 1000)))
        return {string.format('%.0f', tat - now), replicas}
        """
    package static let settleScriptSHA1 = "f53006f63c41b53ce5b57647696ae8a265b30a93"

    /// KEYS[1] the replicas running; ARGV: the replica, milliseconds a
    /// replica stays counted. Returns how many are counted.
    package static let announceScript = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
        redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - tonumber(ARGV[2])))
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return redis.call('ZCARD', KEYS[1])
        """
    package static let announceScriptSHA1 = "c0c93456f32e91ea39f1af86c1ffac0202e9fbbd"
}
