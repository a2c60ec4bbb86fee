import CCurl

/// libcurl's process-wide setup, done once before any handle exists.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    /// Runs `curl_global_init` the first time it is called.
    static func ensureInitialized() {
        precondition(initialized, "curl_global_init failed")
    }
}
