extension GatewayConfig {
    /// The effective configuration as YAML, with the keys of the config file; what
    /// `gqlgate check-config` prints. Loading the text again gives an equal configuration (with
    /// secrets redacted, equal but for the secrets).
    /// - Parameter redactingSecrets: Show the values of the keys ``ConfigSecret`` names (`auth.headers`
    ///   values, `auth.oauth2.client_secret`, `auth.ws_init_payload` values, the password in
    ///   `cache.redis_url`) as `"<redacted>"`. Default true.
    public func renderYAML(redactingSecrets: Bool = true) -> String {
        var output = ""
        RenderedNode.write(renderedSections(redactingSecrets: redactingSecrets), indent: 0, into: &output)
        return output
    }

    /// Every section as a tree of rendered values, in file order.
    func renderedSections(redactingSecrets: Bool) -> [RenderedNode.Entry] {
        func secret(_ text: String, _ kind: ConfigSecret = .value) -> RenderedNode {
            .string(redactingSecrets ? kind.redacting(text) : text)
        }
        func redactingURL(_ url: String) -> String {
            redactingSecrets ? ConfigSecret.urlPassword.redacting(url) : url
        }
        return [
            .init("server", [
                .init("listen", .string(server.listen.description)),
                .init("path", .string(server.path)),
                .init("max_body_bytes", .size(server.maxBodyBytes)),
                .init("threads", .plain(server.threads.description)),
                .init("loops", .plain(server.loops.description)),
                .init("drain_timeout", .duration(server.drainTimeout)),
                .init("max_connections", .plain(String(server.maxConnections))),
                .init("max_header_bytes", .size(server.maxHeaderBytes)),
                .init("idle_timeout", .duration(server.idleTimeout)),
                .init("header_timeout", .duration(server.headerTimeout)),
                .init("body_timeout", .duration(server.bodyTimeout)),
                .init("write_timeout", .duration(server.writeTimeout)),
                .init("tls", [
                    .init("cert_file", .string(server.tls.certFile)),
                    .init("key_file", .string(server.tls.keyFile)),
                    .init("client_ca_file", .string(server.tls.clientCAFile)),
                ]),
            ]),
            .init("upstream", [
                .init("url", .optional(upstream.url.map { redactingURL($0) })),
                .init("ws_url", .optional(upstream.wsURL.map { redactingURL($0) })),
                .init("ws_protocol", .plain(upstream.wsProtocol.rawValue)),
                .init("timeout", .duration(upstream.timeout)),
                .init("connect_timeout", .duration(upstream.connectTimeout)),
                .init("max_concurrency", .plain(String(upstream.maxConcurrency))),
                .init("queue_timeout", .duration(upstream.queueTimeout)),
                .init("circuit_breaker", [
                    .init("enabled", .plain(String(upstream.circuitBreaker.enabled))),
                    .init("error_ratio", .plain(upstream.circuitBreaker.errorRatio.configText)),
                    .init("min_requests", .plain(String(upstream.circuitBreaker.minRequests))),
                    .init("window", .duration(upstream.circuitBreaker.window)),
                    .init("open_for", .duration(upstream.circuitBreaker.openFor)),
                ]),
                .init("compression", .plain(upstream.compression.rawValue)),
                .init("max_response_bytes", .size(upstream.maxResponseBytes)),
                .init("max_response_bytes_in_flight", .size(upstream.maxResponseBytesInFlight)),
            ]),
            .init("auth", [
                .init("headers", .mapping(auth.headers.map { .init($0.name, secret($0.value)) })),
                .init("bearer_token_file", .optional(auth.bearerTokenFile)),
                .init("oauth2", auth.oauth2.map { oauth2 in
                    .mapping([
                        .init("token_url", secret(oauth2.tokenURL, .urlPassword)),
                        .init("client_id", .string(oauth2.clientID)),
                        .init("client_secret", secret(oauth2.clientSecret)),
                        .init("scope", .optional(oauth2.scope)),
                        .init("client_auth", .plain(oauth2.clientAuth.rawValue)),
                    ])
                } ?? .plain("null")),
                .init("refresh_on_401", .plain(String(auth.refreshOn401))),
                .init("ws_init_payload", .payload(auth.wsInitPayload, redactingValues: redactingSecrets)),
            ]),
            .init("headers", [
                .init("forward", .strings(headers.forward)),
                .init("forward_client_authorization", .plain(String(headers.forwardClientAuthorization))),
                .init("unkeyed", .strings(headers.unkeyed)),
            ]),
            .init("clients", [
                .init("api_keys_file", .optional(clients.apiKeysFile)),
                .init("allow_anonymous", .plain(String(clients.allowAnonymous))),
                .init("rate_limit", [
                    .init("requests_per_second", .plain(clients.rateLimit.requestsPerSecond.configText)),
                    .init("burst", .plain(String(clients.rateLimit.burst))),
                    .init("by", .plain(clients.rateLimit.by.description)),
                    .init("store", .plain(clients.rateLimit.store.rawValue)),
                    .init("by_cost", .plain(String(clients.rateLimit.byCost))),
                ]),
            ]),
            .init("retry", [
                .init("max_attempts", .plain(String(retry.maxAttempts))),
                .init("base_delay", .duration(retry.baseDelay)),
                .init("max_delay", .duration(retry.maxDelay)),
                .init("on_status", .plain("[" + retry.onStatus.map(String.init).joined(separator: ", ") + "]")),
                .init("max_retry_after", .duration(retry.maxRetryAfter)),
                .init("budget", .plain(retry.budget.configText)),
                .init("idempotent_mutations", .plain(String(retry.idempotentMutations))),
                .init("deadline", .duration(retry.deadline)),
            ]),
            .init("cache", [
                .init("enabled", .plain(String(cache.enabled))),
                .init("backend", .plain(cache.backend.rawValue)),
                .init("redis_url", .optional(cache.redisURL.map { redactingURL($0) })),
                .init("redis_key_prefix", .optional(cache.redisKeyPrefix)),
                .init("max_bytes", .size(cache.maxBytes)),
                .init("default_ttl", .duration(cache.defaultTTL)),
                .init("types", .mapping(cache.types.map { .init($0.typeName, .duration($0.ttl)) })),
                .init("vary_headers", .strings(cache.varyHeaders)),
                .init("stale_while_revalidate", .duration(cache.staleWhileRevalidate)),
                .init("stale_if_error", .duration(cache.staleIfError)),
                .init("invalidate_on_mutation", .plain(String(cache.invalidateOnMutation))),
            ]),
            .init("redis", [
                .init("url", .optional(redis.url.map { redactingURL($0) })),
                .init("key_prefix", .string(redis.keyPrefix)),
                .init("timeout", .duration(redis.timeout)),
                .init("tls", [
                    .init("ca_file", .optional(redis.tls.caFile)),
                    .init("cert_file", .optional(redis.tls.certFile)),
                    .init("key_file", .optional(redis.tls.keyFile)),
                    .init("server_name", .optional(redis.tls.serverName)),
                ]),
            ]),
            .init("dedupe", [.init("enabled", .plain(String(dedupe.enabled)))]),
            .init("apq", [
                .init("enabled", .plain(String(apq.enabled))),
                .init("store", .plain(apq.store.rawValue)),
                .init("upstream", .plain(String(apq.upstream))),
            ]),
            .init("persisted_documents", [
                .init("manifests", .strings(persistedDocuments.manifests)),
                .init("safelist", .plain(String(persistedDocuments.safelist))),
                .init("require_id", .plain(String(persistedDocuments.requireID))),
                .init("log_unknown", .plain(String(persistedDocuments.logUnknown))),
            ]),
            .init("limits", [
                .init("max_depth", .plain(String(limits.maxDepth))),
                .init("max_aliases", .plain(String(limits.maxAliases))),
                .init("max_document_bytes", .size(limits.maxDocumentBytes)),
                .init("introspection", .plain(String(limits.introspection))),
            ]),
            .init("schema", [
                .init("source", .plain(schema.source.rawValue)),
                .init("file", .optional(schema.file)),
                .init("refresh", .duration(schema.refresh)),
                .init("validate", .plain(String(schema.validate))),
            ]),
            .init("demand_control", [
                .init("mode", .plain(demandControl.mode.rawValue)),
                .init("max_cost", .plain(demandControl.maxCost.configText)),
                .init("list_size", .plain(String(demandControl.listSize))),
                .init("weights", .mapping(demandControl.weights.map { .init($0.coordinate, .plain($0.cost.configText)) })),
                .init("expose", .plain(String(demandControl.expose))),
            ]),
            .init("subscriptions", [
                .init("dedupe", .plain(String(subscriptions.dedupe))),
                .init("keepalive", .duration(subscriptions.keepalive)),
                .init("reconnect", .plain(String(subscriptions.reconnect))),
                .init("max_per_connection", .plain(String(subscriptions.maxPerConnection))),
                .init("init_timeout", .duration(subscriptions.initTimeout)),
            ]),
            .init("logging", [
                .init("level", .plain(logging.level.rawValue)),
                .init("format", .plain(logging.format.rawValue)),
            ]),
            .init("metrics", [
                .init("enabled", .plain(String(metrics.enabled))),
                .init("field_usage", .plain(String(metrics.fieldUsage))),
                .init("client_name_header", .string(metrics.clientNameHeader)),
            ]),
            .init("cors", [
                .init("allow_origins", .strings(cors.allowOrigins)),
                .init("allow_credentials", .plain(String(cors.allowCredentials))),
                .init("allow_headers", .strings(cors.allowHeaders)),
                .init("expose_headers", .strings(cors.exposeHeaders)),
                .init("max_age", .duration(cors.maxAge)),
            ]),
            .init("csrf", [
                .init("enabled", .plain(String(csrf.enabled))),
                .init("required_headers", .strings(csrf.requiredHeaders)),
            ]),
            .init("tracing", [
                .init("enabled", .plain(String(tracing.enabled))),
                .init("endpoint", secret(tracing.endpoint, .urlPassword)),
                .init("sample_ratio", .plain(tracing.sampleRatio.configText)),
                .init("service_name", .string(tracing.serviceName)),
                .init("headers", .mapping(tracing.headers.map { .init($0.name, secret($0.value)) })),
            ]),
            .init("compression", [
                .init("enabled", .plain(String(compression.enabled))),
                .init("min_bytes", .size(compression.minBytes)),
                .init("algorithms", .plain("[" + compression.algorithms.map(\.rawValue).joined(separator: ", ") + "]")),
            ]),
            .init("admin", [
                .init("listen", .string(admin.listen?.description ?? "")),
                .init("token_file", .string(admin.tokenFile ?? "")),
            ]),
        ]
    }
}
