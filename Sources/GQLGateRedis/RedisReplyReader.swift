import CHiredis
import CHiredisShims

/// Redis replies read out of bytes as they arrive, with hiredis' reader and
/// the bounds of `RedisClient.Settings` (elements and bytes a reply may
/// hold, checked before hiredis allocates for it; what may be buffered).
/// `RedisConnection` reads its socket with the same bounds.
package final class RedisReplyReader {
    /// The bytes are not a Redis reply, or a reply goes past a bound.
    package struct Failure: Error, Equatable {
        package let message: String
    }

    private let reader: UnsafeMutablePointer<redisReader>
    private let limits: UnsafeMutablePointer<gqlgate_redis_reply_limits>
    private let maxBytes: Int

    package init(maxElements: Int, maxBytes: Int) {
        reader = redisReaderCreate()
        limits = .allocate(capacity: 1)
        limits.initialize(to: gqlgate_redis_reply_limits(
            max_elements: Int64(maxElements), max_bytes: Int64(maxBytes), elements: 0, bytes: 0, exceeded: 0))
        gqlgate_redis_limit_reader(reader, limits)
        self.maxBytes = maxBytes
    }

    deinit {
        redisReaderFree(reader)
        limits.deallocate()
    }

    /// The replies `bytes` completes, in order; throws once the input is no
    /// Redis reply or a reply went past a bound (the reader is then spent).
    package func read(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> [RedisReply] {
        if let base = bytes.baseAddress, bytes.count > 0 {
            guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else { throw failure() }
        }
        var replies: [RedisReply] = []
        while true {
            var reply: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &reply) == REDIS_OK else { throw failure() }
            guard let reply else { break }
            replies.append(RedisReply(hiredis: reply.assumingMemoryBound(to: redisReply.self)))
            freeReplyObject(reply)
        }
        if reader.pointee.len - reader.pointee.pos > maxBytes { throw Failure(message: "a reply past \(maxBytes) bytes") }
        return replies
    }

    private func failure() -> Failure {
        if limits.pointee.exceeded != 0 { return Failure(message: "a reply past its bounds") }
        return Failure(message: withUnsafeBytes(of: reader.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
}

@available(*, unavailable)
extension RedisReplyReader: Sendable {}
