import GQLGateCore
import Testing

/// Header names compare without ASCII case; lookups and removals read the fields in place.
@Suite struct HTTPHeadersTests {
    @Test func namesMatchWithoutASCIICaseOnly() {
        #expect("Content-Type".equalsIgnoringASCIICase("content-type"))
        #expect("X-REQUEST-ID".equalsIgnoringASCIICase("x-request-id"))
        #expect(!"x-request-id".equalsIgnoringASCIICase("x-request-ie"))
        #expect(!"a@".equalsIgnoringASCIICase("a`"))  // differ only in bit 0x20, but are not letters
        #expect(!"[".equalsIgnoringASCIICase("{"))
        #expect(!"straße".equalsIgnoringASCIICase("STRASSE"))
        #expect("grüße".equalsIgnoringASCIICase("GRüSSE") == false)
        #expect("a-long-header-name-past-fifteen-bytes".equalsIgnoringASCIICase("A-LONG-HEADER-NAME-PAST-FIFTEEN-BYTES"))
        #expect("".equalsIgnoringASCIICase(""))
    }

    @Test func lookupsFindTheFirstFieldOfAName() {
        let headers: HTTPHeaders = ["Accept": "text/html", "X-Id": "1", "accept": "application/json"]
        #expect(headers["ACCEPT"] == "text/html")
        #expect(headers.contains("x-id"))
        #expect(!headers.contains("x-idd"))
        #expect(headers["Missing"] == nil)
        #expect(headers.values(for: "accept") == ["text/html", "application/json"])
    }

    @Test func removeAllKeepsTheOtherFieldsInOrder() {
        var headers: HTTPHeaders = ["A": "1", "drop": "x", "B": "2", "Drop": "y", "C": "3", "DROP": "z"]
        headers.removeAll { $0.name.equalsIgnoringASCIICase("drop") }
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["A=1", "B=2", "C=3"])
        headers.removeAll { _ in false }
        #expect(headers.count == 3)
        headers.removeAll { _ in true }
        #expect(headers.isEmpty)
    }
}
