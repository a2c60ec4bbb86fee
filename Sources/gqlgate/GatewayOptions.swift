import ArgumentParser
import GQLGateConfig

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The flags `run` shares with the environment and the config file
/// (precedence: flag > environment > file > default).
struct GatewayOptions: ParsableArguments {
    @Option(name: .long, help: "YAML config file (or GQLGATE_CONFIG).")
    var config: String?

    @Option(name: .long, help: "Address to listen on, HOST:PORT (default 127.0.0.1:8080).")
    var listen: String?

    @Option(name: .long, help: "The upstream GraphQL endpoint URL.")
    var upstream: String?

    @Option(name: .customLong("upstream-ws"), help: "The upstream WebSocket URL (default: derived from --upstream).")
    var upstreamWS: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, warn or error.")
    var logLevel: String?

    var overrides: ConfigOverrides {
        ConfigOverrides(listen: listen, upstream: upstream, upstreamWS: upstreamWS, logLevel: logLevel)
    }

    /// The effective configuration: bad flag values are usage errors (exit 2),
    /// bad files and environment values configuration errors (exit 1).
    func resolve() throws(CommandFailure) -> GatewayConfig {
        do {
            _ = try GatewayConfig().applying(overrides)
        } catch {
            throw .usage("\(error)")
        }
        do {
            return try ConfigLoader.resolve(configFlag: config, flags: overrides, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw .config(error)
        }
    }

    /// The configuration again, from the same file, environment and flags (SIGHUP);
    /// losing the upstream is an error like any invalid value.
    func reload() throws(ConfigError) -> GatewayConfig {
        let loaded = try ConfigLoader.resolve(configFlag: config, flags: overrides, environment: ProcessInfo.processInfo.environment)
        guard loaded.upstream.url != nil else {
            throw ConfigError(keyPath: "upstream.url", message: "no upstream configured; the running configuration has one")
        }
        return loaded
    }
}
