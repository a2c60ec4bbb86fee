import CCurl

extension HTTPClientError {
    /// The failure libcurl reported with `code`: its message is the transfer's
    /// error buffer, or libcurl's text for the code when the buffer is empty.
    init(curlCode code: CURLcode, errorBuffer: UnsafePointer<CChar>, requestBytesSent: Int) {
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let raw = Int32(bitPattern: code.rawValue)
        self.init(kind: Self.kind(forCurlCode: raw, requestBytesSent: requestBytesSent), code: raw, message: message)
    }
}
