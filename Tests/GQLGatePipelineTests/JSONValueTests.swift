import Foundation
import GQLGatePipeline
import Testing

/// Decodes `text` as a `JSONValue`.
private func decoded(_ text: String) throws -> JSONValue {
    try JSONReader.read(text)
}

@Suite struct JSONValueTests {
    @Test func serializesScalars() {
        #expect(JSONValue.null.serialized() == "null")
        #expect(JSONValue.bool(true).serialized() == "true")
        #expect(JSONValue.bool(false).serialized() == "false")
        #expect(JSONValue.integer(-42).serialized() == "-42")
        #expect(JSONValue.number("2.50").serialized() == "2.50")
        #expect(JSONValue(2.5).serialized() == "2.5")
        #expect(JSONValue(-0.125).serialized() == "-0.125")
        #expect(JSONValue.string("hi").serialized() == #""hi""#)
    }

    @Test func nonFiniteNumbersBecomeNull() {
        #expect(JSONValue(.nan) == .null)
        #expect(JSONValue(.infinity) == .null)
        #expect(JSONValue(-.infinity) == .null)
    }

    @Test func hugeNumbersStayValidJSON() throws {
        let text = JSONValue(1e300).serialized()
        #expect(try decoded(text).doubleValue == 1e300)
    }

    @Test func serializesContainersCompactlyInTheirOrder() {
        let value = JSONValue.object([
            ("b", .array([.integer(1), .null, .string("x")])),
            ("a", .object([("z", .bool(true)), ("y", .object([]))])),
            ("c", .array([])),
        ])
        #expect(value.serialized() == #"{"b":[1,null,"x"],"a":{"z":true,"y":{}},"c":[]}"#)
    }

    @Test func sortedKeysSortsEveryLevel() {
        let value = JSONValue.object([
            ("b", .array([.object([("y", .integer(2)), ("x", .integer(1))])])),
            ("a", .object([("z", .bool(true)), ("y", .null)])),
        ])
        #expect(value.serialized(sortedKeys: true) == #"{"a":{"y":null,"z":true},"b":[{"x":1,"y":2}]}"#)
    }

    @Test func escapesStrings() {
        let text = JSONValue.string("q\"b\\n\nr\rt\tnul\u{0}us\u{1F}del\u{7F}é😀").serialized()
        #expect(text == #""q\"b\\n\nr\rt\tnul\u0000us\u001fdel"# + "\u{7F}é😀\"")
    }

    @Test func escapedStringsRoundTripThroughFoundation() throws {
        let original = "quote \" backslash \\ slash / newline \n cr \r tab \t bell \u{7} esc \u{1B} unit \u{1F} ü 中 😀"
        var out = ""
        JSONValue.writeString(original, to: &out)
        let parsed = try JSONSerialization.jsonObject(with: Data("[\(out)]".utf8)) as? [String]
        #expect(parsed == [original])
    }

    @Test func escapesObjectKeys() {
        #expect(JSONValue.object([("a\"b", .integer(1))]).serialized() == #"{"a\"b":1}"#)
    }

    @Test func writeStringAppends() {
        var out = "prefix:"
        JSONValue.writeString("x", to: &out)
        #expect(out == #"prefix:"x""#)
    }

    @Test func subscriptReadsObjectMembersOnly() {
        let value = JSONValue.object([("a", .integer(1)), ("b", .null)])
        #expect(value["a"] == .integer(1))
        #expect(value["b"] == .null)
        #expect(value["c"] == nil)
        #expect(JSONValue.array([.integer(1)])["a"] == nil)
        #expect(JSONValue.string("a")["a"] == nil)
    }

    @Test func isObject() {
        #expect(JSONValue.object([]).isObject)
        #expect(!JSONValue.array([]).isObject)
        #expect(!JSONValue.null.isObject)
        #expect(!JSONValue.string("{}").isObject)
    }

    @Test func equalityIsStructural() {
        #expect(JSONValue.object([("a", .integer(1)), ("b", .integer(2))]) == .object([("a", .integer(1)), ("b", .integer(2))]))
        #expect(JSONValue.object([("a", .integer(1)), ("b", .integer(2))]) != .object([("b", .integer(2)), ("a", .integer(1))]))
        #expect(JSONValue.object([("a", .integer(1))]) != .object([("a", .integer(1)), ("b", .integer(2))]))
        #expect(JSONValue.object([("a", .integer(1))]) != .object([("a", .integer(2))]))
        #expect(JSONValue.integer(1) != .number("1.0"))
        #expect(JSONValue.number("1.0") != .number("1"))
        #expect(JSONValue.array([.null]) != .array([]))
        #expect(JSONValue.string("1") != .integer(1))
        #expect(JSONValue.null != .bool(false))
    }

    @Test func decodesEveryKind() throws {
        #expect(try decoded("null") == .null)
        #expect(try decoded("true") == .bool(true))
        #expect(try decoded("0") == .integer(0))
        #expect(try decoded("-17") == .integer(-17))
        #expect(try decoded("1.25") == .number("1.25"))
        #expect(try decoded("18446744073709551616") == .number("18446744073709551616"))
        #expect(try decoded(#""é\n""#) == .string("é\n"))
        #expect(try decoded(#"[1,[true,null],{"k":"v"}]"#) == .array([.integer(1), .array([.bool(true), .null]), .object([("k", .string("v"))])]))
        #expect(try decoded("{}") == .object([]))
        #expect(try decoded(#"{"a":{"b":{"c":[]}}}"#) == .object([("a", .object([("b", .object([("c", .array([]))]))]))]))
    }

    @Test func decodedObjectsKeepEveryMember() throws {
        let value = try decoded(#"{"b":1,"a":"x","c":null,"d":[],"e":{}}"#)
        #expect(value.serialized(sortedKeys: true) == #"{"a":"x","b":1,"c":null,"d":[],"e":{}}"#)
    }
}

@Suite struct JSONValueRepeatedKeyTests {
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a"),
        (#"{"a":{"b":[{"c":1,"d":2,"c":3}]}}"#, "c"),
        (#"[{"x":1},{"y":{"z":1,"z":1}}]"#, "z"),
        (#"{"\u0071":1,"q":2}"#, "q"),
        (#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k5":10}"#, "k5"),
    ])
    func findsAKeyRepeatedInOneObject(text: String, key: String) throws {
        #expect(try decoded(text).repeatedKey == key)
    }

    @Test(arguments: [
        #"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#,
        #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}"#,
        #"[1,"a","a",null,{}]"#,
    ])
    func keysRepeatedOnlyAcrossObjectsAreFine(text: String) throws {
        #expect(try decoded(text).repeatedKey == nil)
    }

    @Test func readingKeepsEveryMemberAndLookupsFindTheFirst() throws {
        let value = try decoded(#"{"a":1,"a":2}"#)
        #expect(value == .object([("a", .integer(1)), ("a", .integer(2))]))
        #expect(value["a"] == .integer(1))
    }
}
