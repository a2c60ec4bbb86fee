@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop

/// Commands to a Redis Cluster from one loop: each goes to the master of
/// its key's slot, over this loop's connection to that node. The slot map is
/// learned with `CLUSTER SLOTS` (from the nodes known, then the seeds) and
/// learned again after a `MOVED` or a lost node; `MOVED` and `ASK` are
/// followed at once (`ASKING` first for `ASK`), `TRYAGAIN` (a slot being
/// migrated) after a short wait, at most `maximumHops` times per command.
/// Commands sent before the map is known wait for it; a command for a slot
/// the map gives no master fails at once as unavailable.
///
/// Loop-bound: used only on `loop`'s thread.
final class RedisClusterRouter: RedisRoute {
    /// Redirections followed for one command before it fails.
    static let maximumHops = 5
    /// The least time between two map refreshes.
    static let refreshInterval: Duration = .milliseconds(200)

    private let loop: EventLoop
    private let settings: RedisClient.Settings
    private let events: RedisAvailability
    private var slots = RedisClusterSlots()
    private var connections: [RedisServerAddress: RedisConnection] = [:]
    /// Commands waiting for the first map.
    private var waitingForMap: [([[UInt8]], (Result<RedisReply, RedisError>) -> Void)] = []
    private var refreshing = false
    private var lastRefresh: UInt64 = 0
    private var closed = false

    init(loop: EventLoop, settings: RedisClient.Settings, events: RedisAvailability) {
        self.loop = loop
        self.settings = settings
        self.events = events
    }

    func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        guard !closed else { return completion(.failure(.unavailable("closed"))) }
        route(arguments, to: nil, asking: false, hops: 0, completion: completion)
    }

    func start() {
        refresh()
    }

    func close() {
        closed = true
        for connection in connections.values { connection.close() }
        connections = [:]
        let waiting = waitingForMap
        waitingForMap = []
        for (_, completion) in waiting { completion(.failure(.unavailable("closed"))) }
    }

    private func route(_ arguments: [[UInt8]], to redirect: RedisServerAddress?, asking: Bool, hops: Int,
                       completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        let target: RedisServerAddress
        let key = redirect == nil ? RedisCommandKey.of(arguments) : nil
        if let redirect {
            target = redirect
        } else if let key, let node = slots.node(for: RedisClusterSlots.slot(of: key)) {
            target = node
        } else if key == nil, let node = slots.nodes.first {
            target = node
        } else if slots.isKnown, let key {
            // No master serves the slot (a cluster being made, slots deleted): the command
            // fails now, as Redis's own CLUSTERDOWN would, and the map is learned again.
            refresh()
            return completion(.failure(.unavailable("no master serves slot \(RedisClusterSlots.slot(of: key))")))
        } else {
            waitingForMap.append((arguments, completion))
            refresh()
            return
        }
        let connection = connection(to: target)
        if asking { connection.send([Array("ASKING".utf8)]) { _ in } }
        connection.send(arguments) { [weak self] result in
            guard let self, !self.closed else { return completion(result) }
            switch result {
            case .success(.error(let message)) where hops < Self.maximumHops:
                if let (slot, node) = Self.redirection(message, prefix: "MOVED ") {
                    self.slots.move(slot, to: node)
                    self.refresh()
                    self.route(arguments, to: node, asking: false, hops: hops + 1, completion: completion)
                } else if let (_, node) = Self.redirection(message, prefix: "ASK ") {
                    self.route(arguments, to: node, asking: true, hops: hops + 1, completion: completion)
                } else if message.hasPrefix("TRYAGAIN") {
                    _ = self.loop.schedule(after: .milliseconds(25)) { [weak self] in
                        guard let self, !self.closed else { return completion(result) }
                        self.route(arguments, to: redirect, asking: asking, hops: hops + 1, completion: completion)
                    }
                } else {
                    if message.hasPrefix("CLUSTERDOWN") { self.refresh() }
                    completion(result)
                }
            case .failure(.unavailable):
                self.refresh()
                completion(result)
            default:
                completion(result)
            }
        }
    }

    /// This loop's connection to `node`, made on first use.
    private func connection(to node: RedisServerAddress) -> RedisConnection {
        if let connection = connections[node] { return connection }
        let connection = RedisConnection(loop: loop, settings: settings, events: events) { _, completion in completion(.success(node)) }
        connections[node] = connection
        return connection
    }

    /// Learns the slot map again, unless that was done a moment ago or is under way.
    private func refresh() {
        let now = GatewayClock.system.monotonicNanoseconds()
        guard !refreshing, !closed, slots.isKnown == false || now &- lastRefresh >= UInt64(Self.refreshInterval.nanoseconds) else {
            return
        }
        refreshing = true
        lastRefresh = now
        var candidates = slots.nodes
        for seed in settings.url.servers where !candidates.contains(seed) { candidates.append(seed) }
        ask(candidates[...], lastFailure: "no node answered")
    }

    /// Asks `candidates` in turn for `CLUSTER SLOTS`.
    private func ask(_ candidates: ArraySlice<RedisServerAddress>, lastFailure: String) {
        guard let node = candidates.first else {
            refreshing = false
            let waiting = waitingForMap
            waitingForMap = []
            for (_, completion) in waiting { completion(.failure(.unavailable("no cluster slot map: \(lastFailure)"))) }
            if !slots.isKnown {
                // Nothing answered: try again after the backoff's first step rather than at the next command only.
                _ = loop.schedule(after: settings.reconnectDelay) { [weak self] in if self?.waitingForMap.isEmpty == false { self?.refresh() } }
            }
            return
        }
        connection(to: node).send(["CLUSTER", "SLOTS"].map { Array($0.utf8) }) { [weak self] result in
            guard let self, !self.closed else { return }
            guard case .success(let reply) = result, let map = RedisClusterSlots.parse(reply, askedOf: node) else {
                self.ask(candidates.dropFirst(), lastFailure: "\(node): \(result)")
                return
            }
            self.learned(map)
        }
    }

    private func learned(_ map: RedisClusterSlots) {
        refreshing = false
        slots = map
        let seeds = Set(settings.url.servers)
        for (node, connection) in connections where !map.nodes.contains(node) && !seeds.contains(node) {
            connection.close()
            connections[node] = nil
        }
        let waiting = waitingForMap
        waitingForMap = []
        for (arguments, completion) in waiting { route(arguments, to: nil, asking: false, hops: 0, completion: completion) }
    }

    /// The slot and node of a `MOVED` or `ASK` error (`MOVED 3999 127.0.0.1:6381`).
    private static func redirection(_ message: String, prefix: String) -> (Int, RedisServerAddress)? {
        guard message.hasPrefix(prefix) else { return nil }
        let parts = message.dropFirst(prefix.count).split(separator: " ")
        guard parts.count == 2, let slot = Int(parts[0]), (0..<RedisClusterSlots.count).contains(slot),
              let colon = parts[1].lastIndex(of: ":"), let port = Int(parts[1][parts[1].index(after: colon)...]) else { return nil }
        var host = parts[1][..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (slot, RedisServerAddress(host: String(host), port: port))
    }
}

@available(*, unavailable)
extension RedisClusterRouter: Sendable {}
