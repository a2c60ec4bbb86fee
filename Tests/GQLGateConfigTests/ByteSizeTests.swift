import Testing
@testable import GQLGateConfig

@Suite struct ByteSizeTests {
    @Test(arguments: [
        ("64MiB", 64 * 1_048_576),
        ("1KiB", 1_024),
        ("512KB", 512_000),
        ("2MB", 2_000_000),
        ("1GiB", 1_073_741_824),
        ("3GB", 3_000_000_000),
        ("100B", 100),
        ("65536", 65_536),
        ("0", 0),
        ("64 MiB", 64 * 1_048_576),
        ("64mib", 64 * 1_048_576),
    ])
    func parsesValidSizes(text: String, expected: Int) throws {
        #expect(try ByteSize.parse(text) == expected)
    }

    @Test(arguments: ["", "MiB", "-1", "1.5MiB", "64 MBs", "64TB", "ten", "99999999999999999999", "9999999999999GiB"])
    func rejectsMalformedSizes(text: String) {
        #expect(thrownError { () throws(ConfigError) in try ByteSize.parse(text) }
            == "\(ConfigError.quoted(text)) is not valid: expected a size such as 64MiB, 512KB, 1GiB or a number of bytes")
    }

    @Test(arguments: [
        (0, "0B"),
        (1_048_576, "1MiB"),
        (64 * 1_048_576, "64MiB"),
        (65_536, "64KiB"),
        (512_000, "500KiB"),
        (2_000_000_000, "2GB"),
        (1_000_001, "1000001B"),
    ])
    func formatsWithTheSmallestExactNumber(bytes: Int, expected: String) throws {
        #expect(ByteSize.format(bytes) == expected)
        #expect(try ByteSize.parse(expected) == bytes)
    }
}
