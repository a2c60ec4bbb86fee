import GQLGateCore
import GQLGateExchanges
import Testing

/// `name: value` lines of `headers`, in order.
private func lines(_ headers: HTTPHeaders) -> [String] {
    headers.map { "\($0.name): \($0.value)" }
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
        #expect(lines(HopByHopHeaders.removing(from: upstream)) == [
            "Content-Type: application/json", "Cache-Control: max-age=60", "Set-Cookie: a=1", "Set-Cookie: b=2",
            "X-Request-Id: abc", "ETag: \"v1\"",
        ])
    }

    @Test func namesMatchWhateverTheirCase() {
        let upstream: HTTPHeaders = ["CONNECTION": "close", "transfer-encoding": "chunked", "content-LENGTH": "1", "vary": "Accept"]
        #expect(lines(HopByHopHeaders.removing(from: upstream)) == ["vary: Accept"])
    }

    @Test func dropsFieldsTheConnectionHeaderNames() {
        let upstream: HTTPHeaders = [
            "X-Foo": "1", "Connection": "x-foo", "X-Bar": "2", "Connection": " X-Baz ,\tclose", "X-Baz": "3", "X-Kept": "4",
        ]
        #expect(lines(HopByHopHeaders.removing(from: upstream)) == ["X-Bar: 2", "X-Kept: 4"])
    }

    @Test func endToEndHeadersPassUnchanged() {
        let upstream: HTTPHeaders = ["Content-Type": "application/json", "Age": "3", "X-Cache": "HIT", "Date": "Mon"]
        #expect(lines(HopByHopHeaders.removing(from: upstream)) == lines(upstream))
        #expect(HopByHopHeaders.removing(from: [:]).isEmpty)
    }
}
