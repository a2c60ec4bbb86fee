import GQLGateEventLoop

/// The sentinels of a `redis-sentinel://` URL, asked in turn which server
/// is the master they call `master` (`SENTINEL get-master-addr-by-name`):
/// each time a connection to the master is made, so that after a failover
/// (the old master closes its clients, or answers `READONLY`) the next
/// connection goes to the new one. Sentinels are sent the URL's `AUTH`
/// (see `RedisConnection.Role.Login.sentinel`).
struct RedisSentinels: Sendable {
    let master: String
    let settings: RedisClient.Settings
    /// Quiet: a sentinel that does not answer is not Redis being down.
    let events = RedisAvailability(logger: nil, recorder: nil, server: "sentinel")

    init(master: String, settings: RedisClient.Settings) {
        self.master = master
        self.settings = settings
    }

    /// Asks the sentinels in turn; calls back on `loop`.
    func locateMaster(on loop: EventLoop, completion: @escaping (Result<RedisServerAddress, RedisError>) -> Void) {
        ask(settings.url.servers[...], on: loop, lastFailure: "no sentinel answered", completion: completion)
    }

    private func ask(_ sentinels: ArraySlice<RedisServerAddress>, on loop: EventLoop, lastFailure: String,
                     completion: @escaping (Result<RedisServerAddress, RedisError>) -> Void) {
        guard let sentinel = sentinels.first else {
            return completion(.failure(.unavailable("no sentinel named the master \(master): \(lastFailure)")))
        }
        let connection = RedisConnection(loop: loop, settings: settings, role: .init(login: .sentinel, reconnects: false), events: events) { _, found in
            found(.success(sentinel))
        }
        connection.send(["SENTINEL", "get-master-addr-by-name", master].map { Array($0.utf8) }) { result in
            connection.close()
            if case .success(.array(let fields)) = result, fields.count == 2, let host = fields[0].bytes, let portText = fields[1].bytes,
               let port = Int(String(decoding: portText, as: UTF8.self)) {
                return completion(.success(RedisServerAddress(host: String(decoding: host, as: UTF8.self), port: port)))
            }
            ask(sentinels.dropFirst(), on: loop, lastFailure: "\(sentinel): \(result)", completion: completion)
        }
    }
}
