@_spi(GQLGateInternals) package import GQLGateCore
@_spi(GQLGateInternals) package import GQLGatePipeline

/// The persisted documents of `persisted_documents.manifests`. Every
/// request checks the files first (one `stat` each), so that no request is
/// answered from a set its files no longer hold: a request that finds a
/// file changed reads the files again before it goes on. That reading
/// happens on a gateway loop, never on a server thread
/// (`documentsAtOnce` gives nil there, and the request goes on on a loop);
/// requests that arrive meanwhile wait for it. A file that becomes
/// unreadable or invalid keeps the set read last, and `onReloadFailure`
/// says why.
package final class PersistedDocumentLibrary: Sendable {
    /// The largest manifest file read.
    package static let fileSizeLimit = 64 << 20

    private struct State: Sendable {
        var files: [WatchedFile]
        var documents: PersistedDocumentSet
    }

    private let state: Lock<State>
    private let cache: DocumentCache
    private let clock: GatewayClock
    private let onReloadFailure: @Sendable (PersistedDocumentSet.Failure) -> Void
    private let onLoad: @Sendable (PersistedDocumentSet) -> Void

    /// Reads every manifest; throws when one cannot be used.
    /// - Parameters:
    ///   - cache: where the documents are analysed (the pipeline's document cache).
    ///   - clock: when the files were read.
    ///   - onReloadFailure: told when a changed file cannot be used (the old set stays).
    ///   - onLoad: told of each set read, the first and each one a file change brings.
    package init(paths: [String], cache: DocumentCache, clock: GatewayClock = .system,
                onReloadFailure: @escaping @Sendable (PersistedDocumentSet.Failure) -> Void,
                onLoad: @escaping @Sendable (PersistedDocumentSet) -> Void = { _ in }) throws(PersistedDocumentSet.Failure) {
        let now = clock.monotonicNanoseconds()
        var files = paths.map { WatchedFile(path: $0, checkInterval: .zero, sizeLimit: Self.fileSizeLimit) }
        var texts: [String: String] = [:]
        for index in files.indices { texts[files[index].path] = files[index].read(now: now) }
        let documents = try PersistedDocumentSet(paths: paths, cache: cache) { texts[$0] }
        state = Lock(State(files: files, documents: documents))
        self.cache = cache
        self.clock = clock
        self.onReloadFailure = onReloadFailure
        self.onLoad = onLoad
        onLoad(documents)
    }

    /// The documents the files hold now: when one changed since it was read,
    /// they are read again first (on the caller's thread, which may wait for
    /// a reading under way on another).
    package var documents: PersistedDocumentSet {
        let (documents, reloaded, failure) = state.withLock { state -> (PersistedDocumentSet, Bool, PersistedDocumentSet.Failure?) in
            guard Self.changed(&state.files, now: clock.monotonicNanoseconds()) else { return (state.documents, false, nil) }
            let failure = reload(&state)
            return (state.documents, failure == nil, failure)
        }
        if let failure { onReloadFailure(failure) }
        if reloaded { onLoad(documents) }
        return documents
    }

    /// The documents, when they can be had without reading a file or waiting
    /// (a server thread); nil when a file changed or another thread is reading them.
    package func documentsAtOnce() -> PersistedDocumentSet? {
        state.withLockIfAvailable { state -> PersistedDocumentSet? in
            Self.changed(&state.files, now: clock.monotonicNanoseconds()) ? nil : state.documents
        } ?? nil
    }

    /// Whether a file looks different from when it was read (each `stat`ed).
    private static func changed(_ files: inout [WatchedFile], now: UInt64) -> Bool {
        var changed = false
        for index in files.indices where files[index].hasChanged(now: now) { changed = true }
        return changed
    }

    /// Reads every file again and takes the new set; the old set stays when
    /// a file cannot be used (the files' new stamps are kept either way, so a
    /// bad file is not read again until it changes again).
    private func reload(_ state: inout State) -> PersistedDocumentSet.Failure? {
        let now = clock.monotonicNanoseconds()
        var texts: [String: String] = [:]
        for index in state.files.indices { texts[state.files[index].path] = state.files[index].read(now: now) }
        do {
            state.documents = try PersistedDocumentSet(paths: state.files.map(\.path), cache: cache) { texts[$0] }
            return nil
        } catch {
            return error
        }
    }
}
