import ArgumentParser
import GQLGate
import GQLGateConfig

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `gqlgate check-config FILE`: validate the config and every file it names, and
/// print the effective config.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file and the files it names, and print the effective configuration (exit 1 on error).")

    @Argument(help: "The YAML config file.")
    var file: String

    @Flag(help: "Do not read the files the config names (key files, tokens, manifests, certificates): for a config whose files exist only where it runs.")
    var skipFiles = false

    func run() throws {
        let config: GatewayConfig
        do {
            config = try ConfigLoader.resolve(configFlag: file, flags: ConfigOverrides(), environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandFailure.config(error)
        }
        if !skipFiles {
            let problems = ConfigFiles.problems(config)
            if !problems.isEmpty {
                throw CommandFailure(message: problems.map { CommandFailure.config($0).message }.joined(separator: "\n"), exitCode: 1)
            }
        }
        print(config.renderYAML(), terminator: "")
    }
}
