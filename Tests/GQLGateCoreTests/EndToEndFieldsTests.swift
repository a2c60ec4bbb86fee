import GQLGateCore
import Testing

/// `name: value` lines of `headers`, in order.
private func lines(_ headers: HTTPHeaders) -> [String] {
    headers.map { "\($0.name): \($0.value)" }
}

/// What `EndToEndFields` keeps of `fields`, added one by one as they arrive.
private func kept(_ fields: HTTPHeaders) -> HTTPHeaders {
    var collected = EndToEndFields()
    for field in fields { collected.add(field) }
    return collected.headers()
}

@Suite struct EndToEndFieldsTests {
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

    @Test func dropsFieldsTheConnectionHeaderNamesBeforeOrAfterIt() {
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

    @Test func removeAllStartsOverForTheNextResponse() {
        var collected = EndToEndFields(capacity: 4)
        collected.add(.init(name: "Connection", value: "x-interim"))
        collected.add(.init(name: "X-Interim", value: "1"))
        collected.removeAll()
        collected.add(.init(name: "X-Interim", value: "2"))
        collected.add(.init(name: "Content-Length", value: "2"))
        #expect(lines(collected.headers()) == ["X-Interim: 2"])
    }

    @Test(arguments: [
        ("keep-alive", [String]()), ("Close", []), ("x-a, X-B", ["x-a", "X-B"]), (" upgrade , x-c ,", ["x-c"]), ("close, x-d", ["x-d"]),
    ])
    func connectionValuesNameFields(value: String, named: [String]) {
        #expect(HopByHopHeaders.fieldsNamed(byConnection: value) == named)
    }
}
