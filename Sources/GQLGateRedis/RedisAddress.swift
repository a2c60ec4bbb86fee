#if canImport(Glibc)
import Glibc
#endif

/// Turns the URL's host into an address hiredis can connect to without a
/// DNS look-up (hiredis resolves names with a blocking `getaddrinfo`, which
/// must not run on a loop).
enum RedisAddress {
    /// Whether `host` is a numeric IPv4 or IPv6 address.
    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The first IPv4 address of `host`, else its first IPv6 one, as hiredis
    /// itself prefers (blocking: call off the loops).
    static func resolve(_ host: String) -> Result<String, RedisError> {
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
