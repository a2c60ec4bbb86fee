import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 peer on 127.0.0.1 that takes one connection and reads its
/// request, then writes what the test hands it, when the test hands it, on a
/// thread of its own: an upstream that answers over time. It counts the bytes
/// written and tells when the client closed the connection.
final class LiveHTTPPeer: @unchecked Sendable {
    private let listener: RudeListener
    private let condition = NSCondition()
    private var pending: [[UInt8]] = []
    private var closing = false
    private var sent = 0
    private var requestRead = false
    private var clientGone = false

    var port: UInt16 { listener.port }

    init() throws {
        listener = try RudeListener()
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Whether the request came (its header block and `Content-Length` body).
    var hasRequest: Bool { condition.withLock { requestRead } }
    /// Bytes written to the client so far.
    var bytesSent: Int { condition.withLock { sent } }
    /// Whether the client closed the connection (seen once everything handed over was written).
    var clientClosed: Bool { condition.withLock { clientGone } }

    /// Writes `text` to the client after what was handed over before.
    func send(_ text: String) {
        send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) {
        condition.withLock {
            pending.append(bytes)
            condition.broadcast()
        }
    }

    /// Closes the connection once everything handed over was written.
    func finish() {
        condition.withLock {
            closing = true
            condition.broadcast()
        }
    }

    func close() {
        finish()
        listener.close()
    }

    private func serve() {
        let connection = accept(listener.fd, nil, nil)
        guard connection >= 0 else { return }
        defer { Glibc.close(connection) }
        readRequest(connection)
        condition.withLock { requestRead = true }
        while true {
            let next: [UInt8]? = condition.withLock {
                while pending.isEmpty, !closing { condition.wait() }
                return pending.isEmpty ? nil : pending.removeFirst()
            }
            guard let next else { return }
            guard write(next, to: connection) else {
                condition.withLock { clientGone = true }
                return
            }
            if waitForClose(connection) {
                condition.withLock { clientGone = true }
                return
            }
        }
    }

    /// Whether the client closed the connection, checked without waiting for more than a moment when nothing was
    /// handed over to write.
    private func waitForClose(_ connection: Int32) -> Bool {
        while condition.withLock({ pending.isEmpty && !closing }) {
            var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            var byte: UInt8 = 0
            return recv(connection, &byte, 1, Int32(MSG_PEEK)) <= 0
        }
        return false
    }

    private func write(_ bytes: [UInt8], to connection: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = Glibc.send(connection, buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL))
                if count <= 0 { return false }
                written += count
                condition.withLock { sent += count }
            }
            return true
        }
    }

    private func readRequest(_ connection: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { return }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<headEnd.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if text.utf8.count >= text.utf8.distance(from: text.startIndex, to: headEnd.upperBound) + length { return }
        }
    }
}
