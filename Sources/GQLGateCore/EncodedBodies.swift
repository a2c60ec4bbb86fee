
/// The compressed forms of one body, made at most once per coding and kept
/// beside it (by a cached answer), so serving it again costs no compression.
/// Two requests compressing the same body at once may both compress; the
/// first stored form is kept.
package final class EncodedBodies: Sendable {
    private let forms = Lock<[ContentCoding: Bytes]>([:])

    package init() {}

    /// The body in `coding`: the one kept, else `make()`'s result, kept when not nil.
    package func body(_ coding: ContentCoding, orMake make: () -> Bytes?) -> Bytes? {
        if let kept = forms.withLock({ $0[coding] }) { return kept }
        guard let made = make() else { return nil }
        return forms.withLock { forms in
            if let kept = forms[coding] { return kept }
            forms[coding] = made
            return made
        }
    }
}
