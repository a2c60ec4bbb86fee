import Foundation
@testable import GQLGateConfig

/// Loads `yaml` with `environment`.
func load(_ yaml: String, environment: [String: String] = [:]) throws(ConfigError) -> GatewayConfig {
    try ConfigLoader.load(yaml: yaml, environment: environment)
}

/// The description of the error that loading `yaml` throws, or nil when it loads.
func loadError(_ yaml: String, environment: [String: String] = [:]) -> String? {
    do {
        _ = try ConfigLoader.load(yaml: yaml, environment: environment)
        return nil
    } catch {
        return error.description
    }
}

/// The description of the error that `body` throws, or nil when it does not throw.
func thrownError<T>(_ body: () throws(ConfigError) -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.description
    }
}

/// The repository root, found from this file's path (symbolic links resolved).
func repositoryRoot(filePath: String = #filePath) -> URL {
    URL(fileURLWithPath: filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
}

/// The path of a file in `Fixtures/`.
func fixturePath(_ name: String) -> String? {
    Bundle.module.url(forResource: name, withExtension: "yaml", subdirectory: "Fixtures")?.path
}
