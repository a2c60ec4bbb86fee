@testable import GQLGateHTTPServer
import Testing

/// RFC 9112 §6.3 as the server applies it, from the header fields alone.
@Suite struct RequestFramingTests {
    private func verdict(_ fields: [(String, String)], limit: Int = 1000) -> RequestFraming.Verdict {
        var framing = RequestFraming()
        for (name, value) in fields {
            Array(name.utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { value in framing.note(name: name, value: value) }
            }
        }
        return framing.verdict(maxBodyBytes: limit)
    }

    @Test func noBodyOrOneLengthWithinTheLimitIsRead() {
        #expect(verdict([("Host", "x")]) == .accept(closeAfterAnswer: false))
        #expect(verdict([("Content-Length", "1000")]) == .accept(closeAfterAnswer: false))
        #expect(verdict([("content-length", "12"), ("CONTENT-LENGTH", "12")]) == .accept(closeAfterAnswer: false))
    }

    @Test func lengthsOverTheLimitAreTooLargeHoweverLarge() {
        #expect(verdict([("Content-Length", "1001")]) == .tooLarge)
        #expect(verdict([("Content-Length", "18446744073709551615")]) == .tooLarge)
        #expect(verdict([("Content-Length", "99999999999999999999999")]) == .tooLarge)
    }

    @Test func lengthsThatDisagreeOrAreNoNumberAreRefused() {
        #expect(verdict([("Content-Length", "5"), ("Content-Length", "6")]) == .refused(.invalidContentLength))
        #expect(verdict([("Content-Length", "0"), ("Content-Length", "5")]) == .refused(.invalidContentLength))
        #expect(verdict([("Content-Length", "5x")]) == .refused(.invalidContentLength))
        #expect(verdict([("Content-Length", "")]) == .refused(.invalidContentLength))
        #expect(verdict([("Content-Length", "-1")]) == .refused(.invalidContentLength))
    }

    @Test func onlyOneFinalChunkedIsAccepted() {
        #expect(verdict([("Transfer-Encoding", "chunked")]) == .accept(closeAfterAnswer: false))
        #expect(verdict([("Transfer-Encoding", " Chunked ")]) == .accept(closeAfterAnswer: false))
        for codings in ["gzip", "identity, chunked", "gzip, chunked", "chunked, gzip", "chunked, chunked", ""] {
            #expect(verdict([("Transfer-Encoding", codings)]) == .refused(.unsupportedTransferCoding), "\(codings)")
        }
        #expect(verdict([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "gzip")]) == .refused(.unsupportedTransferCoding))
        #expect(RequestFraming.Verdict.refused(.unsupportedTransferCoding) != .refused(.invalidContentLength))
        #expect(FramingRefusal.unsupportedTransferCoding.status == 501)
        #expect(FramingRefusal.invalidContentLength.status == 400)
    }

    /// With both, the length is ignored (even when over the limit) but the
    /// connection is not used again: a proxy in front may have read the length.
    @Test func transferEncodingWithContentLengthClosesAfterTheAnswer() {
        #expect(verdict([("Content-Length", "5"), ("Transfer-Encoding", "chunked")]) == .accept(closeAfterAnswer: true))
        #expect(verdict([("Transfer-Encoding", "chunked"), ("Content-Length", "99999")]) == .accept(closeAfterAnswer: true))
        #expect(verdict([("Transfer-Encoding", "gzip"), ("Content-Length", "5")]) == .refused(.unsupportedTransferCoding))
    }

    @Test func otherFieldsOfTheSameLengthDoNotCount() {
        #expect(verdict([("Content-Lengtx", "abc"), ("Transfer-Encodinx", "gzip")]) == .accept(closeAfterAnswer: false))
        #expect(verdict([("Content\u{0D}Length", "abc")]) == .accept(closeAfterAnswer: false))
    }
}
