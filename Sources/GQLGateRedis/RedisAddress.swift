#if canImport(Glibc)
import Glibc
#endif

/// Turns a Redis server's host name into a numeric address before its
/// socket connects: the look-up (`getaddrinfo`) blocks, so it must not run
/// on a loop.
enum RedisAddress {
    /// Whether `host` is a numeric IPv4 or IPv6 address.
    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Resolves `host` on a thread of its own and calls `completion` there:
    /// `getaddrinfo` blocks, so it runs neither on a loop nor on Swift's
    /// shared task threads.
    static func resolve(_ host: String, completion: @escaping @Sendable (Result<String, RedisError>) -> Void) {
        let job: @Sendable () -> Void = { completion(resolve(host)) }
        let box = Unmanaged.passRetained(JobBox(job)).toOpaque()  // released by the thread
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            Unmanaged<JobBox>.fromOpaque(argument!).takeRetainedValue().job()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<JobBox>.fromOpaque(box).release()
            completion(.failure(.unavailable("cannot start a thread to resolve \(host): \(rc)")))
            return
        }
        pthread_detach(thread)
    }

    private final class JobBox {
        let job: @Sendable () -> Void
        init(_ job: @escaping @Sendable () -> Void) { self.job = job }
    }

    /// The first IPv4 address of `host`, else its first IPv6 one, as hiredis
    /// itself prefers (blocking).
    private static func resolve(_ host: String) -> Result<String, RedisError> {
        var message = "no address"
        for family in [AF_INET, AF_INET6] {
            var hints = addrinfo()
            hints.ai_family = family
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let rc = getaddrinfo(host, nil, &hints, &list)
            guard rc == 0, let first = list else {
                message = String(cString: gai_strerror(rc))
                continue
            }
            defer { freeaddrinfo(list) }
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                return .success(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            }
        }
        return .failure(.unavailable("cannot resolve \(host): \(message)"))
    }
}
