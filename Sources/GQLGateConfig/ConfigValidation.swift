extension GatewayConfig {
    /// Checks the rules that involve several keys; run it after ``applying(_:)``, since flags can
    /// change the answer.
    ///
    /// - Listening beyond loopback (anything but `127.0.0.0/8`, `::1` and `localhost`) needs
    ///   `clients.api_keys_file`, client certificates (`server.tls.client_ca_file`) or
    ///   `clients.allow_anonymous: true`.
    /// - `retry.base_delay` is at most `retry.max_delay`.
    /// - `auth.oauth2` has `token_url`, `client_id` and `client_secret`, and is not combined with
    ///   `auth.bearer_token_file` (both would set `Authorization`).
    /// - `cache.backend: redis` or `tiered`, `apq.store: redis` and a rate limit with `store: redis`
    ///   have a usable `redis.url` (or `cache.redis_url`), and a client certificate comes with its key.
    /// - `persisted_documents.safelist` and `require_id` need `persisted_documents.manifests`.
    /// - `schema.source: file` needs `schema.file`.
    /// - `demand_control.mode` other than `off` and `metrics.field_usage` need a schema
    ///   (`schema.source`); `clients.rate_limit.by_cost` needs `demand_control.mode`.
    /// - `server.tls.cert_file` and `key_file` go together; `client_ca_file` needs them.
    /// - `cors.allow_origins: ["*"]` stands alone and not with `cors.allow_credentials`.
    /// - `admin.listen` beyond loopback needs `admin.token_file`, and is never `server.listen`'s
    ///   port on the same host.
    /// - Throws: The first ``ConfigError`` found.
    public func validate() throws(ConfigError) {
        if !server.listen.isLoopback, clients.apiKeysFile == nil, !server.tls.requiresClientCertificates, !clients.allowAnonymous {
            throw ConfigError(
                keyPath: "server.listen",
                message: "\(server.listen) is beyond loopback and clients are not authenticated: "
                    + "set clients.api_keys_file or server.tls.client_ca_file, or set clients.allow_anonymous: true to let anyone in"
            )
        }
        if retry.baseDelay > retry.maxDelay {
            throw ConfigError(
                keyPath: "retry.base_delay",
                message: "\(ConfigDuration.format(retry.baseDelay)) is longer than retry.max_delay "
                    + "(\(ConfigDuration.format(retry.maxDelay))): expected at most retry.max_delay"
            )
        }
        if let oauth2 = auth.oauth2 {
            let required = [("token_url", oauth2.tokenURL), ("client_id", oauth2.clientID), ("client_secret", oauth2.clientSecret)]
            for (key, value) in required where value.isEmpty {
                throw ConfigError(keyPath: "auth.oauth2.\(key)", message: "required when auth.oauth2 is set")
            }
            if auth.bearerTokenFile != nil {
                throw ConfigError(
                    keyPath: "auth.bearer_token_file",
                    message: "cannot be combined with auth.oauth2 (both set the Authorization header); keep one"
                )
            }
        }
        let sharesRateLimit = clients.rateLimit.isEnabled && clients.rateLimit.store == .redis
        if cache.backend != .memory || apq.store == .redis || sharesRateLimit {
            let (url, keyPath) = effectiveRedisURL
            let schemes = ["redis", "rediss", "redis-sentinel", "rediss-sentinel", "redis-cluster", "rediss-cluster"]
            guard let separator = url.range(of: "://"), schemes.contains(url[..<separator.lowerBound].lowercased()),
                  Self.namesHosts(url[separator.upperBound...]) else {
                let placed = ConfigError.invalid(url, expected: "a redis://, rediss://, redis-sentinel:// or redis-cluster:// URL",
                                                 keyPath: keyPath)
                let user = cache.backend != .memory ? "cache.backend is \(cache.backend.rawValue)"
                    : apq.store == .redis ? "apq.store is redis" : "clients.rate_limit.store is redis"
                throw ConfigError(keyPath: placed.keyPath, message: placed.message + " (\(user))")
            }
            if let url = redis.url, let old = cache.redisURL, url != old {
                throw ConfigError(keyPath: "cache.redis_url", message: "names another Redis than redis.url; keep redis.url")
            }
            if let old = cache.redisKeyPrefix, redis.keyPrefix != RedisConfig().keyPrefix, old != redis.keyPrefix {
                throw ConfigError(keyPath: "cache.redis_key_prefix", message: "differs from redis.key_prefix; keep redis.key_prefix")
            }
            if (redis.tls.certFile == nil) != (redis.tls.keyFile == nil) {
                throw ConfigError(keyPath: redis.tls.certFile == nil ? "redis.tls.cert_file" : "redis.tls.key_file",
                                  message: "redis.tls.cert_file and redis.tls.key_file go together")
            }
        }
        for (key, isOn) in [("safelist", persistedDocuments.safelist), ("require_id", persistedDocuments.requireID)]
        where isOn && persistedDocuments.manifests.isEmpty {
            throw ConfigError(
                keyPath: "persisted_documents.\(key)",
                message: "needs persisted_documents.manifests (with none, no operation could run)"
            )
        }
        if schema.source == .file, schema.file == nil {
            throw ConfigError(keyPath: "schema.file", message: "required when schema.source is file")
        }
        if server.tls.certFile.isEmpty != server.tls.keyFile.isEmpty {
            throw ConfigError(
                keyPath: server.tls.certFile.isEmpty ? "server.tls.cert_file" : "server.tls.key_file",
                message: "required with server.tls.\(server.tls.certFile.isEmpty ? "key_file" : "cert_file"): set both or neither")
        }
        if !server.tls.clientCAFile.isEmpty, !server.tls.isEnabled {
            throw ConfigError(
                keyPath: "server.tls.client_ca_file",
                message: "needs server.tls.cert_file and key_file (client certificates come with TLS)")
        }
        if cors.allowCredentials, cors.allowOrigins.contains("*") {
            throw ConfigError(
                keyPath: "cors.allow_credentials",
                message: "true with \"*\" in cors.allow_origins would let every site read answers with its visitors' cookies: "
                    + "list the origins instead"
            )
        }
        if cors.allowOrigins.contains("*"), cors.allowOrigins.count > 1 {
            throw ConfigError(keyPath: "cors.allow_origins", message: "\"*\" allows every origin: list it alone")
        }
        try validateDemandControl()
        try validateAdmin()
    }

    /// Cost estimates and field usage read the schema; cost tokens need the estimate.
    private func validateDemandControl() throws(ConfigError) {
        if demandControl.isEnabled, schema.effectiveSource == nil {
            throw ConfigError(keyPath: "demand_control.mode",
                              message: "\(demandControl.mode.rawValue) needs a schema: set schema.source (costs are read from the schema)")
        }
        if metrics.fieldUsage, schema.effectiveSource == nil {
            throw ConfigError(keyPath: "metrics.field_usage",
                              message: "needs a schema: set schema.source (fields are counted by their schema coordinates)")
        }
        if clients.rateLimit.byCost, !demandControl.isEnabled {
            throw ConfigError(keyPath: "clients.rate_limit.by_cost",
                              message: "needs demand_control.mode measure or enforce (a request takes its estimated cost)")
        }
    }

    /// The `admin` rules: a token beyond loopback, and a port of its own.
    private func validateAdmin() throws(ConfigError) {
        guard let listen = admin.listen else { return }
        if !listen.isLoopback, admin.tokenFile == nil {
            throw ConfigError(
                keyPath: "admin.listen",
                message: "\(listen) is beyond loopback and admin.token_file is not set: "
                    + "set admin.token_file (the admin API purges the cache), or listen on loopback"
            )
        }
        if listen.port != 0, listen.port == server.listen.port, Self.mayBeOneHost(listen, server.listen) {
            throw ConfigError(
                keyPath: "admin.listen",
                message: "\(listen) is server.listen's port (\(server.listen)) on the same host: "
                    + "the admin API never shares the client port; choose another port"
            )
        }
    }

    /// Whether listening on both addresses would take the same socket: the
    /// same host, a wildcard (`0.0.0.0`, `::`) on either side, or `localhost`
    /// beside a loopback address.
    private static func mayBeOneHost(_ a: ListenAddress, _ b: ListenAddress) -> Bool {
        let hosts = (a.host.lowercased(), b.host.lowercased())
        let wildcards = ["0.0.0.0", "::", "0:0:0:0:0:0:0:0"]
        if hosts.0 == hosts.1 || wildcards.contains(hosts.0) || wildcards.contains(hosts.1) { return true }
        return (hosts.0 == "localhost" || hosts.1 == "localhost") && a.isLoopback && b.isLoopback
    }

    /// Whether the part of a Redis URL after `://` names at least one host, each non-empty
    /// (`[user:password@]h1[:port],h2[:port][/…]`).
    private static func namesHosts(_ rest: Substring) -> Bool {
        var hosts = rest
        if let slash = hosts.firstIndex(of: "/") { hosts = hosts[..<slash] }
        if let at = hosts.lastIndex(of: "@") { hosts = hosts[hosts.index(after: at)...] }
        return !hosts.isEmpty && hosts.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && !$0.hasPrefix(":") }
    }
}
