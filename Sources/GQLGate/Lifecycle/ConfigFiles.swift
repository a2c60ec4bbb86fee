import GQLGateConfig
import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Logging

/// The files a configuration names (`server.tls`, `auth.bearer_token_file`,
/// `clients.api_keys_file`, `persisted_documents.manifests`, `schema.file`,
/// `admin.token_file` with `admin.listen`), read and parsed
/// by the same code `run` reads them with at start, so that
/// `gqlgate check-config` says of each file what `run` would.
package enum ConfigFiles {
    /// Every file of `config` that cannot be used, as `run` reports it (the key, the file and
    /// why); empty when each can be. A missing or empty `auth.bearer_token_file` is one too,
    /// although `run` starts without it (``bearerTokenProblem(_:)``).
    package static func problems(_ config: GatewayConfig) -> [ConfigError] {
        var problems: [ConfigError] = []
        do {
            _ = try TLSFiles(config.server.tls)
        } catch {
            problems.append(error)
        }
        if let problem = bearerTokenProblem(config.auth) { problems.append(problem) }
        do {
            _ = try Gateway.clientAuthenticator(config.clients)
        } catch {
            problems.append(error)
        }
        if config.schema.effectiveSource == .file, let path = config.schema.file {
            do {
                _ = try SchemaLoading.build(WatchedFile.contents(of: path, limit: SchemaLoading.fileSizeLimit), path: path)
            } catch {
                problems.append(ConfigError(keyPath: "schema.file", message: error.reason))
            }
        }
        do {
            _ = try Gateway.adminToken(config.admin)
        } catch {
            problems.append(error)
        }
        if let problem = RedisAssembly.problem(config) { problems.append(problem) }
        do {
            _ = try PersistedDocumentsAssembly.library(config.persistedDocuments, cache: DocumentCache(), logger: Logger(label: "gqlgate"))
        } catch {
            problems.append(error)
        }
        return problems
    }

    /// Why `auth.bearer_token_file` gives no token now (missing, unreadable or empty); nil
    /// when it does or none is configured. `run` starts anyway and logs this: a token writer
    /// beside gqlgate may create the file later, and it is used once it appears.
    package static func bearerTokenProblem(_ auth: AuthConfig) -> ConfigError? {
        guard let path = auth.bearerTokenFile else { return nil }
        do {
            _ = try BearerTokenFile(path: path).token()
            return nil
        } catch {
            return ConfigError(keyPath: "auth.bearer_token_file", message: "\"\(path)\" is missing, unreadable or empty")
        }
    }
}
