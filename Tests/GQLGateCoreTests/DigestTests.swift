import GQLGateCore
import Testing

/// SHA-256 and SHA-1 against the FIPS 180 examples.
@Suite struct DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256OfTextAtOnceAndInPartsIsTheStandardsDigest(text: String, hex: String) {
        #expect(SHA256.hash(data: Array(text.utf8)).hexString == hex)
        var hasher = SHA256()
        for byte in text.utf8 { hasher.update(data: [byte]) }
        let parts = hasher.finalize()
        #expect(parts.hexString == hex)
        #expect(parts == SHA256.hash(data: Array(text.utf8)))
        #expect(Array(parts).count == 32)
    }

    @Test func sha256OfAMillionAs() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(bytes.withUnsafeBytes { SHA256.hash(data: $0) }.hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha1OfTextIsTheStandardsDigest() {
        #expect(SHA1.hash(data: Array("abc".utf8)).lowercaseHex == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }
}
