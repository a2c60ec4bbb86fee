import GQLGateCore
import Testing

@Suite struct HeaderValueSafetyTests {
    @Test func lineBreaksAndNULAreUnsafe() {
        #expect("plain value, with; punctuation".isSafeHeaderValue)
        #expect(!"a\rb".isSafeHeaderValue)
        #expect(!"a\nb".isSafeHeaderValue)
        #expect(!"a\u{0}b".isSafeHeaderValue)
    }

    /// CR, LF and NUL are refused in any field; other control characters but
    /// tab only in the fields that go upstream.
    @Test func refusedFieldsAreThoseThatWouldCarryControlCharactersUpstream() {
        let passedOn: (String) -> Bool = { $0.equalsIgnoringASCIICase("accept-language") }
        let split: HTTPHeaders = ["Good": "ok", "Bad": "x\r\nInjected: yes"]
        #expect(split.firstRefusedField(isPassedOn: { _ in false }) == "Bad")
        let verticalTab: HTTPHeaders = ["User-Agent": "a\u{0B}b", "Accept-Language": "en\u{0B}Injected: 1"]
        #expect(verticalTab.firstRefusedField(isPassedOn: passedOn) == "Accept-Language")
        #expect((["User-Agent": "a\u{0B}b"] as HTTPHeaders).firstRefusedField(isPassedOn: passedOn) == nil)
        #expect((["Accept-Language": "en\u{7F}"] as HTTPHeaders).firstRefusedField(isPassedOn: passedOn) == "Accept-Language")
        #expect((["Accept-Language": "en,\tfr"] as HTTPHeaders).firstRefusedField(isPassedOn: passedOn) == nil)
        #expect((["Accept-Language": "fr-CH, fr;q=0.9"] as HTTPHeaders).firstRefusedField(isPassedOn: passedOn) == nil)
    }

    @Test func requestIDsAreKeptOnlyAsOneTo200VisibleASCIICharacters() {
        #expect("3f2a-request.id_42".isAcceptableRequestID)
        #expect(String(repeating: "a", count: 200).isAcceptableRequestID)
        #expect(!String(repeating: "a", count: 201).isAcceptableRequestID)
        #expect(!String(repeating: "a", count: 8000).isAcceptableRequestID)
        #expect(!"".isAcceptableRequestID)
        for bad in ["a b", "a\tb", "a\u{0B}b", "a\u{7F}b", "caf\u{E9}", "a\u{FFFD}b"] {
            #expect(!bad.isAcceptableRequestID, "\(bad.debugDescription)")
        }
    }
}
