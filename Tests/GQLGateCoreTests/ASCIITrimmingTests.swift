import GQLGateCore
import Testing

@Suite struct ASCIITrimmingTests {
    @Test func spacesAndTabsAreTrimmedFromBothEndsOnly() {
        #expect(" \t value with  inner  spaces \t ".trimmingASCIISpaces() == "value with  inner  spaces")
        #expect("\nline\n".trimmingASCIISpaces() == "\nline\n", "line breaks are not spaces")
        #expect("   ".trimmingASCIISpaces() == "")
        #expect("".trimmingASCIISpaces() == "")
        #expect("\u{A0}x\u{A0}".trimmingASCIISpaces() == "\u{A0}x\u{A0}", "only ASCII spaces")
    }

    @Test func whitespaceTrimmingAlsoTakesLineBreaks() {
        #expect("\r\n key-1 \t\n\r\n".trimmingASCIIWhitespace() == "key-1")
        #expect("a\r\nb".trimmingASCIIWhitespace() == "a\r\nb")
        #expect("\r\n".trimmingASCIIWhitespace() == "")
    }

    @Test func substringsAreTrimmedWithinTheirBounds() {
        let text = "[  inner  ]"
        let inside = text.dropFirst().dropLast()
        #expect(inside.trimmingASCIISpaces() == "inner")
    }
}
