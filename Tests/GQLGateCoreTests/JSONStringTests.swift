import GQLGateCore
import Testing

@Suite struct JSONStringTests {
    @Test func plainTextIsQuotedAsIs() {
        #expect(JSONString.quoted("hello, wörld ✓") == "\"hello, wörld ✓\"")
        #expect(JSONString.quoted("") == "\"\"")
    }

    @Test func quotesBackslashesAndControlCharactersAreEscaped() {
        #expect(JSONString.quoted("a\"b\\c\nd\re\tf\u{1}g") == #""a\"b\\c\nd\re\tf\u0001g""#)
        #expect(JSONString.quoted("\u{1F}é\u{7F}") == "\"\\u001fé\u{7F}\"")
        #expect(JSONString.quoted("\u{7F}", escapingDelete: true) == #""\u007f""#)
    }

    @Test func escapesNextToMultiByteCharactersKeepThemWhole() {
        #expect(JSONString.quoted("✓\"✓\n🎉") == "\"✓\\\"✓\\n🎉\"")
    }

    @Test func appendsAfterWhatIsThere() {
        var out = "x="
        JSONString.append("y\"", to: &out)
        #expect(out == #"x="y\"""#)
    }
}

@Suite struct ASCIITextTests {
    @Test func findsANeedleWhateverTheCase() {
        #expect("Accept: Text/Event-Stream".containsIgnoringASCIICase("event-stream"))
        #expect("multipart/mixed;subscriptionSpec=1.0".containsIgnoringASCIICase("multipart"))
        #expect(!"application/json".containsIgnoringASCIICase("stream"))
        #expect("anything".containsIgnoringASCIICase(""))
        #expect(!"json".containsIgnoringASCIICase("application/json"))
        #expect("text/EVENT-STREAM".dropFirst(5).containsIgnoringASCIICase("event-stream"))
        #expect(!"strea".containsIgnoringASCIICase("stream"))
        #expect("x".containsIgnoringASCIICase(""))
    }
}
