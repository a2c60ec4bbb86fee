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

@Suite struct HTTPHeadersEditingTests {
    @Test func addKeepsEarlierFieldsOfTheSameName() {
        var headers = HTTPHeaders()
        headers.add(name: "Vary", value: "Accept")
        headers.add(name: "vary", value: "Origin")
        #expect(headers.values(for: "VARY") == ["Accept", "Origin"])
        #expect(headers["Vary"] == "Accept")
    }

    @Test func replaceOrAddLeavesOneFieldAtTheEnd() {
        var headers: HTTPHeaders = ["Cache-Control": "no-store", "X-Id": "1", "cache-control": "private"]
        headers.replaceOrAdd(name: "Cache-Control", value: "max-age=60")
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["X-Id=1", "Cache-Control=max-age=60"])
        headers.replaceOrAdd(name: "New", value: "v")
        #expect(headers["new"] == "v" && headers.count == 3)
    }

    @Test func removeTakesEveryFieldOfTheNameAndNothingElse() {
        var headers: HTTPHeaders = ["Set-Cookie": "a=1", "Server": "x", "set-cookie": "b=2"]
        headers.remove(name: "SET-COOKIE")
        #expect(headers.map(\.name) == ["Server"])
        headers.remove(name: "Absent")
        #expect(headers.map(\.name) == ["Server"])
    }

    @Test func fieldsReadOffTheWireRepairInvalidUTF8() {
        let field = [UInt8]("X-Name".utf8).withUnsafeBytes { name in
            ([0x61, 0xFF, 0x62] as [UInt8]).withUnsafeBytes { value in HTTPHeaders.Field(name: name, value: value) }
        }
        #expect(field.name == "X-Name")
        #expect(field.value == "a\u{FFFD}b")
    }

    @Test func withFieldsReadsTheFieldsInOrder() {
        let headers: HTTPHeaders = ["A": "1", "B": "2"]
        #expect(headers.withFields { $0.map(\.value) } == ["1", "2"])
    }
}
