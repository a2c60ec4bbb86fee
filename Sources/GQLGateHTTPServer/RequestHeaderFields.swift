import CMicroHTTPD
@_spi(GQLGateInternals) import GQLGateCore

/// A request's header fields as libmicrohttpd holds them in the
/// connection's memory, read through its iterator: measured when the
/// request begins, collected as `HTTPHeaders` only when something reads them
/// (`ServerRequest.headers`), or walked as bytes. Every value is given
/// without the whitespace around it (libmicrohttpd drops the whitespace
/// before a value, not the whitespace after it; RFC 9110 §5.5: neither is
/// part of it). On the server thread, while the request is being answered.
enum RequestHeaderFields {
    /// What the fields say about the body's framing, their bytes, and how many there are.
    struct Measure {
        var framing = RequestFraming()
        var bytes = HeaderFieldBytes()
        var count = 0
    }

    /// The fields measured, not collected.
    static func measure(_ connection: OpaquePointer) -> Measure {
        read(connection, collecting: false, measuring: true, cache: nil).measure
    }

    /// The fields, through `cache` when the server keeps one.
    static func collect(_ connection: OpaquePointer, cache: RecentHeaderFields?) -> HTTPHeaders {
        HTTPHeaders(read(connection, collecting: true, measuring: false, cache: cache).fields)
    }

    /// The fields, through `cache` when the server keeps one, and measured, in one pass.
    static func collectAndMeasure(_ connection: OpaquePointer, cache: RecentHeaderFields?) -> (HTTPHeaders, Measure) {
        let read = read(connection, collecting: true, measuring: true, cache: cache)
        return (HTTPHeaders(read.fields), read.measure)
    }

    private static func read(_ connection: OpaquePointer, collecting: Bool, measuring: Bool, cache: RecentHeaderFields?) -> Reading {
        var reading = Reading(collecting: collecting, measuring: measuring, cache: cache)
        if collecting { reading.fields.reserveCapacity(16) }
        withUnsafeMutablePointer(to: &reading) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls, let key else { return .YES }
                let reading = cls.assumingMemoryBound(to: Reading.self)
                let name = UnsafeRawBufferPointer(start: key, count: keySize)
                let raw = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
                let value = trimmed(raw)
                if reading.pointee.collecting {
                    // The cache read alone: a method called on `pointee` would copy the whole struct (a retain per member).
                    let field = reading.pointee.cache?.field(name: name, value: value) ?? HTTPHeaders.Field(name: name, value: value)
                    reading.pointee.fields.append(field)
                }
                if reading.pointee.measuring {
                    reading.pointee.measure.framing.note(name: name, value: value)
                    reading.pointee.measure.bytes.note(name: name, value: raw)
                    reading.pointee.measure.count += 1
                }
                return .YES
            }, pointer)
        }
        return reading
    }

    /// Calls `body` with each field's name and value bytes, in order.
    static func forEach(_ connection: OpaquePointer, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        withoutActuallyEscaping(body) { body in
            var visit = body
            withUnsafeMutablePointer(to: &visit) { pointer in
                _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                    guard let cls, let key else { return .YES }
                    let visit = cls.assumingMemoryBound(to: ((UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void).self)
                    visit.pointee(UnsafeRawBufferPointer(start: key, count: keySize),
                                  trimmed(UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)))
                    return .YES
                }, pointer)
            }
        }
    }

    /// The value of the first field named `name` (in any case), as `HTTPHeaders` would give it.
    static func firstValue(_ connection: OpaquePointer, named name: String) -> String? {
        var name = name
        return name.withUTF8 { utf8 -> String? in
            var value: UnsafePointer<CChar>?
            var length = 0
            let found = utf8.withMemoryRebound(to: CChar.self) { name in
                MHD_lookup_connection_value_n(connection, .HEADER_KIND, name.baseAddress, name.count, &value, &length)
            }
            guard found == .YES else { return nil }
            return String(decoding: trimmed(UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : length)), as: UTF8.self)
        }
    }

    /// What one pass through libmicrohttpd's iterator reads.
    private struct Reading {
        let collecting: Bool
        let measuring: Bool
        let cache: RecentHeaderFields?
        var fields: [HTTPHeaders.Field] = []
        var measure = Measure()
    }
}

/// `raw` without the spaces and tabs at its end (a free function: libmicrohttpd's callbacks capture nothing).
private func trimmed(_ raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    var kept = raw.count
    while kept > 0, raw[kept - 1] == UInt8(ascii: " ") || raw[kept - 1] == UInt8(ascii: "\t") { kept -= 1 }
    return UnsafeRawBufferPointer(rebasing: raw[..<kept])
}
