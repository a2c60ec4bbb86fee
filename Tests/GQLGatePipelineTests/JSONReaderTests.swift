import GQLGatePipeline
import Testing

/// Reads `text` as an object whose members' values are skipped, not built.
private func skippingMembers(_ text: String) throws(JSONReader.Failure) -> Bool {
    var text = text
    let result: Result<Bool, JSONReader.Failure> = text.withUTF8 { utf8 in
        Result { () throws(JSONReader.Failure) in
            try JSONReader.readObject(UnsafeRawBufferPointer(utf8)) { _, reader throws(JSONReader.Failure) in try reader.skipValue() }
        }
    }
    return try result.get()
}

@Suite struct JSONReaderTests {
    @Test func firstMemberReadsUpToTheMemberAsked() throws {
        func data(_ text: String) throws -> String? {
            var text = text
            return try text.withUTF8 { utf8 throws(JSONReader.Failure) in
                try JSONReader.firstMember(named: "data", in: UnsafeRawBufferPointer(utf8)) { reader throws(JSONReader.Failure) in
                    try reader.value().serialized()
                }
            }
        }
        #expect(try data(#"{"data":{"a":[1,2]}}"#) == #"{"a":[1,2]}"#)
        #expect(try data(#" { "errors" : [ {"data":1} ] , "data" : null , "data": 2 } "#) == "null")
        #expect(try data(#"{"data":true, oops"#) == "true")
        #expect(try data(#"{"errors":[]}"#) == nil)
        #expect(try data("{}") == nil)
        #expect(try data("[1]") == nil)
        #expect(throws: JSONReader.Failure.self) { try data(#"{"errors":[}"#) }
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try JSONReader.read(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d"}, "e": 0} "#)
        #expect(value == .object([
            ("a", .array([.integer(1), .number("-2.5"), .number("3e2"), .bool(true), .bool(false), .null])),
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

    @Test func limitsNestingOfArraysAndObjects() throws {
        let depth = JSONReader.maximumDepth
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        for ok in [arrays, objects] { _ = try JSONReader.read(ok) }
        for deep in ["[" + arrays + "]", #"{"a":"# + objects + "}", String(repeating: "[", count: 100_000),
                     String(repeating: #"{"a":"#, count: 100_000)] {
            let error = #expect(throws: JSONReader.Failure.self) { try JSONReader.read(deep) }
            #expect(error?.problem == .tooDeep)
        }
    }

    @Test func skippingChecksWhatReadingChecksAndNestsAsDeep() throws {
        let depth = JSONReader.maximumDepth
        let member = String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)
        #expect(try skippingMembers(#"{"x":"# + member + "}"))
        #expect(try skippingMembers(#"{"x": [1, -2.5e+3, "é\u00e9\ud83d\ude80", {"k": [true, false, null]}], "y": "\"\\\/\b\f\n\r\t"}"#))
        #expect(try !skippingMembers("[1]"))
        let error = #expect(throws: JSONReader.Failure.self) { try skippingMembers(#"{"x":["# + member + "]}") }
        #expect(error?.problem == .tooDeep)
        for bad in ["01", "1.", "-", "tru", #""\x""#, #""\ud83d alone""#, "[1,]", #"{"a" 1}"#, "\"a\u{01}\"", #""\u12""#, #""open"#] {
            #expect(throws: JSONReader.Failure.self) { try skippingMembers(#"{"x":"# + bad + "}") }
        }
        let invalidUTF8: [UInt8] = [0x7B, 0x22, 0x78, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]
        #expect(throws: JSONReader.Failure.self) {
            try invalidUTF8.withUnsafeBytes { utf8 throws(JSONReader.Failure) in
                try JSONReader.readObject(utf8) { _, reader throws(JSONReader.Failure) in try reader.skipValue() }
            }
        }
    }

    @Test func everyWalkOverAValueAtTheDeepestNestingReturns() throws {
        let depth = JSONReader.maximumDepth
        let text = String(repeating: #"[{"b":1,"a":"#, count: depth / 2) + "5.0" + String(repeating: "}]", count: depth / 2)
        let value = try JSONReader.read(text)
        #expect(value.serialized() == text)
        #expect(value.serialized(sortedKeys: true).hasPrefix(#"[{"a":[{"a":"#))
        #expect(value == (try JSONReader.read(text)))
        #expect(value.repeatedKey == nil)
    }

    @Test func reportsWhereItStopped() {
        do {
            _ = try JSONReader.read(#"{"query": 1 2}"#)
            Issue.record("accepted invalid JSON")
        } catch {
            #expect(error.offset == 12)
        }
    }

    @Test(arguments: ["5.0", "1e400", "-0", "-0.0", "12345678901234567890", "1.5E+3", "-1e-7", "0.1000"])
    func keepsEveryNumbersText(_ text: String) throws {
        let value = try JSONReader.read(text)
        #expect(value == .number(text))
        #expect(value.serialized() == text)
        #expect(try JSONReader.read("[ \(text) , {\"n\": \(text)} ]").serialized() == "[\(text),{\"n\":\(text)}]")
    }

    @Test func keepsLargeIntegersExactAndTheRestAsText() throws {
        #expect(try JSONReader.read("9007199254740993") == .integer(9_007_199_254_740_993))
        #expect(try JSONReader.read("-9223372036854775808") == .integer(.min))
        #expect(try JSONReader.read("9223372036854775807") == .integer(.max))
        #expect(try JSONReader.read("9223372036854775808") == .number("9223372036854775808"))
        #expect(try JSONReader.read("123456789012345678901234567890") == .number("123456789012345678901234567890"))
    }
}
