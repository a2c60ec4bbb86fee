import GQLGateCore

/// The client API keys of `clients.api_keys_file`: one key a line, blank
/// lines and lines starting with `#` ignored, surrounding spaces trimmed.
/// Only SHA-256 digests are kept, and a presented key is compared with every
/// one of them in constant time, so neither timing nor a memory dump gives
/// a key away.
struct ClientKeys: Sendable {
    private let digests: [[UInt8]]

    init(fileText: String) {
        digests = fileText.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap { line in
            let key = line.trimmingASCIISpaces()
            guard !key.isEmpty, !key.hasPrefix("#") else { return nil }
            return Self.digest(String(key))
        }
    }

    var count: Int { digests.count }

    /// Whether `key` is one of the keys; the time taken does not depend on which key (if any) matched.
    func contains(_ key: String) -> Bool {
        let presented = Self.digest(key)
        var matched: UInt8 = 1
        for digest in digests {
            var difference: UInt8 = 0
            for index in 0..<presented.count {
                difference |= digest[index] ^ presented[index]
            }
            matched &= difference == 0 ? 0 : 1
        }
        return matched == 0
    }

    private static func digest(_ key: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(key.utf8)))
    }
}
