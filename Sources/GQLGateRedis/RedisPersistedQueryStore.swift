import GQLGateExchanges
package import GQLGatePipeline

/// The APQ registrations every replica shares (`apq.store: redis`): the
/// query text under `<prefix>apq:<sha256 hex>`, as sent (UTF-8, nothing
/// around it), expiring `ttl` after its last registration. One key per
/// hash and single-key commands only, so a Redis Cluster needs no hash tag.
///
/// Redis that is down, slow (past the client's command timeout) or
/// answering something unexpected never fails a request: a look-up finds
/// nothing, a registration is not kept, and the failure is counted
/// (`redisCommandFailed(.apq)`); each replica goes on with its memory.
package final class RedisPersistedQueryStore: SharedPersistedQueries {
    /// How long a registration is kept after the last one: 24 hours.
    package static let defaultTTL: Duration = .seconds(24 * 60 * 60)

    private let redis: RedisClient
    private let prefix: String
    private let ttl: Duration
    private let recorder: (any FactRecorder)?

    /// - Parameters:
    ///   - keyPrefix: `redis.key_prefix`.
    ///   - ttl: how long a registration lives in Redis (whole seconds, at least one).
    ///   - recorder: told of each command that failed (`redisCommandFailed(.apq)`).
    package init(client: RedisClient, keyPrefix: String = "gqlgate:", ttl: Duration = defaultTTL,
                 recorder: (any FactRecorder)? = nil) {
        redis = client
        prefix = keyPrefix
        self.ttl = ttl
        self.recorder = recorder
    }

    /// Where the query registered under `hash` is kept.
    package func key(forHash hash: String) -> String { prefix + "apq:" + hash }

    package func document(forHash hash: String) async -> String? {
        let reply: RedisReply
        do {
            reply = try await redis.send([Array("GET".utf8), Array(key(forHash: hash).utf8)])
        } catch {
            failed()
            return nil
        }
        switch reply {
        case .null:
            return nil
        case .bulk(let text):
            // Not UTF-8: not a query gqlgate stored; the caller checks the hash of what is.
            return String(validating: text, as: UTF8.self)
        default:
            failed()
            return nil
        }
    }

    @discardableResult
    package func register(hash: String, document: String) async -> Bool {
        let seconds = max(1, ttl.components.seconds + (ttl.components.attoseconds > 0 ? 1 : 0))
        let arguments = [Array("SET".utf8), Array(key(forHash: hash).utf8), Array(document.utf8), Array("EX".utf8),
                         Array(String(seconds).utf8)]
        guard (try? await redis.send(arguments))?.isOK == true else {
            failed()
            return false
        }
        return true
    }

    private func failed() {
        recorder?.record(.redisCommandFailed(.apq))
    }
}
