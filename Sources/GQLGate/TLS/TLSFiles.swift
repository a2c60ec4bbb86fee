import GQLGateConfig
@_spi(GQLGateInternals) import GQLGateCore
import GQLGateHTTPServer

/// The `server.tls` files behind the listener: read at start, and read again
/// when one of them changes on disk (checked at most once a second, off the
/// server threads) and on SIGHUP. Each new set goes into the
/// `TLSCredentialStore`, whose certificate new handshakes get; open
/// connections keep the one their handshake got. A set that cannot be used
/// (a file unreadable, a key that does not match the certificate) keeps the
/// one served, and the next change is tried again. Files are told apart by
/// identity, size and modification time, following symbolic links: a
/// Kubernetes Secret volume's swap of its `..data` link is a change.
final class TLSFiles: Sendable {
    /// What a reading of the files did.
    enum Outcome: Sendable, Equatable {
        /// New handshakes get this certificate from now on.
        case replaced(TLSCredentialStore.Summary?)
        /// The files could not be used: the certificate served stays.
        case kept(ConfigError)
    }

    /// What handshakes read.
    let store: TLSCredentialStore
    private struct State: Sendable {
        var config: TLSConfig
        var files: [WatchedFile]
    }

    private let state: Lock<State>
    private let clock: GatewayClock

    /// Reads the files `config` names; nil when TLS is off.
    /// - Throws: `ConfigError` at the key of a file that cannot be used.
    init?(_ config: TLSConfig, clock: GatewayClock = .system) throws(ConfigError) {
        guard config.isEnabled else { return nil }
        var files = TLSCredentials.files(config)
        let credentials = try TLSCredentials(config, files: &files, now: clock.monotonicNanoseconds())
        do {
            store = try TLSCredentialStore(credentials)
        } catch {
            throw ConfigError(error)
        }
        state = Lock(State(config: config, files: files))
        self.clock = clock
    }

    /// Reads the files again when one changed since they were last read
    /// (looked at once a second at most); nil when none did or it is not time to look.
    func checkForChanges() -> Outcome? {
        state.withLock { state in
            let now = clock.monotonicNanoseconds()
            var changed = false
            for index in state.files.indices where state.files[index].hasChanged(now: now) { changed = true }
            return changed ? read(&state, now: now) : nil
        }
    }

    /// Reads the files `config` names (SIGHUP), changed or not; the paths may be new.
    func reload(_ config: TLSConfig) -> Outcome {
        state.withLock { state in
            if config != state.config {
                state.config = config
                state.files = TLSCredentials.files(config)
            }
            return read(&state, now: clock.monotonicNanoseconds())
        }
    }

    private func read(_ state: inout State, now: UInt64) -> Outcome {
        let credentials: TLSCredentials
        do {
            credentials = try TLSCredentials(state.config, files: &state.files, now: now)
        } catch {
            return .kept(error)
        }
        do {
            try store.replace(with: credentials)
        } catch {
            return .kept(ConfigError(error))
        }
        return .replaced(store.current)
    }
}
