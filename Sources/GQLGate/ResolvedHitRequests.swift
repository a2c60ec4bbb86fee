import GQLGateCore
import GQLGateExchanges
import GQLGateHTTPServer
import GQLGatePipeline
import Synchronization

/// Requests the cache-hit shortcut has already worked out, by their exact
/// bytes: method, content type, query parameters, body and the values of
/// `cache.vary_headers`. A client repeating a request byte for byte (what
/// cache hits mostly are) skips decoding, document analysis, limits and key
/// hashing: its `RequestKey` is looked up here instead.
///
/// Only requests that carried their query text are remembered (not APQ
/// hashes alone, whose meaning depends on the APQ store), and only after
/// they passed every check once. One set per pipeline, so a reload that
/// changes limits or vary headers starts afresh. Bounded by `maxBytes` of
/// request text: when full it is emptied and fills again with the requests
/// still repeated (cheaper than keeping recency on every hit).
final class ResolvedHitRequests: Sendable {
    /// A request as bytes, for equality and hashing.
    struct Fingerprint: Hashable, Sendable {
        let bytes: [UInt8]

        /// `request`'s method, content type, query parameters, body and the
        /// values of `varyHeaders`, each part ended by a NUL (which none contains).
        init(_ request: ServerRequest, varyHeaders: [String]) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(request.body.count + 64)
            func part(_ text: String) {
                bytes.append(contentsOf: text.utf8)
                bytes.append(0)
            }
            part(request.method)
            part(request.headers["content-type"] ?? "")
            for item in request.queryItems {
                part(item.name)
                part(item.value ?? "\u{1}")
            }
            part("")
            request.body.withUnsafeBytes { bytes.append(contentsOf: $0) }
            bytes.append(0)
            for name in varyHeaders {
                for value in request.headers.values(for: name) { part(value) }
                part("")
            }
            self.bytes = bytes
        }

        static func == (lhs: Fingerprint, rhs: Fingerprint) -> Bool {
            lhs.bytes == rhs.bytes
        }

        /// The bytes in one piece (an array's own hashing takes them one by one).
        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// What the shortcut worked out for a request.
    struct Resolved: Sendable {
        let key: RequestKey
        let trace: RequestTrace.Snapshot
    }

    /// Up to 4 MiB of request text.
    static let maxBytes = 4 << 20

    private struct Entries: Sendable {
        var byFingerprint: [Fingerprint: Resolved] = [:]
        var bytes = 0
    }

    private let entries = Mutex(Entries())

    func resolved(_ fingerprint: Fingerprint) -> Resolved? {
        entries.withLock { $0.byFingerprint[fingerprint] }
    }

    func remember(_ resolved: Resolved, for fingerprint: Fingerprint) {
        let cost = fingerprint.bytes.count + 64
        entries.withLock { entries in
            if entries.bytes + cost > Self.maxBytes {
                entries.byFingerprint.removeAll()
                entries.bytes = 0
            }
            if entries.byFingerprint.updateValue(resolved, forKey: fingerprint) == nil { entries.bytes += cost }
        }
    }
}
