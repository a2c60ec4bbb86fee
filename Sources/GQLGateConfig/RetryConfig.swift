/// `retry`: which upstream requests are tried again, and how often.
public struct RetryConfig: Sendable, Equatable {
    /// `retry.max_attempts`: total tries, the first included (1 turns retries off). Queries only, plus
    /// mutations whose request provably never left. Default 3.
    public var maxAttempts = 3
    /// `retry.base_delay`: full jitter backoff; before retry n (n = 0, 1, ...) gqlgate sleeps a random
    /// time in `0..<min(max_delay, base_delay * 2^n)`. Default 100ms.
    public var baseDelay = Duration.milliseconds(100)
    /// `retry.max_delay`: the cap of the backoff. Default 2s; at least `base_delay`.
    public var maxDelay = Duration.seconds(2)
    /// `retry.on_status`: upstream HTTP statuses that are retried, besides connection errors and
    /// per-attempt timeouts. Default `[429, 502, 503, 504]`.
    public var onStatus = [429, 502, 503, 504]
    /// `retry.max_retry_after`: a `Retry-After` up to this long is waited for; a longer one means no
    /// retry. Default 5s.
    public var maxRetryAfter = Duration.seconds(5)
    /// `retry.budget`: retries in any 10 s stay under `max(3, budget × client requests in those 10 s)`.
    /// From 0 to 1. Default 0.2.
    public var budget = 0.2
    /// `retry.idempotent_mutations`: retry mutations like queries. Default false.
    public var idempotentMutations = false
    /// How long one operation may take upstream, every attempt and wait included.
    public var deadline = Duration.seconds(15)

    /// The defaults.
    public init() {}
}

extension RetryConfig {
    static let keys = ["max_attempts", "base_delay", "max_delay", "on_status", "max_retry_after", "budget", "idempotent_mutations", "deadline"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        maxAttempts = try map["max_attempts"]?.int(1...Int.max) ?? maxAttempts
        baseDelay = try map["base_delay"]?.duration() ?? baseDelay
        maxDelay = try map["max_delay"]?.duration() ?? maxDelay
        if let statuses = map["on_status"] {
            onStatus = []
            for status in try statuses.list(of: "HTTP statuses") { onStatus.append(try status.int(100...599)) }
        }
        maxRetryAfter = try map["max_retry_after"]?.duration() ?? maxRetryAfter
        budget = try map["budget"]?.double(0...1) ?? budget
        idempotentMutations = try map["idempotent_mutations"]?.bool() ?? idempotentMutations
        deadline = try map["deadline"]?.duration() ?? deadline
    }
}
