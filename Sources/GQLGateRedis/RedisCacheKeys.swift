package import GQLGateExchanges

/// The Redis keys of the response cache, all under one prefix (so that
/// several gateways, or gqlgate and other applications, can share a Redis):
///
/// - `<prefix>answer:<key hex>`: one stored answer (`StoredAnswerEncoding`);
/// - `<prefix>tag:<tag>`: a sorted set of the key hexes of the answers
///   holding an entity (`Review:7`) or a type (`Review`), scored by when they expire;
/// - `<prefix>refresh:<key hex>`: the claim of the one background refresh of a stale answer.
///
/// In a Redis Cluster every command must stay in one slot, and an answer is
/// stored together with its tag sets by one script: so the keys are spread
/// over `partitions` groups, each in one slot through a hash tag after the
/// prefix (`<prefix>{17}answer:<key hex>`, `<prefix>{17}tag:Review:7`), an
/// answer's group chosen by its key. A tag then has one set per group, and
/// a purge visits every group. With one group (a single server) keys have no hash tag.
package struct RedisCacheKeys: Sendable, Equatable {
    /// The groups a cluster's keys are spread over: enough for the slots of
    /// three to a dozen masters to share them evenly, few enough that a purge
    /// (a command or two per group) stays cheap.
    package static let clusterPartitions = 64

    /// `redis.key_prefix`, `gqlgate:` by default.
    package let prefix: String
    /// How many groups keys are spread over; 1 for a single server.
    package let partitions: Int

    package init(prefix: String = "gqlgate:", partitions: Int = 1) {
        self.prefix = prefix
        self.partitions = max(1, partitions)
    }

    /// The group of the answer whose key is `hex`.
    package func partition(ofHex hex: String) -> Int {
        guard partitions > 1 else { return 0 }
        return Int(hex.prefix(4), radix: 16).map { $0 % partitions } ?? 0
    }

    /// Where the answer for `key` is stored.
    package func answer(_ key: RequestKey) -> String { answer(hex: key.description) }

    /// Where the answer whose key is `hex` is stored.
    package func answer(hex: String) -> String { base(partition(ofHex: hex)) + "answer:" + hex }

    /// The refresh claim of `key`.
    package func refresh(_ key: RequestKey) -> String { base(partition(ofHex: key.description)) + "refresh:" + key.description }

    /// The set of answers of group `partition` holding `tag`.
    package func tag(_ tag: String, partition: Int = 0) -> String { base(partition) + "tag:" + tag }

    /// The prefix of group `partition`'s keys.
    private func base(_ partition: Int) -> String { partitions == 1 ? prefix : prefix + "{" + String(partition) + "}" }
}
