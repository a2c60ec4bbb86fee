import ArgumentParser
import GQLGateConfig

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `gqlgate check-config FILE`: validate and print the effective config.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Validate a config file and print the effective configuration (exit 1 on error).")

    @Argument(help: "The YAML config file.")
    var file: String

    func run() throws {
        let config: GatewayConfig
        do {
            config = try ConfigLoader.resolve(configFlag: file, flags: ConfigOverrides(), environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandFailure.config(error)
        }
        print(config.renderYAML(), terminator: "")
    }
}
