/// A non-blocking byte stream driven by a loop (the socket under a WebSocket
/// connection, whoever opened it): reads and writes that never block, the file
/// descriptor to watch in the loop's epoll, and how to close it.
/// Used on its loop's thread only.
package protocol ByteStream: AnyObject {
    /// The descriptor whose readiness drives the stream's user.
    var fileDescriptor: Int32 { get }
    /// Reads at most `buffer.count` bytes without blocking.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamResult
    /// Writes at most `bytes.count` bytes without blocking; `more` says that
    /// more bytes follow at once (a frame header before its payload).
    func send(_ bytes: UnsafeRawBufferPointer, more: Bool) -> ByteStreamResult
    /// Closes the stream; called once, after its user stopped watching the descriptor.
    func close()
}

/// The outcome of one non-blocking read or write.
package enum ByteStreamResult: Sendable, Equatable {
    /// This many bytes (more than 0) were read or written.
    case transferred(Int)
    /// Nothing can be read or written now; wait for readiness.
    case wouldBlock
    /// The peer closed its end (reads only).
    case endOfStream
    /// The stream failed (`errno` or the library's code).
    case failed(Int32)
}
