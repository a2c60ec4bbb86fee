@_spi(GQLGateInternals) import GQLGateCore
package import GQLGateEventLoop
@_spi(GQLGateInternals) package import GQLGatePipeline
package import Logging
#if canImport(Glibc)
import Glibc
#endif

/// An async Redis client on the gateway's loops, for every form of
/// `RedisURL`: one server, the master Sentinel names (followed through
/// failovers), or a Redis Cluster (commands routed by slot, `MOVED` and
/// `ASK` followed). Each loop has its own connections, used by the tasks
/// running on it (others pick a loop in turn); TLS when the URL says so.
/// Each command has a timeout; a connection that fails is made again after a
/// jittered backoff, and until then commands fail at once. Outages are logged
/// once (a warning) and so is the recovery; both are stated as facts.
///
/// ```swift
/// let redis = RedisClient(url: try RedisURL(parsing: "redis://127.0.0.1:6379/0"), group: loops, logger: logger)
/// let reply = try await redis.send("GET", "key")
/// ```
package final class RedisClient: Sendable {
    /// Where Redis is, TLS, timeouts and backoff.
    package struct Settings: Sendable {
        package var url: RedisURL
        /// What `rediss` connections trust and present; nil: the system's trust store, no client certificate.
        package var tls: RedisTLSCredentials?
        /// How long a command may wait for its reply; a ready connection that
        /// misses it is dropped and made again.
        package var commandTimeout: Duration
        /// How long connecting, the TLS handshake, `AUTH`, `SELECT` and the first `PING` may take.
        package var connectTimeout: Duration
        /// The ceiling of the first delay before connecting again; doubles per failure.
        package var reconnectDelay: Duration
        /// The largest ceiling of the delay before connecting again.
        package var maximumReconnectDelay: Duration
        /// The most array elements one reply may hold, at every level together; a reply
        /// that announces more fails (and drops the connection) before anything is allocated for it.
        package var maxReplyElements = 1 << 20
        /// The most bytes one reply may hold (its strings together, and what is buffered
        /// of it while it arrives); past it the reply fails and the connection is dropped.
        package var maxReplyBytes = 256 << 20
        /// What the stores do while Redis is unavailable, for the outage's log line.
        package var fallback = "cached answers are bypassed"

        package init(url: RedisURL, commandTimeout: Duration = .milliseconds(250),
                    connectTimeout: Duration = .seconds(1), reconnectDelay: Duration = .milliseconds(100),
                    maximumReconnectDelay: Duration = .seconds(2)) {
            self.url = url
            self.commandTimeout = commandTimeout
            self.connectTimeout = connectTimeout
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
        }
    }

    private let group: EventLoopGroup
    private let routes: [LoopBound<any RedisRoute>]
    private let availability: RedisAvailability
    /// With Sentinel: the subscription to master switches.
    private let sentinelWatch: LoopBound<RedisSentinelWatch>?
    private let settings: Settings
    /// Where a subscriber connects: the server, the master the sentinels name, or a cluster's seeds in turn.
    private let subscriberLocate: @Sendable (EventLoop, @escaping (Result<RedisServerAddress, RedisError>) -> Void) -> Void

    /// Also ignores `SIGPIPE` for the process: TLS writes with `send(2)` without
    /// `MSG_NOSIGNAL`, and a Redis that closed the connection must not end the gateway.
    /// - Parameter recorder: told when Redis becomes unavailable or available and of each reconnect.
    package init(settings: Settings, group: EventLoopGroup, logger: Logger, recorder: (any FactRecorder)? = nil) {
        signal(SIGPIPE, SIG_IGN)
        self.group = group
        let url = settings.url
        let availability = RedisAvailability(logger: logger, recorder: recorder,
                                             server: url.servers.map(\.description).joined(separator: ",") + "/\(url.database)",
                                             fallback: settings.fallback)
        self.availability = availability
        self.settings = settings
        switch url.topology {
        case .standalone:
            let server = url.servers[0]
            subscriberLocate = { _, found in found(.success(server)) }
            routes = group.loops.map { loop in
                LoopBound(RedisConnection(loop: loop, settings: settings, events: availability) { _, found in found(.success(server)) }, loop: loop)
            }
            sentinelWatch = nil
        case .sentinel(let master):
            let sentinels = RedisSentinels(master: master, settings: settings)
            subscriberLocate = { loop, found in sentinels.locateMaster(on: loop, completion: found) }
            let connections = group.loops.map { loop in
                RedisConnection(loop: loop, settings: settings, role: .init(requiresMaster: true), events: availability) { loop, found in
                    sentinels.locateMaster(on: loop, completion: found)
                }
            }
            routes = connections.map { LoopBound($0, loop: $0.loop) }
            let masters = connections.map { LoopBound($0, loop: $0.loop) }
            let loop = group.loops[0]
            let watch = LoopBound(RedisSentinelWatch(loop: loop, sentinels: sentinels, masters: masters), loop: loop)
            loop.execute { watch.value.start() }
            sentinelWatch = watch
        case .cluster:
            // Pub/sub reaches every node of a cluster: any seed will do.
            let seeds = url.servers
            let next = Lock(0)
            subscriberLocate = { _, found in
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                found(.success(seeds[index % seeds.count]))
            }
            routes = group.loops.map { LoopBound(RedisClusterRouter(loop: $0, settings: settings, events: availability), loop: $0) }
            sentinelWatch = nil
        }
        // Connected ahead of the first request, so that it can be served from Redis and `gqlgate_redis_up` tells at once.
        for route in routes { route.loop.execute { route.value.start() } }
    }

    /// A client with the default timeouts.
    package convenience init(url: RedisURL, group: EventLoopGroup, logger: Logger) {
        self.init(settings: Settings(url: url), group: group, logger: logger)
    }

    /// Each loop closes its connections: commands waiting fail, and no timer
    /// or socket watcher is left pointing at them.
    deinit {
        for route in routes {
            route.loop.execute { route.value.close() }
        }
        if let sentinelWatch { sentinelWatch.loop.execute { sentinelWatch.value.close() } }
    }

    /// Sends one command and returns its reply (an error reply included).
    /// Throws `RedisError.unavailable` without a connection and
    /// `RedisError.timedOut` when the reply is late.
    package func send(_ arguments: [[UInt8]]) async throws(RedisError) -> RedisReply {
        let route = routes[(EventLoop.current?.index).flatMap { $0 < routes.count ? $0 : nil } ?? group.next().index]
        let result: Result<RedisReply, RedisError> = await withUnsafeContinuation { continuation in
            if route.loop.inLoop {
                route.value.send(arguments) { continuation.resume(returning: $0) }
            } else {
                route.loop.execute { route.value.send(arguments) { continuation.resume(returning: $0) } }
            }
        }
        return try result.get()
    }

    /// Subscribes to `channel` on a connection of its own (on the first loop),
    /// made again like any other after a failure. `onMessage` gets each
    /// message's payload; `onResubscribed` is called when the subscription is
    /// made again after it was lost (messages may have been missed meanwhile).
    /// Both run on that loop. The subscription lasts until the value returned goes.
    package func subscribe(_ channel: String, onMessage: @escaping @Sendable ([UInt8]) -> Void,
                           onResubscribed: @escaping @Sendable () -> Void) -> RedisSubscription {
        let loop = group.loops[0]
        let bound = LoopBound(RedisConnection(loop: loop, settings: settings, events: availability, locate: subscriberLocate), loop: loop)
        let subscription = RedisSubscription(bound)
        loop.execute {
            let connection = bound.value
            var subscribedBefore = false
            connection.onPush = { message in
                guard let fields = message.elements, fields.count == 3, let payload = fields[2].bytes else { return }
                onMessage(payload)
            }
            connection.onReady = { [unowned connection] in
                connection.send(["SUBSCRIBE", channel].map { Array($0.utf8) }) { result in
                    guard case .success(.array) = result else { return }
                    if subscribedBefore { onResubscribed() }
                    subscribedBefore = true
                }
            }
            connection.start()
        }
        return subscription
    }

    /// `send` with text arguments.
    package func send(_ arguments: String...) async throws(RedisError) -> RedisReply {
        try await send(arguments.map { Array($0.utf8) })
    }

    /// Whether the last news from the connections was a failure (none ready since).
    var isUnavailable: Bool { availability.isDown }
}
