import Crypto
@testable import GQLGateExchanges
import Testing

/// The digests a `RequestKey` is made of are the SHA-256 of its parts, remembered or not.
@Suite struct RequestKeyDigestsTests {
    private func sha256Words(_ parts: [UInt8]) -> [UInt64] {
        SHA256.hash(data: parts).withUnsafeBytes { bytes in
            (0..<4).map { bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) }
        }
    }

    private func words(_ digest: RequestKeyDigests.Words) -> [UInt64] {
        [digest.0, digest.1, digest.2, digest.3]
    }

    @Test func aDigestIsTheSHA256OfThePartsTheFirstTimeAndEveryTimeAfter() {
        let digests = RequestKeyDigests()
        let parts = Array("\u{1}query Q { a }\u{0}Q\u{0}\u{0}".utf8)
        #expect(words(digests.digest(of: parts)) == sha256Words(parts))
        #expect(words(digests.digest(of: parts)) == sha256Words(parts))
    }

    @Test func partsThatDifferInOneByteGetTheirOwnDigests() {
        let digests = RequestKeyDigests()
        let one = Array("a\u{0}b\u{0}".utf8), other = Array("a\u{0}c\u{0}".utf8)
        _ = digests.digest(of: one)
        #expect(words(digests.digest(of: other)) == sha256Words(other))
        #expect(words(digests.digest(of: one)) == sha256Words(one))
    }

    @Test func whenFullItDropsTheOldestAndStaysRight() {
        let digests = RequestKeyDigests()
        let big = [UInt8](repeating: 7, count: RequestKeyDigests.maxBytes / 2)
        var other = big
        other[0] = 8
        for parts in [big, other, big, other] {  // each fills half, so older ones are dropped on the way
            #expect(words(digests.digest(of: parts)) == sha256Words(parts))
        }
        let tooBig = [UInt8](repeating: 1, count: RequestKeyDigests.maxBytes + 1)
        #expect(words(digests.digest(of: tooBig)) == sha256Words(tooBig))
    }
}
