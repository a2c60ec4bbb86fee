#if canImport(Glibc)
import Glibc
#endif

/// Reads small files whole (keys, tokens, certificates).
package enum FileText {
    /// The whole file at `path` as UTF-8 text, or nil when it cannot be read or is over `limit` bytes.
    package static func read(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return nil
    }
}
