/// Where Redis is and how to log in, from one URL:
///
/// - `redis://[user[:password]@]host[:port][/db]`: one server;
/// - `redis-sentinel://[user[:password]@]h1[:port],h2[:port]/MASTER[/db]`:
///   the master the sentinels name `MASTER` (sentinels' port 26379 by default;
///   the user and password are the master's, and are sent to the sentinels too);
/// - `redis-cluster://[user[:password]@]h1[:port],h2[:port]`: a Redis
///   Cluster found from these seeds (no database: a cluster has only 0).
///
/// `rediss`, `rediss-sentinel` and `rediss-cluster` are the same over TLS.
/// The user and password may be percent-encoded; servers' port defaults to 6379.
package struct RedisURL: Sendable, Equatable {
    /// How the servers in the URL are used.
    package enum Topology: Sendable, Equatable {
        /// One server.
        case standalone
        /// Sentinels that name the master called `master`.
        case sentinel(master: String)
        /// Seeds of a Redis Cluster.
        case cluster
    }

    package var topology: Topology
    /// The server (standalone), the sentinels or the cluster's seeds, in the URL's order.
    package var servers: [RedisServerAddress]
    /// Whether connections use TLS (`rediss…` schemes).
    package var tls: Bool
    /// The ACL user for `AUTH`, when the URL names one.
    package var user: String?
    /// The password for `AUTH`, when the URL has one.
    package var password: String?
    /// The database `SELECT`ed after connecting.
    package var database: Int

    /// A standalone server.
    package init(host: String, port: Int = 6379, user: String? = nil, password: String? = nil, database: Int = 0, tls: Bool = false) {
        self.init(topology: .standalone, servers: [RedisServerAddress(host: host, port: port)], tls: tls, user: user, password: password,
                  database: database)
    }

    package init(topology: Topology, servers: [RedisServerAddress], tls: Bool = false, user: String? = nil, password: String? = nil,
                database: Int = 0) {
        self.topology = topology
        self.servers = servers
        self.tls = tls
        self.user = user
        self.password = password
        self.database = database
    }

    /// The first server's host (the standalone server's).
    package var host: String {
        get { servers[0].host }
        set { servers[0].host = newValue }
    }

    /// The first server's port.
    package var port: Int {
        get { servers[0].port }
        set { servers[0].port = newValue }
    }

    /// Parses `text`; throws `RedisError.invalidURL` saying what is wrong (without quoting
    /// `text`, which may hold a password).
    package init(parsing text: String) throws(RedisError) {
        guard let separator = text.range(of: "://") else { throw .invalidURL("expected redis://, rediss://, redis-sentinel:// or redis-cluster://") }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard ["redis", "rediss", "redis-sentinel", "rediss-sentinel", "redis-cluster", "rediss-cluster"].contains(scheme) else {
            throw .invalidURL("expected redis://, rediss://, redis-sentinel:// or redis-cluster://")
        }
        tls = scheme.hasPrefix("rediss")
        var rest = Substring(text[separator.upperBound...])
        var path: [Substring] = []
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false)
            rest = rest[..<slash]
            if path.last?.isEmpty == true { path.removeLast() }
        }
        user = nil
        password = nil
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.decoded(userInfo[..<colon])
                password = try Self.decoded(userInfo[userInfo.index(after: colon)...])
            } else {
                user = try Self.decoded(userInfo)
            }
            if user?.isEmpty == true { user = nil }
        }
        let defaultPort: Int
        if scheme.hasSuffix("-sentinel") {
            guard let master = path.first, !master.isEmpty else { throw .invalidURL("a redis-sentinel URL names its master: /MASTER") }
            topology = .sentinel(master: String(master))
            path.removeFirst()
            defaultPort = 26379
        } else if scheme.hasSuffix("-cluster") {
            topology = .cluster
            defaultPort = 6379
            guard path.isEmpty else { throw .invalidURL("a cluster has no database to select") }
        } else {
            topology = .standalone
            defaultPort = 6379
        }
        guard path.count <= 1 else { throw .invalidURL("unexpected text after the database") }
        database = 0
        if let number = path.first {
            guard let value = Int(number), value >= 0 else { throw .invalidURL("the database must be a number") }
            database = value
        }
        let hosts = rest.split(separator: ",", omittingEmptySubsequences: false)
        guard topology != .standalone || hosts.count == 1 else { throw .invalidURL("one host; several are for redis-sentinel or redis-cluster") }
        servers = try hosts.map { host throws(RedisError) in try Self.server(host, defaultPort: defaultPort) }
    }

    private static func server(_ text: Substring, defaultPort: Int) throws(RedisError) -> RedisServerAddress {
        var host = text
        var port = defaultPort
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidURL("unclosed [ in the host") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL("unexpected text after the host") }
                port = try Self.port(after.dropFirst())
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = try Self.port(text[text.index(after: colon)...])
        }
        guard !host.isEmpty else { throw .invalidURL("no host") }
        return RedisServerAddress(host: String(host), port: port)
    }

    private static func port(_ text: Substring) throws(RedisError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else { throw .invalidURL("the port must be 1-65535") }
        return port
    }

    private static func decoded(_ text: Substring) throws(RedisError) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .invalidURL("bad percent-encoding")
            }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One Redis server: a host name or address (IPv6 without brackets) and a port.
package struct RedisServerAddress: Sendable, Hashable, CustomStringConvertible {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
