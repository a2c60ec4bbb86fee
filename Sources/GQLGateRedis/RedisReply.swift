/// One reply from Redis (RESP2), copied out of hiredis.
package enum RedisReply: Sendable, Equatable {
    /// A simple string (`+OK`).
    case status(String)
    /// An error reply (`-ERR ...`): the server answered, the command failed.
    case error(String)
    case integer(Int64)
    /// A bulk string: the bytes as stored.
    case bulk([UInt8])
    /// A null bulk string or null array (`GET` of a missing key, a `SET NX` that did not set).
    case null
    case array([RedisReply])

    /// The bytes of a bulk string; nil for anything else.
    package var bytes: [UInt8]? {
        if case .bulk(let bytes) = self { return bytes }
        return nil
    }

    /// The integer of an integer reply; nil for anything else.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The elements of an array reply; nil for anything else.
    package var elements: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether this is the `OK` status.
    package var isOK: Bool { self == .status("OK") }
}
