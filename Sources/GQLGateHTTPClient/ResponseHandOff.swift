import Synchronization

/// The hand-off of an answer from the loop that received it to the task that
/// awaits it, made visible to ThreadSanitizer: the Swift runtime resumes a
/// continuation on another thread through code TSan does not see
/// (swiftlang/swift#57803), so it took the answer's bytes, written on the
/// loop, as raced with their reads in the task. A release store before the
/// resume and an acquire load after it order them (two plain moves on x86).
final class ResponseHandOff: Sendable {
    private let done = Atomic<Bool>(false)

    /// On the loop, before the continuation is resumed.
    func sent() {
        done.store(true, ordering: .releasing)
    }

    /// In the task, once the continuation has resumed it.
    func received() {
        _ = done.load(ordering: .acquiring)
    }
}
