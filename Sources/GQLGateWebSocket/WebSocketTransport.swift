/// The byte stream under a `WebSocketConnection`: non-blocking reads and
/// writes, the file descriptor to watch in the loop's epoll, and how to close it.
/// Used on the connection's loop thread only.
public protocol WebSocketTransport: AnyObject {
    /// The descriptor whose readiness drives the connection.
    var fileDescriptor: Int32 { get }
    /// Reads at most `buffer.count` bytes without blocking.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> WebSocketTransportResult
    /// Writes at most `bytes.count` bytes without blocking; `more` says that
    /// more bytes follow at once (a frame header before its payload).
    func send(_ bytes: UnsafeRawBufferPointer, more: Bool) -> WebSocketTransportResult
    /// Closes the stream; called once, after the connection stopped watching the descriptor.
    func close()
}

/// The outcome of one non-blocking read or write.
public enum WebSocketTransportResult: Sendable, Equatable {
    /// This many bytes (more than 0) were read or written.
    case transferred(Int)
    /// Nothing can be read or written now; wait for readiness.
    case wouldBlock
    /// The peer closed its end (reads only).
    case endOfStream
    /// The stream failed (`errno` or the library's code).
    case failed(Int32)
}
