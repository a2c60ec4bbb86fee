import GQLGatePipeline
import Testing

@Suite struct JSONReaderTests {
    @Test func readsEveryKindOfValue() throws {
        let value = try JSONReader.read(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d"}, "e": 0} "#)
        #expect(value == .object([
            ("a", .array([.integer(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null])),
            ("b", .object([("c", .string("d"))])),
            ("e", .integer(0)),
        ]))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONReader.read(#""q\"b\\s\/n\n\t\r\b\f \u00e9 \ud83d\ude80 é""#)
        #expect(value == .string("q\"b\\s/n\n\t\r\u{08}\u{0C} é 🚀 é"))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul",
        "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud83d alone\"", "\"\\ude80\"", "[1] 2", "\"tab\there\"",
        "{\"a\":1}}", "NaN", "Infinity",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.read(text) }
    }

    @Test func rejectsControlCharactersAndInvalidUTF8InStrings() {
        let raw: [UInt8] = [0x22, 0x61, 0x01, 0x22]
        let invalid: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        for bytes in [raw, invalid] {
            #expect(throws: JSONReader.Failure.self) { try bytes.withUnsafeBytes { try JSONReader.read($0) } }
        }
    }

    @Test func limitsNesting() throws {
        let ok = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        _ = try JSONReader.read(ok)
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONReader.Failure.self) { try JSONReader.read(deep) }
    }

    @Test func reportsWhereItStopped() {
        do {
            _ = try JSONReader.read(#"{"query": 1 2}"#)
            Issue.record("accepted invalid JSON")
        } catch {
            #expect(error.offset == 12)
        }
    }

    @Test func keepsLargeIntegersExactAndFallsBackToDoubles() throws {
        #expect(try JSONReader.read("9007199254740993") == .integer(9_007_199_254_740_993))
        #expect(try JSONReader.read("123456789012345678901234567890") == .number(1.2345678901234568e29))
    }
}
