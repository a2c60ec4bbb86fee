package import GQLGateExchanges

/// The Redis keys of the response cache, all under one prefix (so that
/// several gateways, or gqlgate and other applications, can share a Redis):
///
/// - `<prefix>answer:<key hex>`: one stored answer (`StoredAnswerEncoding`);
/// - `<prefix>tag:<tag>`: a sorted set of the key hexes of the answers
///   holding an entity (`Review:7`) or a type (`Review`), scored by when they expire;
/// - `<prefix>refresh:<key hex>`: the claim of the one background refresh of a stale answer.
package struct RedisCacheKeys: Sendable, Equatable {
    /// `cache.redis_key_prefix`, `gqlgate:` by default.
    package let prefix: String

    package init(prefix: String = "gqlgate:") {
        self.prefix = prefix
    }

    /// Where the answer for `key` is stored.
    package func answer(_ key: RequestKey) -> String { answer(hex: key.description) }

    /// Where the answer whose key is `hex` is stored.
    package func answer(hex: String) -> String { prefix + "answer:" + hex }

    /// The refresh claim of `key`.
    package func refresh(_ key: RequestKey) -> String { prefix + "refresh:" + key.description }

    /// The set of answers holding `tag`.
    package func tag(_ tag: String) -> String { prefix + "tag:" + tag }
}
