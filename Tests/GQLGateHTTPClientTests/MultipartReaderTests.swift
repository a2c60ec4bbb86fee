import GQLGateHTTPClient
import Testing

/// The parts of multipart bodies as servers write them, however the bytes are cut.
@Suite struct MultipartReaderTests {
    /// Feeds `body` in pieces of `piece` bytes, taking the parts completed after each: each part's text, and whether the
    /// close delimiter came.
    private func read(_ body: String, boundary: String = "-", piece: Int = .max) throws -> (parts: [String], finished: Bool) {
        var reader = try #require(MultipartReader(boundary: boundary))
        let bytes = Array(body.utf8)
        var parts: [String] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            bytes[offset..<end].withUnsafeBytes { reader.append($0) }
            offset = end
            while let part = try reader.nextPart() { parts.append(String(decoding: part, as: UTF8.self)) }
        }
        return (parts, reader.isFinished)
    }

    /// Strawberry: the first delimiter opens the body without a CRLF; parts carry Content-Length.
    static let strawberry = "---\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 15\r\n\r\n{\"hasNext\":true}\r\n---"
        + "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 16\r\n\r\n{\"hasNext\":false}\r\n-----\r\n"
    /// The GraphQL over HTTP RFC's example: a CRLF before the first delimiter.
    static let rfc = "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"data\":{},\"hasNext\":true}\r\n---"
        + "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"hasNext\":false}\r\n-----\r\n"

    @Test(arguments: [1, 2, 3, 7, 64, Int.max])
    func partsComeWholeHoweverTheBytesAreCut(piece: Int) throws {
        #expect(try read(Self.strawberry, piece: piece) == (["{\"hasNext\":true}", "{\"hasNext\":false}"], true))
        #expect(try read(Self.rfc, piece: piece) == (["{\"data\":{},\"hasNext\":true}", "{\"hasNext\":false}"], true))
    }

    @Test func aPartIsHandedOnOnceTheDelimiterAfterItCame() throws {
        var reader = try #require(MultipartReader(boundary: "graphql"))
        let first = "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"a\":1}"
        Array(first.utf8).withUnsafeBytes { reader.append($0) }
        #expect(try reader.nextPart() == nil)
        Array("\r\n--graph".utf8).withUnsafeBytes { reader.append($0) }
        #expect(try reader.nextPart() == nil)
        Array("ql".utf8).withUnsafeBytes { reader.append($0) }
        #expect(try reader.nextPart().map { String(decoding: $0, as: UTF8.self) } == "{\"a\":1}")
        #expect(!reader.isFinished)
        #expect(reader.bufferedCount == 0)
        Array("--\r\n".utf8).withUnsafeBytes { reader.append($0) }
        #expect(try reader.nextPart() == nil)
        #expect(reader.isFinished)
    }

    @Test func preambleEpiloguePaddingAndHeaderlessPartsAreSkipped() throws {
        let body = "a preamble\r\n---  \t\r\n\r\n{\"p\":1}\r\n---\r\nX-Other: y\r\n\r\n{\"p\":2}\r\n----- \r\nan epilogue ---\r\n"
        #expect(try read(body, piece: 5) == (["{\"p\":1}", "{\"p\":2}"], true))
    }

    /// Found by the MultipartParts fuzzer: once the start of the body was read past, a boundary without its CRLF is
    /// preamble, however the bytes were cut.
    @Test(arguments: [1, 3, Int.max])
    func onlyTheBodysStartMayOmitTheDelimitersCRLF(piece: Int) throws {
        #expect(try read("preamble\r\n-\r\n{\"a\":1-----\r\nepilogue", piece: piece) == ([], false))
    }

    /// Found by the MultipartParts fuzzer: a reading in pieces refused what a whole one took.
    @Test(arguments: [1, 7, Int.max])
    func moreThan64SpacesAfterADelimiterAreMalformedHoweverTheyCome(piece: Int) throws {
        let body = "---" + String(repeating: "\t", count: 65) + "\r\n\r\n{}\r\n-----\r\n"
        #expect(throws: MultipartReader.Malformed.self) { try read(body, piece: piece) }
        #expect(try read("---" + String(repeating: "\t", count: 64) + "\r\n\r\n{}\r\n-----\r\n", piece: piece) == (["{}"], true))
    }

    @Test func aDelimiterFollowedByOtherTextIsMalformed() throws {
        var reader = try #require(MultipartReader(boundary: "b"))
        Array("\r\n--b\r\n\r\n{\"t\":1}\r\n--bx\r\n".utf8).withUnsafeBytes { reader.append($0) }
        #expect(try reader.nextPart().map { String(decoding: $0, as: UTF8.self) } == "{\"t\":1}")
        #expect(throws: MultipartReader.Malformed.self) { try reader.nextPart() }
    }

    @Test func anUnfinishedBodyIsNotFinished() throws {
        #expect(try read("\r\n---\r\n\r\n{\"hasNext\":true}\r\n---\r\n\r\n{\"has") == (["{\"hasNext\":true}"], false))
    }

    @Test func aHeaderBlockThatNeverEndsIsMalformed() throws {
        var reader = try #require(MultipartReader(boundary: "-"))
        let body = "---\r\n" + String(repeating: "X-Filler: yes\r\n", count: 1000)
        Array(body.utf8).withUnsafeBytes { reader.append($0) }
        #expect(throws: MultipartReader.Malformed.self) { try reader.nextPart() }
    }

    @Test(arguments: [
        ("multipart/mixed; boundary=\"-\"", "-"),
        ("multipart/mixed;boundary=\"graphql\";deferSpec=20220824", "graphql"),
        ("Multipart/Mixed; deferSpec=20220824; boundary=abc", "abc"),
    ])
    func theBoundaryComesFromTheContentType(contentType: String, boundary: String) {
        #expect(MultipartReader.boundary(ofMultipartMixed: contentType) == boundary)
    }

    @Test(arguments: ["application/json", "multipart/mixed", "multipart/mixed; boundary=\"\"", "multipart/form-data; boundary=x"])
    func otherTypesHaveNone(contentType: String) {
        #expect(MultipartReader.boundary(ofMultipartMixed: contentType) == nil)
        #expect(MultipartReader(contentType: contentType) == nil)
    }
}
