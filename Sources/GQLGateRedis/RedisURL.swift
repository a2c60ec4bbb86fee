/// Where a Redis server is and how to log in: a
/// `redis://[user[:password]@]host[:port][/db]` URL. The user and password
/// may be percent-encoded; the port defaults to 6379 and the database to 0.
package struct RedisURL: Sendable, Equatable {
    /// The host name or address (an IPv6 address without its brackets).
    package var host: String
    package var port: Int
    /// The ACL user for `AUTH`, when the URL names one.
    package var user: String?
    /// The password for `AUTH`, when the URL has one.
    package var password: String?
    /// The database `SELECT`ed after connecting.
    package var database: Int

    package init(host: String, port: Int = 6379, user: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `text`; throws `RedisError.invalidURL` saying what is wrong (without quoting
    /// `text`, which may hold a password).
    package init(parsing text: String) throws(RedisError) {
        let scheme = "redis://"
        guard text.lowercased().hasPrefix(scheme) else { throw .invalidURL("expected redis://") }
        var rest = Substring(text.dropFirst(scheme.count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let number = Int(path), number >= 0 else { throw .invalidURL("the database must be a number") }
                database = number
            }
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.decoded(userInfo[..<colon])
                password = try Self.decoded(userInfo[userInfo.index(after: colon)...])
            } else {
                user = try Self.decoded(userInfo)
            }
            if user?.isEmpty == true { user = nil }
        }
        var host = rest
        var port = 6379
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidURL("unclosed [ in the host") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL("unexpected text after the host") }
                port = try Self.port(after.dropFirst())
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            port = try Self.port(rest[rest.index(after: colon)...])
        }
        guard !host.isEmpty else { throw .invalidURL("no host") }
        self.init(host: String(host), port: port, user: user, password: password, database: database)
    }

    private static func port(_ text: Substring) throws(RedisError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else { throw .invalidURL("the port must be 1-65535") }
        return port
    }

    private static func decoded(_ text: Substring) throws(RedisError) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .invalidURL("bad percent-encoding")
            }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
