import Foundation
import Testing
@testable import GQLGateConfig

/// `Configs/gqlgate.yaml` and every file in `Configs/examples/` load and validate.
@Suite struct ShippedConfigsTests {
    /// Values for every `${VAR}` the shipped files use without a default.
    private let environment = [
        "UPSTREAM_API_KEY": "example-key",
        "OAUTH_CLIENT_ID": "gqlgate",
        "OAUTH_CLIENT_SECRET": "example-secret",
    ]

    private static let configs = repositoryRoot().appendingPathComponent("Configs")

    private static func examples() throws -> [String] {
        let directory = configs.appendingPathComponent("examples")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".yaml") }
            .sorted()
            .map { directory.appendingPathComponent($0).path }
    }

    @Test func mainConfigListsEveryKeyAtItsDefault() throws {
        let config = try ConfigLoader.load(file: Self.configs.appendingPathComponent("gqlgate.yaml").path, environment: environment)
        try config.validate()
        var expected = GatewayConfig()
        expected.upstream.url = "http://127.0.0.1:4000/graphql"
        #expect(config == expected)
        #expect(config.inactiveKeys().isEmpty)
    }

    @Test func mainConfigSetsEveryKey() throws {
        let text = try String(contentsOf: Self.configs.appendingPathComponent("gqlgate.yaml"), encoding: .utf8)
        let root = try #require(try ConfigLoader.compose(yaml: text, environment: environment))
        let rendered = RenderedNode.flatten(GatewayConfig().renderedSections(redactingSecrets: false)).map(\.path)
        #expect(keyPaths(root) == rendered)
    }

    @Test func everyExampleLoadsAndValidates() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 4)
        for path in examples {
            do {
                let config = try ConfigLoader.load(file: path, environment: environment)
                try config.validate()
            } catch {
                Issue.record("\(path): \(error)")
            }
        }
    }

    /// The key paths of the leaves of a YAML tree (scalars, lists and empty mappings), in file order.
    private func keyPaths(_ value: YAMLValue) -> [String] {
        guard let entries = try? value.entries(expected: "a mapping"), !entries.isEmpty else { return [value.path] }
        return entries.flatMap { keyPaths($0.value) }
    }
}
