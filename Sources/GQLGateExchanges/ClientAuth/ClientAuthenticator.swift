@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// Checks client API keys (`clients.api_keys_file`): a client sends its key
/// as `X-Api-Key: KEY` or `Authorization: Bearer KEY`. The file is read again
/// when it changes (checked at most once a second); a file that becomes
/// unreadable or empty keeps the keys read last, so a botched edit does not
/// lock every client out. Called on the server threads, before the body is read.
package final class ClientAuthenticator: Sendable {
    /// Why the key file could not be used at start.
    package struct FileError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    private struct State: Sendable {
        var file: WatchedFile
        var keys: ClientKeys
    }

    private let state: Lock<State>
    private let clock: GatewayClock

    /// Reads the key file; throws when it cannot be read or holds no key.
    /// - Parameter clock: when the file was last checked (tests move it).
    package init(apiKeysFile path: String, clock: GatewayClock = .system) throws(FileError) {
        var file = WatchedFile(path: path)
        guard let text = file.read(now: clock.monotonicNanoseconds()) else { throw FileError(description: "cannot read \(path)") }
        let keys = ClientKeys(fileText: text)
        guard keys.count > 0 else { throw FileError(description: "\(path) holds no key (one key a line)") }
        state = Lock(State(file: file, keys: keys))
        self.clock = clock
    }

    /// Whether the request's headers carry a valid key.
    package func authenticate(_ headers: HTTPHeaders) -> Bool {
        guard let key = Self.presentedKey(in: headers) else { return false }
        let keys = state.withLock { state -> ClientKeys in
            let time = clock.monotonicNanoseconds()
            if state.file.hasChanged(now: time), let text = state.file.read(now: time) {
                let reread = ClientKeys(fileText: text)
                if reread.count > 0 { state.keys = reread }
            }
            return state.keys
        }
        return keys.contains(key)
    }

    /// The key a client presented: `X-Api-Key`, else the token of `Authorization: Bearer`.
    package static func presentedKey(in headers: HTTPHeaders) -> String? {
        if let key = headers["x-api-key"] { return String(key.trimmingASCIISpaces()) }
        guard let authorization = headers["authorization"] else { return nil }
        let parts = authorization.trimmingASCIISpaces().split(separator: " ", maxSplits: 1)
        guard parts.count == 2, String(parts[0]).equalsIgnoringASCIICase("bearer") else { return nil }
        return String(parts[1].trimmingASCIISpaces())
    }

    /// The 401 answer for a request without a valid key.
    package static let rejection = GatewayError.unauthenticated(
        "A valid client key is required: send X-Api-Key or Authorization: Bearer.")
}
