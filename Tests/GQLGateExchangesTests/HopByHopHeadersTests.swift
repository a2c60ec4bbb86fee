import GQLGateCore
import GQLGateExchanges
import Testing

/// `name: value` lines of `headers`, in order.
private func lines(_ headers: HTTPHeaders) -> [String] {
    headers.map { "\($0.name): \($0.value)" }
}

/// `headers` after `HopByHopHeaders.remove(from:alsoRemoving:)`.
private func kept(_ headers: HTTPHeaders, alsoRemoving replaced: String? = nil) -> HTTPHeaders {
    var headers = headers
    HopByHopHeaders.remove(from: &headers, alsoRemoving: replaced)
    return headers
}

@Suite struct HopByHopHeadersTests {
    @Test func dropsHopByHopFieldsAndKeepsTheRestInOrder() {
        let upstream: HTTPHeaders = [
            "Content-Type": "application/json", "Connection": "keep-alive", "Keep-Alive": "timeout=5",
            "Transfer-Encoding": "chunked", "Cache-Control": "max-age=60", "Upgrade": "h2c", "TE": "trailers",
            "Trailer": "Expires", "Proxy-Authenticate": "Basic", "Proxy-Authorization": "Basic eA==",
            "Proxy-Connection": "keep-alive", "Content-Length": "42", "Set-Cookie": "a=1", "Set-Cookie": "b=2",
            "X-Request-Id": "abc", "ETag": "\"v1\"",
        ]
        #expect(lines(kept(upstream)) == [
            "Content-Type: application/json", "Cache-Control: max-age=60", "Set-Cookie: a=1", "Set-Cookie: b=2",
            "X-Request-Id: abc", "ETag: \"v1\"",
        ])
    }

    @Test func namesMatchWhateverTheirCase() {
        let upstream: HTTPHeaders = ["CONNECTION": "close", "transfer-encoding": "chunked", "content-LENGTH": "1", "vary": "Accept"]
        #expect(lines(kept(upstream)) == ["vary: Accept"])
    }

    @Test func dropsFieldsTheConnectionHeaderNames() {
        let upstream: HTTPHeaders = [
            "X-Foo": "1", "Connection": "x-foo", "X-Bar": "2", "Connection": " X-Baz ,\tclose", "X-Baz": "3", "X-Kept": "4",
        ]
        #expect(lines(kept(upstream)) == ["X-Bar: 2", "X-Kept: 4"])
    }

    @Test func endToEndHeadersPassUnchanged() {
        let upstream: HTTPHeaders = ["Content-Type": "application/json", "Age": "3", "X-Cache": "HIT", "Date": "Mon"]
        #expect(lines(kept(upstream)) == lines(upstream))
        #expect(kept([:]).isEmpty)
    }

    @Test func alsoRemovesTheFieldTheCallerSetsItselfWhateverItsCase() {
        let upstream: HTTPHeaders = ["x-request-id": "upstream's", "Content-Length": "2", "Vary": "Accept", "X-REQUEST-ID": "again"]
        #expect(lines(kept(upstream, alsoRemoving: "X-Request-Id")) == ["Vary: Accept"])
    }
}
