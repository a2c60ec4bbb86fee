#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets a thread wait, up to a deadline, for a condition that other threads
/// make true and then `signal()`: a condition variable on the monotonic
/// clock, so that a wait (a drain) sleeps until the change instead of polling.
///
/// `@unchecked Sendable`: its one variable, `changes`, is read and written
/// only under its own pthread mutex.
package final class ChangeSignal: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// How many times `signal()` was called.
    private var changes: UInt64 = 0

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Wakes every waiter to look at its condition again. Call after the
    /// change (and after releasing any lock the condition takes).
    package func signal() {
        pthread_mutex_lock(mutex)
        changes &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Returns true as soon as `condition` holds, or false once `deadline`
    /// (nanoseconds on `CLOCK_MONOTONIC`)
    /// has come first. `condition` is evaluated without this signal's lock
    /// held, once at the start and again after every `signal()`.
    package func wait(until condition: () -> Bool, deadline: UInt64) -> Bool {
        while true {
            pthread_mutex_lock(mutex)
            let seen = changes
            pthread_mutex_unlock(mutex)
            if condition() { return true }
            pthread_mutex_lock(mutex)
            var timedOut = false
            if changes == seen {  // else it changed meanwhile: look again
                var wakeAt = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                while changes == seen, !timedOut {
                    timedOut = pthread_cond_timedwait(self.condition, mutex, &wakeAt) == ETIMEDOUT
                }
            }
            pthread_mutex_unlock(mutex)
            if timedOut { return condition() }
        }
    }
}
