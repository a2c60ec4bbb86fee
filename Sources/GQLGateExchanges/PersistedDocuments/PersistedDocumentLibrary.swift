import GQLGateCore
import GQLGatePipeline
import Synchronization

/// The persisted documents of `persisted_documents.manifests`, read again
/// when a file changes (checked at most once a second by the request that
/// notices). The files are read and their documents parsed in a task of
/// their own, never on the thread of a request (a server thread, or a loop):
/// requests go on with the set they have until the new one is swapped in. A
/// file that becomes unreadable or invalid keeps the set read last, and
/// `onReloadFailure` says why.
public final class PersistedDocumentLibrary: Sendable {
    /// The largest manifest file read.
    public static let fileSizeLimit = 64 << 20

    private struct State: Sendable {
        var files: [WatchedFile]
        var documents: PersistedDocumentSet
        /// The reload under way, when a change started one.
        var reloading: Task<Void, Never>?
    }

    private let state: Mutex<State>
    private let cache: DocumentCache
    private let clock: GatewayClock
    private let onReloadFailure: @Sendable (PersistedDocumentSet.Failure) -> Void

    /// Reads every manifest; throws when one cannot be used.
    /// - Parameters:
    ///   - cache: where the documents are analysed (the pipeline's document cache).
    ///   - clock: when the files were last checked (tests move it).
    ///   - onReloadFailure: told when a changed file cannot be used (the old set stays).
    public init(paths: [String], cache: DocumentCache, clock: GatewayClock = .system,
                onReloadFailure: @escaping @Sendable (PersistedDocumentSet.Failure) -> Void) throws(PersistedDocumentSet.Failure) {
        let now = clock.monotonicNanoseconds()
        var files = paths.map { WatchedFile(path: $0, sizeLimit: Self.fileSizeLimit) }
        var texts: [String: String] = [:]
        for index in files.indices { texts[files[index].path] = files[index].read(now: now) }
        let documents = try PersistedDocumentSet(paths: paths, cache: cache) { texts[$0] }
        state = Mutex(State(files: files, documents: documents))
        self.cache = cache
        self.clock = clock
        self.onReloadFailure = onReloadFailure
    }

    /// The documents now; a file changed since they were read starts a reload.
    public var documents: PersistedDocumentSet {
        state.withLock { state in
            guard state.reloading == nil else { return state.documents }
            let now = clock.monotonicNanoseconds()
            var changed = false
            for index in state.files.indices {
                if state.files[index].hasChanged(now: now) { changed = true }
            }
            if changed { state.reloading = Task.detached { self.reload() } }
            return state.documents
        }
    }

    /// The reload a file change started, while it runs.
    package var reloadUnderWay: Task<Void, Never>? {
        state.withLock { $0.reloading }
    }

    /// Reads every file again and swaps the new set in; the old set stays
    /// when a file cannot be used.
    private func reload() {
        var files = state.withLock { $0.files }
        let now = clock.monotonicNanoseconds()
        var texts: [String: String] = [:]
        for index in files.indices { texts[files[index].path] = files[index].read(now: now) }
        let paths = files.map(\.path)
        let result = Result { () throws(PersistedDocumentSet.Failure) in try PersistedDocumentSet(paths: paths, cache: cache) { texts[$0] } }
        let documents = try? result.get()
        state.withLock { state in
            state.reloading = nil
            state.files = files
            if let documents { state.documents = documents }
        }
        if case .failure(let failure) = result { onReloadFailure(failure) }
    }
}
