#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// A value shared across threads behind a `pthread_mutex_t`: the lock every
/// type of gqlgate shares state with. The standard library's `Lock` locks
/// with raw futex calls on Linux, which ThreadSanitizer does not see, so code
/// behind it was never checked; `pthread_mutex_lock` is intercepted, and TSan
/// checks every access made under this lock (as SwiftNIO's `NIOLock` does).
/// The mutex has an allocation of its own, which never moves. `public` (with
/// `@inlinable` methods) so that other modules specialise it: the compiler
/// serialises no `package` inlinable body.
@_spi(GQLGateInternals) public final class Lock<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only while `mutex` is held; and
    // exclusivity unchecked: the lock serialises every access, so the run-time check (a call
    // into the runtime per access) only costs.
    @usableFromInline @exclusivity(unchecked) var value: Value
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: consuming sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    @inlinable @inline(__always)
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    /// Runs `body` with the value when the lock is free now; nil, without
    /// waiting, when another thread holds it.
    @inlinable @inline(__always)
    public func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard tryLock() else { return nil }
        defer { unlock() }
        return try body(&value)
    }

    @inlinable @inline(__always)
    func lock() {
        pthread_mutex_lock(mutex)
    }

    @inlinable @inline(__always)
    func tryLock() -> Bool {
        pthread_mutex_trylock(mutex) == 0
    }

    @inlinable @inline(__always)
    func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
