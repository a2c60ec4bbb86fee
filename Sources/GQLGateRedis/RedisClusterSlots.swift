/// Which Redis Cluster slot holds a key, and which node serves each slot.
///
/// A key's slot is the CRC-16 (XMODEM) of the key modulo 16384, or of its
/// hash tag: the text between the first `{` and the next `}`, when not empty,
/// so that keys sharing a tag share a slot.
struct RedisClusterSlots {
    static let count = 16384

    /// The node index serving each slot; -1 while unknown.
    private var owners = [Int16](repeating: -1, count: RedisClusterSlots.count)
    /// The nodes, as `CLUSTER SLOTS` named them.
    private(set) var nodes: [RedisServerAddress] = []

    /// Whether any slot has a node.
    var isKnown: Bool { !nodes.isEmpty }

    /// The node serving `slot`.
    func node(for slot: Int) -> RedisServerAddress? {
        let owner = owners[slot]
        return owner >= 0 ? nodes[Int(owner)] : nil
    }

    /// Records that `node` serves `slot` now (a `MOVED` reply).
    mutating func move(_ slot: Int, to node: RedisServerAddress) {
        owners[slot] = Int16(index(of: node))
    }

    private mutating func index(of node: RedisServerAddress) -> Int {
        if let index = nodes.firstIndex(of: node) { return index }
        nodes.append(node)
        return nodes.count - 1
    }

    /// The map a `CLUSTER SLOTS` reply gives (masters only), asked of `asked`
    /// (a node that names itself with an empty host means `asked`'s host);
    /// nil for a reply of another shape.
    static func parse(_ reply: RedisReply, askedOf asked: RedisServerAddress) -> RedisClusterSlots? {
        guard let ranges = reply.elements else { return nil }
        var map = RedisClusterSlots()
        for range in ranges {
            guard let fields = range.elements, fields.count >= 3, let first = fields[0].integer, let last = fields[1].integer,
                  let master = fields[2].elements, master.count >= 2, let hostBytes = master[0].bytes, let port = master[1].integer,
                  0 <= first, first <= last, last < count else { return nil }
            let host = hostBytes.isEmpty || hostBytes == Array("?".utf8) ? asked.host : String(decoding: hostBytes, as: UTF8.self)
            let owner = Int16(map.index(of: RedisServerAddress(host: host, port: Int(port))))
            for slot in Int(first)...Int(last) { map.owners[slot] = owner }
        }
        return map.isKnown ? map : nil
    }

    /// The slot of `key`.
    static func slot(of key: some Collection<UInt8>) -> Int {
        var hashed = key[...]
        if let open = key.firstIndex(of: UInt8(ascii: "{")) {
            let rest = key[key.index(after: open)...]
            if let close = rest.firstIndex(of: UInt8(ascii: "}")), close != rest.startIndex { hashed = key[rest.startIndex..<close] }
        }
        var crc: UInt16 = 0
        for byte in hashed {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return Int(crc) % count
    }
}

/// The key a command is routed by in a cluster: the first key it names, for
/// the commands gqlgate sends (the others go to any node).
enum RedisCommandKey {
    /// The first key of `arguments`, nil for a command without one.
    static func of(_ arguments: [[UInt8]]) -> [UInt8]? {
        guard let name = arguments.first, arguments.count > 1 else { return nil }
        switch String(decoding: name, as: UTF8.self).uppercased() {
        case "EVAL", "EVALSHA", "FCALL":
            guard arguments.count > 3, let keys = Int(String(decoding: arguments[2], as: UTF8.self)), keys > 0 else { return nil }
            return arguments[3]
        case "PING", "INFO", "CLUSTER", "SCRIPT", "ASKING", "ROLE", "PUBLISH", "SUBSCRIBE", "FLUSHALL", "FLUSHDB", "DBSIZE":
            return nil
        default:
            return arguments[1]
        }
    }
}
