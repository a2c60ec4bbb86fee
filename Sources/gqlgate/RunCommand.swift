import ArgumentParser
import GQLGate
import GQLGateConfig

/// `gqlgate run`: serve until SIGTERM/SIGINT; SIGHUP reloads the configuration.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the gateway (the default).")

    @OptionGroup var options: GatewayOptions

    func run() throws {
        let config = try options.resolve()
        guard config.upstream.url != nil else { throw CommandFailure.noUpstream }
        try GatewayProcess(config: config, reloadSource: options.reload).runUntilTerminated()
    }
}
