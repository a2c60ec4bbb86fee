extension RedisClient.Settings {
    /// The stream over a connected socket to `host`: TLS for `rediss` URLs.
    func makeStream(_ descriptor: Int32, _ host: String) throws(RedisError) -> any RedisStream {
        guard url.tls else { return RedisPlainStream(descriptor: descriptor) }
        guard let tls else { throw .tls("no TLS credentials") }
        return try RedisTLSStream(descriptor: descriptor, credentials: tls, host: host)
    }
}
