@_spi(GQLGateInternals) package import GQLGateCore

/// The admin API's token (`admin.token_file`): the file's contents with the
/// whitespace around them (a trailing newline) trimmed. A request carries it
/// as `Authorization: Bearer <token>`. Only its SHA-256 digest is kept, and a
/// presented token's digest is compared with it in constant time. The file is
/// read again when it changes (checked at most once a second); one that
/// becomes unreadable or empty keeps the token read last.
package final class AdminToken: Sendable {
    /// Why the token file could not be used.
    package struct FileError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    private struct State: Sendable {
        var file: WatchedFile
        var digest: [UInt8]
    }

    private let state: Lock<State>
    private let clock: GatewayClock

    /// Reads the token file; throws when it cannot be read or is empty.
    /// - Parameter clock: when the file was last checked (tests move it).
    package init(file path: String, clock: GatewayClock = .system) throws(FileError) {
        var file = WatchedFile(path: path, sizeLimit: 64 << 10)
        guard let token = file.read(now: clock.monotonicNanoseconds()).flatMap(Self.token(in:)) else {
            throw FileError(description: "\"\(path)\" is missing, unreadable or empty")
        }
        state = Lock(State(file: file, digest: Self.digest(token)))
        self.clock = clock
    }

    /// The token a file's text holds: the text without the whitespace around it; nil when that leaves nothing.
    package static func token(in text: String) -> String? {
        let token = text.trimmingASCIIWhitespace()
        return token.isEmpty ? nil : String(token)
    }

    /// Whether `headers` carry the token as `Authorization: Bearer <token>`;
    /// the time taken does not depend on how much of it matched.
    package func accepts(_ headers: HTTPHeaders) -> Bool {
        guard let presented = Self.presentedToken(in: headers) else { return false }
        let expected = state.withLock { state -> [UInt8] in
            let time = clock.monotonicNanoseconds()
            if state.file.hasChanged(now: time), let token = state.file.read(now: time).flatMap(Self.token(in:)) {
                state.digest = Self.digest(token)
            }
            return state.digest
        }
        let digest = Self.digest(presented)
        var difference: UInt8 = 0
        for index in 0..<digest.count {
            difference |= digest[index] ^ expected[index]
        }
        return difference == 0
    }

    /// The token of `Authorization: Bearer <token>` (the scheme in any case); nil without one.
    package static func presentedToken(in headers: HTTPHeaders) -> String? {
        guard let authorization = headers["authorization"] else { return nil }
        let parts = authorization.trimmingASCIISpaces().split(separator: " ", maxSplits: 1)
        guard parts.count == 2, String(parts[0]).equalsIgnoringASCIICase("bearer") else { return nil }
        let token = parts[1].trimmingASCIISpaces()
        return token.isEmpty ? nil : String(token)
    }

    private static func digest(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}
