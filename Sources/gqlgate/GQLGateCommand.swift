import ArgumentParser
import GQLGate

/// `gqlgate`: the root command; `run` is the default subcommand.
struct GQLGateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gqlgate",
        abstract: "A sidecar gateway in front of one GraphQL API.",
        discussion: "Exit codes: 0 clean stop, 1 invalid configuration, 2 usage error or no upstream configured.",
        version: GQLGateVersion.current,
        subcommands: [RunCommand.self, DemoCommand.self, CheckConfigCommand.self],
        defaultSubcommand: RunCommand.self)
}
