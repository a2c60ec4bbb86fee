import GQLGateCore
import Testing

@Suite struct Base64Tests {
    /// RFC 4648 §10's test vectors.
    @Test func encodesAndDecodesTheRFCVectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func refusesWhatIsNotPaddedBase64() {
        #expect(Base64.decode("Zm9") == nil)
        #expect(Base64.decode("Zm9v!A==") == nil)
        #expect(Base64.decode("Z===") == nil)
    }
}
