import CMicroHTTPD
import CMicroHTTPDShims
import DequeModule
@_spi(GQLGateInternals) import GQLGateCore

#if canImport(Glibc)
import Glibc
#endif

/// How a streamed response body ended.
package enum StreamTermination: Sendable, Equatable {
    /// `finish()` was called and every byte was handed to the connection.
    case finished
    /// The client closed the connection, or it broke, before the end.
    case disconnected
    /// More than the buffer limit waited unsent: the client did not read
    /// fast enough, so its connection was closed and the queue freed.
    case tooSlow
}

/// A response body written over time from any thread: each `write` leaves
/// as soon as the client can take it (as HTTP/1.1 chunks), `finish()` ends
/// it. At most `bufferLimit` bytes wait unsent; past that the client is
/// dropped (`tooSlow`) and the queue freed, so a client that stops reading
/// costs bounded memory.
///
/// Answer with `ServerResponse.streaming(status:headers:body:)`. While
/// nothing is queued the server suspends the connection (it counts in
/// `HTTPServer.suspendedRequests`) and the next write or `finish()` resumes
/// it. libmicrohttpd does not poll a suspended connection, so the server
/// watches its socket meanwhile: a client that closes it (or only its
/// sending side) ends the body at once (`disconnected`), keep-alives or not.
package final class StreamingBody: Sendable {
    /// The most bytes that may wait unsent.
    package let bufferLimit: Int
    private let state = Lock(State())

    /// A body that drops its client once more than `bufferLimit` bytes wait unsent.
    package init(bufferLimit: Int = 1 << 20) {
        self.bufferLimit = bufferLimit
    }

    /// Queues `bytes` to send. Returns false, queueing nothing, once the
    /// body ended, was finished, or its client was dropped: stop producing.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Wake?) in
            guard case .open = state.phase else { return (false, nil) }
            guard !bytes.isEmpty else { return (true, nil) }
            state.queue.append(bytes)
            state.queuedBytes += bytes.count
            guard state.queuedBytes > bufferLimit else { return (true, state.takeWake()) }
            state.phase = .dropped
            state.discardQueue()
            if !state.suspended, state.socket >= 0 {
                // The connection is waiting for the client to read: break it so the server closes it now.
                _ = shutdown(state.socket, Int32(SHUT_RDWR))
            }
            return (false, state.takeWake())
        }
        wake?.resume()
        return accepted
    }

    /// Queues the UTF-8 bytes of `text`; see `write(_:)`.
    @discardableResult
    package func write(_ text: String) -> Bool {
        write(Array(text.utf8))
    }

    /// Ends the body once what is queued was sent. Later calls do nothing.
    package func finish() {
        let wake = state.withLock { state -> Wake? in
            guard case .open = state.phase else { return nil }
            state.phase = .finishing
            return state.takeWake()
        }
        wake?.resume()
    }

    /// Calls `handler` once, when the connection is done with the body (on a
    /// server thread: it must not block), or at once if it already is.
    package func onTermination(_ handler: @escaping @Sendable (StreamTermination) -> Void) {
        let ended = state.withLock { state -> StreamTermination? in
            if case .ended(let termination) = state.phase { return termination }
            state.terminationHandler = handler
            return nil
        }
        if let ended { handler(ended) }
    }

    // MARK: - Server side (server threads)

    /// Binds the body to the connection it is sent on, before the response is queued.
    func attach(to connection: OpaquePointer, server: HTTPServer) {
        let socket = gqlgate_mhd_connection_fd(connection)
        let token = socket >= 0 ? server.watch.watchClose(of: socket, for: self) : 0
        state.withLock { state in
            state.connection = ConnectionHandle(pointer: connection, server: server)
            state.socket = socket
            state.closeWatch = token
        }
    }

    /// The client closed the connection (seen by the server's watch, on its
    /// thread): ends the body now; libmicrohttpd closes the connection.
    func clientClosed() {
        let wake = state.withLock { state -> Wake? in
            switch state.phase {
            case .open, .finishing: break
            case .dropped, .gone, .ended: return nil
            }
            state.phase = .gone
            state.discardQueue()
            if !state.suspended, state.socket >= 0 {
                // libmicrohttpd is writing to it: break it, so that the write fails now.
                _ = shutdown(state.socket, Int32(SHUT_RDWR))
            }
            return state.takeWake()
        }
        wake?.resume()
    }

    /// libmicrohttpd's content reader: copies what is queued, or ends the
    /// body, or suspends the connection until the next write (returns 0).
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        state.withLock { state in
            state.noteResumed()
            if state.queuedBytes > 0 { return state.take(into: buffer, capacity: capacity) }
            switch state.phase {
            case .open:
                guard let connection = state.connection else { return Self.endWithError }
                MHD_suspend_connection(connection.pointer)
                state.suspended = true
                connection.server.noteSuspended()
                return 0
            case .finishing:
                return Self.endOfStream
            case .dropped, .gone, .ended:
                return Self.endWithError
            }
        }
    }

    /// The request is over (libmicrohttpd's completed callback): records how
    /// it ended and tells the producer.
    func connectionEnded(completedNormally: Bool) {
        let ending = state.withLock { state -> Ending? in
            let termination: StreamTermination
            switch state.phase {
            case .ended: return nil
            case .dropped: termination = .tooSlow
            case .finishing where completedNormally && state.queuedBytes == 0: termination = .finished
            case .open, .finishing, .gone: termination = .disconnected
            }
            state.noteResumed()
            state.phase = .ended(termination)
            state.discardQueue()
            defer {
                state.connection = nil
                state.socket = -1
                state.closeWatch = 0
                state.terminationHandler = nil
            }
            return Ending(termination: termination, handler: state.terminationHandler, server: state.connection?.server,
                          socket: state.socket, closeWatch: state.closeWatch)
        }
        guard let ending else { return }
        // Before libmicrohttpd closes the socket, which it does after this callback.
        ending.server?.watch.unwatchClose(of: ending.socket, token: ending.closeWatch)
        ending.handler?(ending.termination)
    }

    /// What `connectionEnded` does once out of the lock.
    private struct Ending {
        let termination: StreamTermination
        let handler: (@Sendable (StreamTermination) -> Void)?
        let server: HTTPServer?
        let socket: Int32
        let closeWatch: UInt64
    }

    /// `MHD_CONTENT_READER_END_OF_STREAM` (a cast macro Swift does not import).
    private static let endOfStream = -1
    /// `MHD_CONTENT_READER_END_WITH_ERROR`: the server closes the connection.
    private static let endWithError = -2

    private enum Phase {
        case open
        case finishing
        case dropped
        /// The client closed the connection.
        case gone
        case ended(StreamTermination)
    }

    private struct State {
        var phase = Phase.open
        var queue = Deque<[UInt8]>()
        var headOffset = 0
        var queuedBytes = 0
        var connection: ConnectionHandle?
        var socket: Int32 = -1
        /// The server watch's token for the socket (`ConnectionWatch.watchClose`); 0: not watched.
        var closeWatch: UInt64 = 0
        /// The reader suspended the connection and the server has not called it again yet.
        var suspended = false
        var resumeRequested = false
        var terminationHandler: (@Sendable (StreamTermination) -> Void)?

        mutating func take(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
            var copied = 0
            while copied < capacity, let head = queue.first {
                let count = min(head.count - headOffset, capacity - copied)
                head.withUnsafeBytes { source in
                    (buffer + copied).copyMemory(from: source.baseAddress! + headOffset, byteCount: count)
                }
                copied += count
                headOffset += count
                if headOffset == head.count {
                    queue.removeFirst()
                    headOffset = 0
                }
            }
            queuedBytes -= copied
            return copied
        }

        mutating func discardQueue() {
            queue = Deque()
            headOffset = 0
            queuedBytes = 0
        }

        /// The resume a suspended connection needs, once.
        mutating func takeWake() -> Wake? {
            guard suspended, !resumeRequested, let connection else { return nil }
            resumeRequested = true
            return Wake(connection: connection)
        }

        /// The server runs the connection again (server thread): it no longer
        /// counts as suspended. Counted here, not at the resume call, so that
        /// `suspendedRequests` reaches 0 only once the server really resumed it.
        mutating func noteResumed() {
            guard suspended else { return }
            suspended = false
            resumeRequested = false
            connection?.server.noteResumed()
        }
    }

    /// Resumes a connection the reader suspended; run outside the lock.
    private struct Wake {
        let connection: ConnectionHandle

        func resume() {
            connection.server.resume(connection.pointer)
        }
    }
}

/// A libmicrohttpd connection and its server.
///
/// `@unchecked Sendable`: the pointer is only handed to
/// `MHD_resume_connection` (thread-safe) off the server threads, and only
/// while the connection is suspended, so it cannot be freed meanwhile.
private struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    let server: HTTPServer
}

/// libmicrohttpd's content reader for a `StreamingBody` (its `cls`).
let readStreamingBody: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
    guard let cls, let buffer else { return -2 }
    return Unmanaged<StreamingBody>.fromOpaque(cls).takeUnretainedValue().read(into: UnsafeMutableRawPointer(buffer), capacity: capacity)
}

/// Drops the response's reference to its `StreamingBody`.
let releaseStreamingBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamingBody>.fromOpaque(cls).release()
}
