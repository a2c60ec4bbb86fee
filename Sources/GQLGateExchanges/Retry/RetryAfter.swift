@_spi(GQLGateInternals) import GQLGateCore

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date
/// (IMF-fixdate, the obsolete RFC 850 form, or asctime) turned into a delay
/// from `now`. Written here because the only alternative is Foundation's
/// date formatters, far heavier than these few lines; the three date forms
/// are fixed by the RFC.
package enum RetryAfter {
    /// The wait the header asks for; a date in the past is a zero wait; `nil` when unreadable.
    package static func delay(_ value: String, nowEpochSeconds: Int64 = GatewayClock.system.wallTime().components.seconds) -> Duration? {
        let text = value.trimmingASCIISpaces()
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int64(text) else { return nil }
            return .seconds(seconds)
        }
        guard let date = httpDateEpochSeconds(String(text)) else { return nil }
        return .seconds(max(0, date - nowEpochSeconds))
    }

    /// Seconds since 1970 of an HTTP-date, or `nil`.
    static func httpDateEpochSeconds(_ text: String) -> Int64? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int64, month: Int64, year: Int64, time: String
        switch words.count {
        case 6 where words[5] == "GMT":   // Sun, 06 Nov 1994 08:49:37 GMT
            guard let d = Int64(words[1]), let m = monthNumber(words[2]), let y = Int64(words[3]) else { return nil }
            (day, month, year, time) = (d, m, y, words[4])
        case 4 where words[3] == "GMT":   // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let d = Int64(parts[0]), let m = monthNumber(parts[1]), let yy = Int64(parts[2]) else { return nil }
            (day, month, year, time) = (d, m, yy < 70 ? 2000 + yy : (yy < 100 ? 1900 + yy : yy), words[2])
        case 5:                           // Sun Nov  6 08:49:37 1994
            guard let m = monthNumber(words[1]), let d = Int64(words[2]), let y = Int64(words[4]) else { return nil }
            (day, month, year, time) = (d, m, y, words[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int64($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
              (0...60).contains(clock[2]) else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func monthNumber(_ name: String) -> Int64? {
        months.firstIndex(of: name.lowercased()).map { Int64($0) + 1 }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
