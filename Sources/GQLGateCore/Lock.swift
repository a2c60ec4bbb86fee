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
/// A copy shares the one value and mutex, which live in one allocation
/// (`LockStorage`) that never moves. `public` (with `@inlinable` methods) so
/// that other modules specialise it: the compiler serialises no `package`
/// inlinable body.
@_spi(GQLGateInternals) public struct Lock<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value is read and written only while the mutex is held.
    @usableFromInline let storage: LockStorage<Value>

    @inlinable
    public init(_ value: consuming sending Value) {
        storage = LockStorage.make(value)
    }

    /// Runs `body` with the value, the lock held.
    @inlinable @inline(__always)
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        let (value, mutex) = storage.pointers
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// Runs `body` with the value when the lock is free now; nil, without
    /// waiting, when another thread holds it.
    @inlinable @inline(__always)
    public func withLockIfAvailable<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        let (value, mutex) = storage.pointers
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

/// A `Lock`'s value and its mutex in one allocation: the value as the
/// buffer's header, the mutex as its one element.
@_spi(GQLGateInternals) public final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// The storage holding `value`, moved in (a closure returning a captured
    /// value would copy it, and the copy and the original's destruction cost a
    /// retain and a release of each of its references).
    @inlinable
    static func make(_ value: consuming sending Value) -> LockStorage {
        var moved = Optional(value)
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in moved.take()! }, to: LockStorage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }
        return storage
    }

    /// The value's and the mutex's addresses: fixed for the storage's life,
    /// read while a `Lock` holds it.
    @inlinable @inline(__always)
    var pointers: (value: UnsafeMutablePointer<Value>, mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        withUnsafeMutablePointers { ($0, $1) }
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }
}
