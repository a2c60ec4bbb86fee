import CCurl
import CCurlShims
import GQLGateCore
@testable import GQLGateHTTPClient
import Testing

/// The parts of an upstream request gqlgate hands to libcurl ready-made: the
/// header lines as one `curl_slist`, and the URL parsed once.
@Suite struct CurlRequestPartsTests {
    private func lines(of list: borrowing CurlHeaderList) -> [String] {
        var lines: [String] = []
        var node: UnsafeMutablePointer<curl_slist>? = list.head
        while let current = node {
            lines.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return lines
    }

    @Test func headerListHasTheFirstLineThenOneLinePerFieldInOrder() {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Request-Id": "a1b2", "Accept-Language": "fr-CH, café"]
        let list = CurlHeaderList(first: "Expect:", headers: headers)
        #expect(lines(of: list) == ["Expect:", "Content-Type: application/json", "X-Request-Id: a1b2", "Accept-Language: fr-CH, café"])
    }

    @Test func headerListOfNoFieldsIsTheFirstLineAlone() {
        let list = CurlHeaderList(first: "Expect:", headers: HTTPHeaders())
        #expect(lines(of: list) == ["Expect:"])
        #expect(list.head.pointee.next == nil)
    }

    @Test func headerListKeepsAnEmptyValueAsNameColonSpace() {
        let list = CurlHeaderList(first: "Expect:", headers: ["X-Empty": ""])
        #expect(lines(of: list) == ["Expect:", "X-Empty: "])
    }

    @Test func headerListPutsTheSecondLineAfterTheFirst() {
        let list = CurlHeaderList(first: "Expect:", second: "Accept-Encoding: gzip", headers: ["X-A": "1"])
        #expect(lines(of: list) == ["Expect:", "Accept-Encoding: gzip", "X-A: 1"])
        let alone = CurlHeaderList(first: "Expect:", second: "Accept-Encoding: br", headers: HTTPHeaders())
        #expect(lines(of: alone) == ["Expect:", "Accept-Encoding: br"])
        #expect(alone.head.pointee.next?.pointee.next == nil)
    }

    @Test func theAcceptEncodingLineNamesWhatThisLibcurlDecodes() throws {
        let line = try #require(CurlContentCodings.acceptEncodingLine)
        let features = try #require(curl_version_info(gqlgate_curl_version_now)).pointee.features
        #expect(line.hasPrefix("Accept-Encoding: "))
        #expect(line.contains("gzip") == (features & CURL_VERSION_LIBZ != 0))
        #expect(line.contains("br") == (features & CURL_VERSION_BROTLI != 0))
    }

    @Test func parsedURLKeepsItsTextAndParts() throws {
        let parsed = try #require(CurlParsedURL("http://127.0.0.1:4000/graphql?x=1"))
        #expect(parsed.text == "http://127.0.0.1:4000/graphql?x=1")
        var part: UnsafeMutablePointer<CChar>?
        #expect(curl_url_get(parsed.handle, CURLUPART_PORT, &part, 0) == CURLUE_OK)
        #expect(part.map { String(cString: $0) } == "4000")
        curl_free(part)
        #expect(curl_url_get(parsed.handle, CURLUPART_PATH, &part, 0) == CURLUE_OK)
        #expect(part.map { String(cString: $0) } == "/graphql")
        curl_free(part)
    }

    @Test func urlCurlRejectsIsNotParsed() {
        #expect(CurlParsedURL("http://[::1/graphql") == nil)
        #expect(CurlParsedURL("http://host:99999/graphql") == nil)
    }
}
