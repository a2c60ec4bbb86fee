@_spi(GQLGateInternals) import GQLGateCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock timestamps for log lines: RFC 3339 in UTC with milliseconds,
/// `2025-06-01T12:34:56.789Z`, without Foundation.
package enum LogTimestamp {
    /// The current time.
    package static func now() -> String {
        let (seconds, attoseconds) = GatewayClock.system.wallTime().components
        return format(seconds: Int(seconds), milliseconds: Int(attoseconds / 1_000_000_000_000_000))
    }

    /// The timestamp of `seconds` since the Unix epoch plus `milliseconds`.
    package static func format(seconds: Int, milliseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var at = 0
            func put(_ value: Int, digits: Int) {
                var rest = value
                for i in stride(from: digits - 1, through: 0, by: -1) {
                    buffer[at + i] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += digits
            }
            func put(_ character: Unicode.Scalar) {
                buffer[at] = UInt8(ascii: character)
                at += 1
            }
            put(Int(parts.tm_year) + 1900, digits: 4); put("-"); put(Int(parts.tm_mon) + 1, digits: 2); put("-")
            put(Int(parts.tm_mday), digits: 2); put("T"); put(Int(parts.tm_hour), digits: 2); put(":")
            put(Int(parts.tm_min), digits: 2); put(":"); put(Int(parts.tm_sec), digits: 2); put(".")
            put(milliseconds, digits: 3); put("Z")
            return at
        }
    }
}
