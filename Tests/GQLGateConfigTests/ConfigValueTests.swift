import Testing
@testable import GQLGateConfig

@Suite struct ConfigValueTests {
    private func payload(_ yaml: String, environment: [String: String] = [:]) throws -> ConfigValue {
        try load("auth:\n  ws_init_payload: \(yaml)\n", environment: environment).auth.wsInitPayload
    }

    @Test func typesUnquotedScalarsTheYAML12Way() throws {
        let value = try payload(#"{a: null, b: true, c: False, d: 42, e: -1.5, f: 1e3, g: yes, h: "42", i: on, j: 0x1F}"#)
        #expect(value == .object([
            .init(key: "a", value: .null),
            .init(key: "b", value: .bool(true)),
            .init(key: "c", value: .bool(false)),
            .init(key: "d", value: .int(42)),
            .init(key: "e", value: .double(-1.5)),
            .init(key: "f", value: .double(1000)),
            .init(key: "g", value: .string("yes")),
            .init(key: "h", value: .string("42")),
            .init(key: "i", value: .string("on")),
            .init(key: "j", value: .string("0x1F")),
        ]))
    }

    @Test func keepsNestingAndKeyOrder() throws {
        let value = try payload(#"{z: [1, {y: x}], a: {}}"#)
        #expect(value == .object([
            .init(key: "z", value: .array([.int(1), .object([.init(key: "y", value: .string("x"))])])),
            .init(key: "a", value: .object([])),
        ]))
    }

    @Test func expandedScalarsAreStrings() throws {
        let value = try payload("\n    token: ${TOKEN}\n    count: ${N:-3}", environment: ["TOKEN": "true"])
        #expect(value == .object([.init(key: "token", value: .string("true")), .init(key: "count", value: .string("3"))]))
    }

    @Test func mustBeAMapping() {
        #expect(loadError("auth: {ws_init_payload: [1]}") == "auth.ws_init_payload: a list is not valid: expected a mapping")
        #expect(loadError("auth: {ws_init_payload: x}") == #"auth.ws_init_payload: "<redacted>" is not valid: expected a mapping"#)
    }
}

/// YAML aliases of aliases stand for more values than any config holds: refused, quickly.
@Suite struct ConfigValueAliasBombTests {
    @Test func aPayloadOfAliasesOfAliasesIsRefused() {
        var yaml = "auth:\n  ws_init_payload:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<8 {
            yaml += "    a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let error = loadError(yaml)
        #expect(error?.contains("at most 100000 items once its aliases are expanded") == true, "\(error ?? "loaded")")
    }

    @Test func aFewAliasesStillLoad() throws {
        let config = try load("auth:\n  ws_init_payload:\n    a: &a [1, 2]\n    b: *a\n")
        let list = ConfigValue.array([.int(1), .int(2)])
        #expect(config.auth.wsInitPayload == .object([.init(key: "a", value: list), .init(key: "b", value: list)]))
    }
}
