@testable import GQLGateWebSocket
import Testing

/// `FrameHeaderCheck` on its own: frame boundaries followed across reads of any size.
@Suite struct FrameHeaderCheckTests {
    /// Passes `chunks` in order; returns how many bytes of each were let through.
    func passed(_ chunks: [[UInt8]]) -> (counts: [Int], failed: Bool) {
        var check = FrameHeaderCheck()
        let counts = chunks.map { chunk in chunk.withUnsafeBytes { check.pass($0) } }
        return (counts, check.failed)
    }

    @Test func letsWellFormedFramesThroughWhateverTheReadSizes() {
        let bytes = frame(1, [UInt8](repeating: 0x61, count: 300), fin: false) + frame(9, Array("ping".utf8))
            + frame(0, [UInt8](repeating: 0x62, count: 70_000)) + frame(8, closePayload(1000, "bye"))
        for size in [1, 2, 3, 7, 4096, bytes.count] {
            let chunks = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
            let result = passed(chunks)
            #expect(result.counts == chunks.map(\.count))
            #expect(!result.failed)
        }
    }

    @Test func stopsAtTheStartOfAMalformedHeader() {
        let good = frame(9, Array("ok".utf8))
        let result = passed([good + frame(9, [], fin: false) + frame(1, [1])])
        #expect(result.counts == [good.count])
        #expect(result.failed)
    }

    @Test func passesNothingOnceAHeaderSplitAcrossReadsTurnsOutMalformed() {
        let result = passed([[0x82, 0xFE, 0], [125, 1, 2, 3, 4], frame(1, [1])])
        #expect(result.counts == [3, 0, 0])
        #expect(result.failed)
    }

    @Test(arguments: [
        ([0x89, 0x7E, 0, 126] as [UInt8], "ping over 125 bytes"),
        ([0x09, 0x80], "fragmented ping"),
        ([0x88, 0x81], "one-byte close"),
        ([0x81, 0x7E, 0, 125], "16-bit length under 126"),
        ([0x81, 0x7F, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], "64-bit length under 65536"),
        ([0x81, 0x7F, 0x80, 0, 0, 0, 0, 1, 0, 0], "64-bit length with the top bit"),
    ])
    func refuses(header: [UInt8], _: String) {
        #expect(passed([header]) == ([0], true))
    }

    @Test func acceptsTheLargestControlFrameAndAnEmptyClose() {
        let bytes = frame(9, [UInt8](repeating: 0, count: 125)) + frame(8, [])
        #expect(passed([bytes]) == ([bytes.count], false))
    }
}
