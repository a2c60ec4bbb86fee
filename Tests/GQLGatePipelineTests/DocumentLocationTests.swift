@testable import GQLGatePipeline
import Testing

@Suite struct DocumentLocationTests {
    private func place(_ offset: Int, _ text: String) -> String {
        DocumentLocation(utf8Offset: offset, in: text).description
    }

    @Test func linesEndAtLineFeedCarriageReturnOrBoth() {
        #expect(place(0, "{ a }") == "1:1")
        #expect(place(4, "{ a }") == "1:5")
        #expect(place(2, "{\na }") == "2:1")
        #expect(place(3, "{\r\na }") == "2:1")
        #expect(place(2, "{\ra }") == "2:1")
        #expect(place(4, "{\r\n\na }") == "3:1")
        #expect(place(3, "{\r\ra }") == "3:1")
    }

    @Test func columnsCountCharactersNotBytes() {
        let text = "{ a(s: \"é中😀\") }"
        #expect(place(text.utf8.count - 1, text) == "1:15")
    }

    @Test func pastTheEndIsRightAfterTheLastCharacter() {
        #expect(place(99, "{ a") == "1:4")
        #expect(place(99, "{ a\n") == "2:1")
        #expect(place(99, "") == "1:1")
    }

    @Test func asJSON() {
        #expect(DocumentLocation(line: 3, column: 12).json.serialized() == #"{"line":3,"column":12}"#)
    }
}
