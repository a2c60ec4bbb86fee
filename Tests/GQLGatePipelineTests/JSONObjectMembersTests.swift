import GQLGatePipeline
import Testing

/// `JSONReader.readObject`: an object read member by member.
@Suite struct JSONObjectMembersTests {
    /// The members of `text` as (key, value) pairs, read through `readObject`; nil when it is not an object.
    private func members(_ text: String) throws -> [(String, JSONValue)]? {
        var text = text
        let result: Result<[(String, JSONValue)]?, JSONReader.Failure> = text.withUTF8 { utf8 in
            var members: [(String, JSONValue)] = []
            return Result { () throws(JSONReader.Failure) in
                let isObject = try JSONReader.readObject(UnsafeRawBufferPointer(utf8)) { key, reader throws(JSONReader.Failure) in
                    members.append((String(decoding: key, as: UTF8.self), try reader.value()))
                }
                return isObject ? members : nil
            }
        }
        return try result.get()
    }

    @Test func readsEveryMemberInOrderWithDuplicatesKept() throws {
        let read = try #require(try members(#" { "b" : [1, {"x": null}], "a": "s", "b": true } "#))
        #expect(read.map(\.0) == ["b", "a", "b"])
        #expect(read.map(\.1) == [.array([.integer(1), .object([("x", .null)])]), .string("s"), .bool(true)])
    }

    @Test func keysWithEscapesOrBeyondASCIIAreDecoded() throws {
        let read = try #require(try members(#"{"\u0071uery": 1, "caf\u00e9": 2, "naïve": 3, "a\"b": 4}"#))
        #expect(read.map(\.0) == ["query", "café", "naïve", "a\"b"])
    }

    @Test func emptyObjectHasNoMembers() throws {
        #expect(try members(" {} ")?.isEmpty == true)
    }

    @Test(arguments: ["[1]", "\"s\"", "1", "null", "", "x{}"])
    func textNotStartingAnObjectIsNotReadAtAll(text: String) throws {
        #expect(try members(text) == nil)
    }

    @Test(arguments: ["{", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1} x", "{\"a\":1}{}", "{\"a\":[1}", "{\"\u{01}\":1}"])
    func invalidObjectsThrow(text: String) {
        #expect(throws: JSONReader.Failure.self) { _ = try members(text) }
    }

    @Test func stringOrNullReadsPastOtherKinds() throws {
        var text = #"{"s":"x","n":null,"o":{"deep":[1,2]},"a":[],"i":7}"#
        var seen: [String??] = []
        let isObject: Bool = try text.withUTF8 { utf8 in
            try JSONReader.readObject(UnsafeRawBufferPointer(utf8)) { _, reader throws(JSONReader.Failure) in
                seen.append(try reader.stringOrNull())
            }
        }
        #expect(isObject)
        #expect(seen == [.some("x"), .some(nil), nil, nil, nil])
    }
}
