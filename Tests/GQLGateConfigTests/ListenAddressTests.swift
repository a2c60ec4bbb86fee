import Testing
@testable import GQLGateConfig

@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", UInt16(8080)),
        ("[::1]:8080", "::1", 8080),
        ("localhost:9000", "localhost", 9000),
        ("0.0.0.0:0", "0.0.0.0", 0),
        ("[2001:db8::10]:65535", "2001:db8::10", 65535),
        ("gateway.internal:80", "gateway.internal", 80),
    ])
    func parsesAddresses(text: String, host: String, port: UInt16) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address == ListenAddress(host: host, port: port))
        #expect(address.description == text)
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:80a", ":8080", "[::1]", "[::1]8080", "a b:80"])
    func rejectsBadAddressesAndPorts(text: String) {
        #expect(thrownError { () throws(ConfigError) in try ListenAddress(parsing: text) }
            == "\(ConfigError.quoted(text)) is not valid: expected HOST:PORT such as 127.0.0.1:8080, [::1]:8080 or localhost:8080, "
            + "with a port from 0 to 65535")
    }

    @Test func asksForBracketsAroundIPv6() {
        #expect(thrownError { () throws(ConfigError) in try ListenAddress(parsing: "::1:8080") }
            == #""::1:8080" is not valid: expected an IPv6 address in brackets, such as [::1]:8080"#)
        #expect(thrownError { () throws(ConfigError) in try ListenAddress(parsing: "[nope]:8080") }
            == #""[nope]:8080" is not valid: expected an IPv6 address in the brackets, such as [::1]:8080"#)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("LOCALHOST", true), ("::1", true),
        ("0:0:0:0:0:0:0:1", true), ("::ffff:127.0.0.1", true),
        ("0.0.0.0", false), ("::", false), ("10.0.0.1", false), ("128.0.0.1", false), ("example.com", false), ("::2", false),
    ])
    func knowsLoopback(host: String, loopback: Bool) {
        #expect(ListenAddress(host: host, port: 80).isLoopback == loopback)
    }

    @Test func badListenInTheFileNamesTheKey() {
        #expect(loadError("server: {listen: \"localhost:99999\"}")
            == #"server.listen: "localhost:99999" is not valid: expected HOST:PORT such as 127.0.0.1:8080, [::1]:8080 or "#
            + "localhost:8080, with a port from 0 to 65535")
    }
}
