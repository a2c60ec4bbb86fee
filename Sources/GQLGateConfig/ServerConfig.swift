/// `server`: where and how gqlgate accepts client connections.
public struct ServerConfig: Sendable, Equatable {
    /// `server.listen`: the address to listen on. Default `127.0.0.1:8080`. Listening beyond loopback
    /// needs `clients.api_keys_file` or `clients.allow_anonymous: true`.
    public var listen = ListenAddress(host: "127.0.0.1", port: 8080)
    /// `server.path`: the GraphQL endpoint. Default `/graphql`; starts with `/`, and is none of
    /// `/healthz`, `/readyz`, `/metrics`.
    public var path = "/graphql"
    /// `server.max_body_bytes`: the largest request body accepted (larger: 413). Default 1 MiB.
    public var maxBodyBytes = 1 << 20
    /// `server.threads`: HTTP server (libmicrohttpd) threads. `auto` means 1 (one thread for all
    /// connections); N > 1 selects a pool of N threads. Default `auto`.
    public var threads = ThreadCount.auto
    /// `server.loops`: gateway event-loop threads. `auto` means the number of cores minus one, at
    /// least 1. Default `auto`.
    public var loops = ThreadCount.auto
    /// `server.drain_timeout`: how long in-flight requests may finish after SIGTERM. Default 10s.
    public var drainTimeout = Duration.seconds(10)
    /// `server.max_connections`: client connections open at once (WebSockets and streams
    /// included); past it new connections are refused. Default 16384.
    public var maxConnections = 16_384
    /// `server.max_header_bytes`: the memory libmicrohttpd keeps for each client
    /// connection, which bounds a request's line and header fields (larger ones
    /// get 431) and is held for as long as the connection is open, SSE clients
    /// and WebSocket clients over TLS included (a plain WebSocket lets it go
    /// once upgraded). Default 16 KiB.
    public var maxHeaderBytes = 16 << 10
    /// `server.idle_timeout`: a client connection with no request in progress is closed after
    /// this long. Whole seconds, at least 1s. Default 120s.
    public var idleTimeout = Duration.seconds(120)
    /// `server.header_timeout`: a request's header block must be in within this long of its first
    /// byte (on a new TLS connection, the handshake's first byte), else 408 and the connection
    /// closes. Whole seconds, at least 1s. Default 10s.
    public var headerTimeout = Duration.seconds(10)
    /// `server.body_timeout`: a request's body must be in within this long of its header block's
    /// end, else 408 and the connection closes. Whole seconds, at least 1s. Default 60s.
    public var bodyTimeout = Duration.seconds(60)
    /// `server.write_timeout`: an answer that makes no progress (the client reads nothing) for
    /// this long is dropped with its connection, which frees it. Whole seconds, at least 1s.
    /// Default 30s.
    public var writeTimeout = Duration.seconds(30)
    /// `server.tls`: HTTPS and WSS on the listen address. Default off.
    public var tls = TLSConfig()

    /// The defaults.
    public init() {}

    /// The number of HTTP server threads to start: `threads`, `auto` meaning 1.
    package var httpThreadCount: Int {
        threads.resolved(auto: 1)
    }

    /// The number of event-loop threads to start: `loops`, `auto` meaning `cores - 1`, at least 1.
    /// - Parameter cores: The number of cores of this machine.
    package func eventLoopCount(cores: Int) -> Int {
        loops.resolved(auto: max(1, cores - 1))
    }
}

extension ServerConfig {
    static let keys = [
        "listen", "path", "max_body_bytes", "threads", "loops", "drain_timeout", "max_connections", "max_header_bytes",
        "idle_timeout", "header_timeout", "body_timeout", "write_timeout", "tls",
    ]

    /// The paths that gqlgate serves itself, which `server.path` cannot take.
    static let reservedPaths = ["/healthz", "/readyz", "/metrics"]

    init(yaml: YAMLValue) throws(ConfigError) {
        let map = try yaml.mapping(allowed: Self.keys)
        self.init()
        listen = try map["listen"]?.parsed(expected: "HOST:PORT", ListenAddress.init(parsing:)).value ?? listen
        if let value = map["path"] {
            path = try value.string()
            guard path.hasPrefix("/"), !path.contains(where: { $0 == "?" || $0 == "#" || $0.isWhitespace }),
                  !Self.reservedPaths.contains(path)
            else {
                let reserved = Self.reservedPaths.joined(separator: ", ")
                throw value.invalid("a path starting with / (no query, no spaces), other than \(reserved)", value: path)
            }
        }
        maxBodyBytes = try map["max_body_bytes"]?.size(minimum: 1) ?? maxBodyBytes
        threads = try map["threads"]?.threadCount() ?? threads
        loops = try map["loops"]?.threadCount() ?? loops
        drainTimeout = try map["drain_timeout"]?.duration() ?? drainTimeout
        maxConnections = try map["max_connections"]?.int(1...1_000_000) ?? maxConnections
        if let value = map["max_header_bytes"] {
            maxHeaderBytes = try value.size(minimum: 1)
            guard (4 << 10...1 << 20).contains(maxHeaderBytes) else {
                throw value.invalid("a size from 4KiB to 1MiB", value: String(maxHeaderBytes))
            }
        }
        idleTimeout = try map["idle_timeout"].map(Self.connectionTimeout) ?? idleTimeout
        headerTimeout = try map["header_timeout"].map(Self.connectionTimeout) ?? headerTimeout
        bodyTimeout = try map["body_timeout"].map(Self.connectionTimeout) ?? bodyTimeout
        writeTimeout = try map["write_timeout"].map(Self.connectionTimeout) ?? writeTimeout
        tls = try map["tls"].map(TLSConfig.init(yaml:)) ?? tls
    }

    /// A connection timeout: libmicrohttpd counts them in whole seconds (and the server's sweep of
    /// deadlines runs once a second).
    private static func connectionTimeout(_ value: YAMLValue) throws(ConfigError) -> Duration {
        let duration = try value.duration(positive: true)
        guard duration.components.attoseconds == 0 else {
            throw value.invalid("whole seconds, such as 30s", value: ConfigDuration.format(duration))
        }
        return duration
    }
}
