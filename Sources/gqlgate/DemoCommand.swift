import ArgumentParser
import GQLGate
import GQLGateConfig
import GQLGateDemo

/// `gqlgate demo`: the demo API with gqlgate in front of it.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Run a demo GraphQL API (Star Wars reviews) with gqlgate in front of it.")

    @Option(name: .long, help: "Where gqlgate listens.")
    var listen = "127.0.0.1:8080"

    @Option(name: .customLong("demo-listen"), help: "Where the demo API listens.")
    var demoListen = "127.0.0.1:4000"

    func run() throws {
        let gatewayAddress: ListenAddress
        let demoAddress: ListenAddress
        do {
            gatewayAddress = try ListenAddress(parsing: listen)
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
