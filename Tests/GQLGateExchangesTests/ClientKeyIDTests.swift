import GQLGateExchanges
import Testing

@Suite struct ClientKeyIDTests {
    @Test func isTheFirstSixteenHexDigitsOfTheKeysSHA256() {
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad (FIPS 180-2)
        #expect(ClientKeyID.of("abc") == "ba7816bf8f01cfea")
        #expect(ClientKeyID.of("abd") != ClientKeyID.of("abc"))
    }
}
