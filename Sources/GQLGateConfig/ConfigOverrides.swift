/// Settings given on the command line or in `GQLGATE_*` environment variables, which win over the
/// config file.
///
/// Precedence is flag > environment > config file > default: build one value from the flags and
/// one with ``environment(_:)``, merge them with ``merged(over:)`` and apply the result with
/// ``GatewayConfig/applying(_:)``.
public struct ConfigOverrides: Sendable, Equatable {
    /// `--listen` / `GQLGATE_LISTEN`: replaces `server.listen`.
    public var listen: String?
    /// `--upstream` / `GQLGATE_UPSTREAM`: replaces `upstream.url`.
    public var upstream: String?
    /// `--upstream-ws` / `GQLGATE_UPSTREAM_WS`: replaces `upstream.ws_url`.
    public var upstreamWS: String?
    /// `--log-level` / `GQLGATE_LOG_LEVEL`: replaces `logging.level`.
    public var logLevel: String?
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: the OTLP base URL; `tracing.endpoint` becomes it with `/v1/traces` appended.
    public var otlpEndpoint: String?
    /// `OTEL_SERVICE_NAME`: replaces `tracing.service_name`.
    public var serviceName: String?
    /// `OTEL_TRACES_SAMPLER_ARG`: replaces `tracing.sample_ratio`.
    public var sampleRatio: String?

    /// Creates overrides; nil leaves a setting alone.
    /// - Parameters:
    ///   - listen: `HOST:PORT` to listen on.
    ///   - upstream: The upstream http:// or https:// URL.
    ///   - upstreamWS: The upstream ws:// or wss:// URL.
    ///   - logLevel: `trace`, `debug`, `info`, `warn` or `error`.
    ///   - otlpEndpoint: The OTLP/HTTP base URL.
    ///   - serviceName: The traces' `service.name`.
    ///   - sampleRatio: The share of new traces sampled, 0 to 1.
    public init(listen: String? = nil, upstream: String? = nil, upstreamWS: String? = nil, logLevel: String? = nil,
                otlpEndpoint: String? = nil, serviceName: String? = nil, sampleRatio: String? = nil) {
        self.listen = listen
        self.upstream = upstream
        self.upstreamWS = upstreamWS
        self.logLevel = logLevel
        self.otlpEndpoint = otlpEndpoint
        self.serviceName = serviceName
        self.sampleRatio = sampleRatio
    }

    /// The overrides set in `GQLGATE_LISTEN`, `GQLGATE_UPSTREAM`, `GQLGATE_UPSTREAM_WS`,
    /// `GQLGATE_LOG_LEVEL`, `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME` and
    /// `OTEL_TRACES_SAMPLER_ARG`; empty variables count as unset.
    /// - Parameter env: The process environment.
    public static func environment(_ env: [String: String]) -> ConfigOverrides {
        func value(_ name: String) -> String? {
            env[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        return ConfigOverrides(
            listen: value("GQLGATE_LISTEN"),
            upstream: value("GQLGATE_UPSTREAM"),
            upstreamWS: value("GQLGATE_UPSTREAM_WS"),
            logLevel: value("GQLGATE_LOG_LEVEL"),
            otlpEndpoint: value("OTEL_EXPORTER_OTLP_ENDPOINT"),
            serviceName: value("OTEL_SERVICE_NAME"),
            sampleRatio: value("OTEL_TRACES_SAMPLER_ARG")
        )
    }

    /// These overrides, falling back to `lower` for each setting left nil.
    /// - Parameter lower: Overrides of lower precedence (the environment, under the flags).
    public func merged(over lower: ConfigOverrides) -> ConfigOverrides {
        ConfigOverrides(
            listen: listen ?? lower.listen,
            upstream: upstream ?? lower.upstream,
            upstreamWS: upstreamWS ?? lower.upstreamWS,
            logLevel: logLevel ?? lower.logLevel,
            otlpEndpoint: otlpEndpoint ?? lower.otlpEndpoint,
            serviceName: serviceName ?? lower.serviceName,
            sampleRatio: sampleRatio ?? lower.sampleRatio
        )
    }
}

extension GatewayConfig {
    /// This configuration with `overrides` applied, each value checked like the key it replaces.
    /// - Parameter overrides: The merged flag and environment overrides.
    /// - Throws: A ``ConfigError`` whose key path names the flag and variable, e.g. `--listen/GQLGATE_LISTEN`.
    public func applying(_ overrides: ConfigOverrides) throws(ConfigError) -> GatewayConfig {
        var config = self
        if let listen = overrides.listen {
            do {
                config.server.listen = try ListenAddress(parsing: listen)
            } catch {
                throw error.at("--listen/GQLGATE_LISTEN")
            }
        }
        if let upstream = overrides.upstream {
            do {
                config.upstream.url = try ConfigURL.check(upstream, schemes: UpstreamConfig.httpSchemes)
            } catch {
                throw error.at("--upstream/GQLGATE_UPSTREAM")
            }
        }
        if let upstreamWS = overrides.upstreamWS {
            do {
                config.upstream.wsURL = try ConfigURL.check(upstreamWS, schemes: UpstreamConfig.wsSchemes)
            } catch {
                throw error.at("--upstream-ws/GQLGATE_UPSTREAM_WS")
            }
        }
        if let logLevel = overrides.logLevel {
            guard let level = LogLevel(rawValue: logLevel) else {
                let expected = "one of " + LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalid(logLevel, expected: expected, keyPath: "--log-level/GQLGATE_LOG_LEVEL")
            }
            config.logging.level = level
        }
        try config.tracing.apply(overrides)
        return config
    }
}
