import CHiredis

extension RedisReply {
    /// Copies hiredis' reply (which hiredis frees after the callback).
    init(hiredis reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            self = .bulk(Self.bytes(value.str, count: value.len))
        case REDIS_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(value.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(value.elements)
            for i in 0..<value.elements {
                elements.append(value.element[i].map { RedisReply(hiredis: $0) } ?? .null)
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
