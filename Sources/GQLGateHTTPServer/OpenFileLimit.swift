#if canImport(Glibc)
import Glibc
#endif

/// The process's open-files limit (`RLIMIT_NOFILE`), which many systems
/// start at a soft 1024: too few for thousands of WebSocket clients, each
/// of which holds a socket (plus the upstream connections).
enum OpenFileLimit {
    /// Raises the soft limit to fit `descriptors`, up to the hard limit; never lowers it.
    /// Returns the soft limit in force afterwards.
    @discardableResult
    static func raise(toFit descriptors: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        let wanted = rlim_t(max(0, descriptors))
        if limit.rlim_cur < wanted, limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(wanted, limit.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
