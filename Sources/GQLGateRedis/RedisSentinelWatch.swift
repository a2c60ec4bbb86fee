import GQLGateEventLoop

/// Listens to the sentinels for `+switch-master` of the client's master,
/// and then has every loop's master connection made again at once (to the
/// master the sentinels name now), rather than when the old master closes
/// it or answers `READONLY`. One subscriber connection, to each sentinel in
/// turn while it fails; once it subscribes again after losing a sentinel
/// (a switch may have been missed), the masters are made again too.
///
/// Loop-bound: used only on `loop`'s thread.
final class RedisSentinelWatch {
    private let subscriber: RedisConnection
    private let master: String
    private let masters: [LoopBound<RedisConnection>]
    private var subscribedBefore = false

    init(loop: EventLoop, sentinels: RedisSentinels, masters: [LoopBound<RedisConnection>]) {
        self.master = sentinels.master
        self.masters = masters
        var next = 0
        let servers = sentinels.settings.url.servers
        subscriber = RedisConnection(loop: loop, settings: sentinels.settings, role: .init(login: .sentinel), events: sentinels.events) { _, found in
            found(.success(servers[next % servers.count]))
            next += 1
        }
        subscriber.onReady = { [unowned self] in self.subscribe() }
        subscriber.onPush = { [unowned self] message in self.received(message) }
    }

    /// Connects and subscribes.
    func start() {
        subscriber.send([Array("PING".utf8)]) { _ in }
    }

    func close() {
        subscriber.close()
    }

    private func subscribe() {
        subscriber.send(["SUBSCRIBE", "+switch-master"].map { Array($0.utf8) }) { [weak self] result in
            guard let self, case .success(.array) = result else { return }
            if self.subscribedBefore { self.reconnectMasters(reason: "the sentinel connection was lost; the master may have changed") }
            self.subscribedBefore = true
        }
    }

    /// `message`, `+switch-master`, `<master> <old ip> <old port> <new ip> <new port>`.
    private func received(_ message: RedisReply) {
        guard let fields = message.elements, fields.count == 3, let payload = fields[2].bytes else { return }
        let words = String(decoding: payload, as: UTF8.self).split(separator: " ")
        guard words.count == 5, words[0] == master else { return }
        reconnectMasters(reason: "sentinels switched the master to \(words[3]):\(words[4])")
    }

    private func reconnectMasters(reason: String) {
        for master in masters {
            master.loop.execute { master.value.reconnect(reason: reason) }
        }
    }
}

@available(*, unavailable)
extension RedisSentinelWatch: Sendable {}
