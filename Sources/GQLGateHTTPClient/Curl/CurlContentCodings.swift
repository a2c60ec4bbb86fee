import CCurl
import CCurlShims

/// The content codings asked of the upstream, as the `Accept-Encoding` line
/// sent when a request accepts compressed answers: brotli and gzip, those of
/// them this libcurl build decodes (`curl_version_info`, read once; Debian's
/// decodes both).
///
/// The line goes in the request's own header list: libcurl then leaves out
/// the one it would format for `CURLOPT_ACCEPT_ENCODING` on every request
/// (its printf, about 3,000 instructions), while that option, set on the
/// handle, still makes it decode the answer. libcurl copies each header line
/// byte by byte (some 80 instructions a byte), so the line names only the
/// codings GraphQL servers use: not zstd, nor deflate (gzip's data without
/// its checksum), which libcurl decodes all the same if an upstream sends them.
enum CurlContentCodings {
    /// `Accept-Encoding: br, gzip` or the part of it this build decodes; nil when it decodes neither.
    static let acceptEncodingLine: String? = {
        CurlGlobal.ensureInitialized()
        guard let info = curl_version_info(gqlgate_curl_version_now) else { return nil }
        let features = info.pointee.features
        var codings: [String] = []
        if features & CURL_VERSION_BROTLI != 0 { codings.append("br") }
        if features & CURL_VERSION_LIBZ != 0 { codings.append("gzip") }
        return codings.isEmpty ? nil : "Accept-Encoding: " + codings.joined(separator: ", ")
    }()
}
