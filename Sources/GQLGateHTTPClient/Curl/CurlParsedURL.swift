import CCurl
import CCurlShims

/// A URL parsed once by libcurl (`CURLU`), lent to transfers with
/// `CURLOPT_CURLU`: each transfer then copies the parsed parts instead of
/// parsing the text and printing it back (about 10k instructions a request).
/// Loop-bound: kept by one loop's `CurlTransferPool` and lent to its transfers.
final class CurlParsedURL {
    /// The text it was parsed from, also set as `CURLOPT_URL` (what curl reports).
    let text: String
    let handle: OpaquePointer

    /// Parses `text` as curl would for `CURLOPT_URL`; nil when curl rejects it
    /// (the caller then sets the text alone, and curl reports the error).
    init?(_ text: String) {
        guard let handle = curl_url() else { return nil }
        // The flags curl itself parses a CURLOPT_URL with.
        let flags = UInt32(CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME)
        guard curl_url_set(handle, CURLUPART_URL, text, flags) == CURLUE_OK else {
            curl_url_cleanup(handle)
            return nil
        }
        self.text = text
        self.handle = handle
    }

    deinit {
        curl_url_cleanup(handle)
    }
}

@available(*, unavailable)
extension CurlParsedURL: Sendable {}
