#if canImport(Glibc)
import Glibc
#endif

/// Process signals handled on one thread: call `blockTermination()` before
/// any thread starts (threads inherit the mask, so no other thread is
/// interrupted), then `wait()` on the thread that should react.
package enum Signals {
    /// A signal the gateway reacts to.
    package enum Event: Sendable {
        /// SIGTERM or SIGINT: drain and exit.
        case terminate
        /// SIGHUP: reload the configuration.
        case reload
    }

    private static func set() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
        return set
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP for this thread and its future threads.
    package static func blockTermination() {
        var signals = set()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits for the next blocked signal.
    package static func wait() -> Event {
        var signals = set()
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received == SIGHUP ? .reload : .terminate
    }
}
