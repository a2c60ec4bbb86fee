import ArgumentParser
import GQLGate
import GQLGateConfig
import GQLGateDemo

/// `gqlgate demo`: the demo API with gqlgate in front of it, or (`--api-only`)
/// the demo API alone, as the app beside a gqlgate sidecar.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Run a demo GraphQL API (Star Wars reviews) with gqlgate in front of it.",
        discussion: "With --api-only the demo API runs alone until SIGTERM or SIGINT, then drains and exits 0.")

    @Option(name: .long, help: "Where gqlgate listens (default 127.0.0.1:8080; not with --api-only).")
    var listen: String?

    @Option(name: .customLong("demo-listen"), help: "Where the demo API listens.")
    var demoListen = "127.0.0.1:4000"

    @Flag(name: .customLong("api-only"), help: "Run the demo API alone, without gqlgate in front of it.")
    var apiOnly = false

    func validate() throws {
        if apiOnly, listen != nil {
            throw ValidationError("--listen is where gqlgate listens; with --api-only there is no gqlgate: use --demo-listen")
        }
    }

    func run() throws {
        let gatewayAddress: ListenAddress
        let demoAddress: ListenAddress
        do {
            gatewayAddress = try ListenAddress(parsing: listen ?? "127.0.0.1:8080")
            demoAddress = try ListenAddress(parsing: demoListen)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
        Signals.blockTermination()
        let demo = DemoAPI(host: demoAddress.host, port: demoAddress.port)
        do {
            try demo.start()
        } catch {
            throw CommandFailure(message: "gqlgate: demo API: \(error)", exitCode: 1)
        }
        if apiOnly {
            FileHandleOutput.standardError("gqlgate: demo API listening on \(demo.endpoint)")
            while Signals.wait() == .reload {}
            FileHandleOutput.standardError("gqlgate: demo API stopping")
            demo.stop()
            return
        }
        var config = GatewayConfig()
        config.server.listen = gatewayAddress
        config.upstream.url = demo.endpoint
        FileHandleOutput.standardError("gqlgate: demo API listening on \(demo.endpoint)")
        try GatewayProcess(config: config, reloadSource: nil).runUntilTerminated {
            let endpoint = "http://\(gatewayAddress)/graphql"
            print("gqlgate is in front of the demo API. Try:\n")
            for example in DemoAPI.sampleQueries(endpoint: endpoint) { print("# \(example.title)\n\(example.curl)\n") }
            print("Subscriptions: follow reviewAdded, then create a review.\n")
            for example in DemoAPI.subscriptionExamples(endpoint: endpoint) { print("# \(example.title)\n\(example.command)\n") }
            fflush(nil)
        }
        demo.stop()
    }
}

#if canImport(Glibc)
import Glibc
#endif
