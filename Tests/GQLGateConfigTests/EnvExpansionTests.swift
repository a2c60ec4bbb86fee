import Testing
@testable import GQLGateConfig

@Suite struct EnvExpansionTests {
    private func expand(_ text: String, _ environment: [String: String] = [:]) throws(ConfigError) -> String {
        try EnvExpansion.expand(text, environment: environment)
    }

    @Test func replacesAVariable() throws {
        #expect(try expand("${KEY}", ["KEY": "secret"]) == "secret")
    }

    @Test func replacesVariablesInsideALongerString() throws {
        #expect(try expand("http://${HOST}:${PORT}/graphql", ["HOST": "api", "PORT": "4000"]) == "http://api:4000/graphql")
    }

    @Test func usesTheDefaultWhenUnsetOrEmpty() throws {
        #expect(try expand("${PORT:-8080}") == "8080")
        #expect(try expand("${PORT:-8080}", ["PORT": ""]) == "8080")
        #expect(try expand("${PORT:-8080}", ["PORT": "9000"]) == "9000")
        #expect(try expand("${EMPTY:-}") == "")
    }

    @Test func keepsAnEmptyValueWithoutDefault() throws {
        #expect(try expand("a${EMPTY}b", ["EMPTY": ""]) == "ab")
    }

    @Test func namesAMissingVariable() {
        #expect(thrownError { () throws(ConfigError) in try expand("Bearer ${TOKEN}") }
            == "environment variable TOKEN is not set (set it, or give a default: ${TOKEN:-value})")
    }

    @Test func doubleDollarEscapesAReference() throws {
        #expect(try expand("$${KEY} and ${KEY}", ["KEY": "v"]) == "${KEY} and v")
    }

    @Test func leavesOtherDollarSignsAlone() throws {
        #expect(try expand("$5, $$ and a$") == "$5, $$ and a$")
    }

    @Test func doesNotExpandValuesAgain() throws {
        #expect(try expand("${A}", ["A": "${B}"]) == "${B}")
    }

    @Test func rejectsMalformedReferences() {
        #expect(thrownError { () throws(ConfigError) in try expand("${KEY") }
            == #""${KEY" is not valid: expected a closing } after ${ (write $${ for a literal ${)"#)
        #expect(thrownError { () throws(ConfigError) in try expand("${1KEY}") }?.hasPrefix(#""${1KEY}" is not valid: expected ${NAME}"#) == true)
        #expect(thrownError { () throws(ConfigError) in try expand("${}") } != nil)
    }

    @Test func errorsInTheFileNameTheKey() {
        #expect(loadError("auth:\n  headers:\n    X-Api-Key: ${UPSTREAM_API_KEY}\n")
            == "auth.headers.X-Api-Key: environment variable UPSTREAM_API_KEY is not set "
            + "(set it, or give a default: ${UPSTREAM_API_KEY:-value})")
    }

    @Test func expandsBeforeTyping() throws {
        let config = try load(
            "server: {listen: \"${HOST:-127.0.0.1}:${PORT}\", max_body_bytes: \"${BODY:-2MiB}\"}\nretry: {max_attempts: \"${TRIES}\"}\n",
            environment: ["PORT": "9000", "TRIES": "5"]
        )
        #expect(config.server.listen == ListenAddress(host: "127.0.0.1", port: 9000))
        #expect(config.server.maxBodyBytes == 2 << 20)
        #expect(config.retry.maxAttempts == 5)
    }

    @Test func expandedValuesAreStillChecked() {
        #expect(loadError("retry: {max_attempts: \"${TRIES}\"}", environment: ["TRIES": "zero"])
            == #"retry.max_attempts: "zero" (from "${TRIES}") is not valid: expected an integer >= 1"#)
    }
}
