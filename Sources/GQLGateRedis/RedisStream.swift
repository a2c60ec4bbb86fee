/// What one non-blocking read, write or handshake step on a `RedisStream` did.
enum RedisStreamStep: Equatable {
    /// Moved this many bytes (0 for a handshake that finished).
    case done(Int)
    /// Nothing can move until the socket is readable (`wantsWrite` false) or writable (true).
    case wouldBlock(wantsWrite: Bool)
    /// The server closed the stream (a read only).
    case closed
    /// The stream is broken; the text says why.
    case failed(String)
}

/// The bytes of one Redis connection over a connected non-blocking socket:
/// as they are (`RedisPlainStream`) or through TLS (`RedisTLSStream`). The
/// connection owns the socket's epoll registration and closes the socket;
/// the stream only reads, writes and (for TLS) handshakes on it.
///
/// Loop-bound: used only on the connection's loop.
protocol RedisStream: AnyObject {
    /// Moves the handshake on; `.done(0)` once it is over (at once without TLS).
    func handshake() -> RedisStreamStep
    /// Reads at most `buffer.count` bytes.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> RedisStreamStep
    /// Writes a prefix of `bytes`. After `.wouldBlock`, the next call must
    /// pass the same bytes again (TLS resends the record it had begun).
    func write(_ bytes: UnsafeRawBufferPointer) -> RedisStreamStep
    /// Whether bytes already received are waiting to be read without the
    /// socket becoming readable again (TLS decrypts whole records).
    var hasBufferedBytes: Bool { get }
}
