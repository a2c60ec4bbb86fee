import Testing
@testable import GQLGateCore

@Suite struct AcceptEncodingTests {
    private func preferred(_ header: String?, _ offered: [ContentCoding] = [.br, .gzip]) -> ContentCoding? {
        AcceptEncoding.preferred(header, offered: offered)
    }

    @Test func theServersOrderBreaksTies() {
        #expect(preferred("gzip, deflate, br") == .br)
        #expect(preferred("br, gzip", [.gzip, .br]) == .gzip)
        #expect(preferred("*") == .br)
        #expect(preferred("gzip;q=0.8, br;q=0.8") == .br)
    }

    @Test func qValuesRankFirst() {
        #expect(preferred("br;q=0.5, gzip") == .gzip)
        #expect(preferred("br;q=0.501, gzip;q=0.5") == .br)
        #expect(preferred("gzip;q=1.0, br;q=0.999") == .gzip)
        #expect(preferred("br ; Q=0.2 , gzip ; q=0.3") == .gzip)
        #expect(preferred("*;q=0.1, gzip;q=0.05") == .br)
    }

    @Test func zeroOrAMalformedQRefusesACoding() {
        #expect(preferred("br;q=0, gzip;q=0") == nil)
        #expect(preferred("br;q=0.000") == nil)
        #expect(preferred("br;q=0, *") == .gzip)
        #expect(preferred("*;q=0") == nil)
        #expect(preferred("br;q=2, gzip") == .gzip)
        #expect(preferred("br;q=0.5000, gzip;q=0.1") == .gzip)
        #expect(preferred("br;q=abc") == nil)
    }

    @Test func codingsNotOfferedOrNoneAcceptedGiveNil() {
        #expect(preferred(nil) == nil)
        #expect(preferred("") == nil)
        #expect(preferred("identity") == nil)
        #expect(preferred("deflate, zstd, compress") == nil)
        #expect(preferred("br", [.gzip]) == nil)
        #expect(preferred("gzip", []) == nil)
    }

    @Test func namesIgnoreCaseAndXGzipIsGzip() {
        #expect(preferred("GZIP") == .gzip)
        #expect(preferred("BR") == .br)
        #expect(preferred("x-gzip") == .gzip)
    }

    @Test func qValueSyntax() {
        #expect(AcceptEncoding.quality("1") == 1000)
        #expect(AcceptEncoding.quality("1.000") == 1000)
        #expect(AcceptEncoding.quality("0.5") == 500)
        #expect(AcceptEncoding.quality("0.05") == 50)
        #expect(AcceptEncoding.quality("0.") == 0)
        for bad in ["1.5", "1.001", "2", ".5", "0.5x", "0.1234", ""] {
            #expect(AcceptEncoding.quality(Substring(bad)) == nil, "\(bad)")
        }
    }
}

@Suite struct EncodedBodiesTests {
    @Test func eachCodingIsMadeOnceAndKept() {
        let kept = EncodedBodies()
        var made = 0
        let first = kept.body(.gzip) { made += 1; return Bytes("g") }
        let second = kept.body(.gzip) { made += 1; return Bytes("other") }
        #expect(made == 1 && first === second && second?.string == "g")
        #expect(kept.body(.br) { nil } == nil)
        #expect(kept.body(.br) { Bytes("b") }?.string == "b")
    }
}
