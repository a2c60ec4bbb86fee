import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A one-connection-at-a-time HTTP/1.1 peer on 127.0.0.1 that reads each
/// request's header block (and its `Content-Length` body), keeps the header
/// block, and writes a prepared answer, then closes the connection.
final class CannedHTTPPeer: @unchecked Sendable {
    private let listener: RudeListener
    private let lock = NSLock()
    private var headerBlocks: [String] = []
    private var thread: Thread?

    var port: UInt16 { listener.port }

    /// Serves `answers` in order, one a connection, on a thread of its own.
    init(answers: [[UInt8]]) throws {
        listener = try RudeListener()
        let fd = listener.fd
        let thread = Thread { [self] in
            for answer in answers {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                let head = Self.readRequest(connection)
                lock.withLock { headerBlocks.append(head) }
                answer.withUnsafeBytes { bytes in
                    var sent = 0
                    while sent < bytes.count {
                        let written = send(connection, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                        if written <= 0 { break }
                        sent += written
                    }
                }
                Glibc.close(connection)
            }
        }
        self.thread = thread
        thread.start()
    }

    /// The header blocks of the requests read so far, lower-cased.
    var requests: [String] { lock.withLock { headerBlocks } }

    func close() { listener.close() }

    /// An answer with `fields` (each "Name: value") and `body`, framed by `Content-Length`.
    static func answer(_ fields: [String], body: [UInt8]) -> [UInt8] {
        let head = (["HTTP/1.1 200 OK", "Content-Length: \(body.count)", "Connection: close"] + fields).joined(separator: "\r\n")
        return Array((head + "\r\n\r\n").utf8) + body
    }

    private static func readRequest(_ connection: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headEnd: Int?
        while true {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            if headEnd == nil, let range = findEnd(received) { headEnd = range }
            if let headEnd {
                let head = String(decoding: received[0..<headEnd], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= headEnd + 4 + length { return head }
            }
        }
        return String(decoding: received, as: UTF8.self).lowercased()
    }

    private static func findEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
