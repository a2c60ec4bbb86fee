import GQLGateCore
@testable import GQLGateHTTPClient
import Testing

/// Header lines of upstream answers, parsed once while they repeat
/// (`RecentHeaderFields` as a multi uses it, with `CurlTransfer`'s parser).
@Suite struct RecentHeaderFieldsTests {
    private static let capacity = 16, longestLine = 256
    private func makeCache() -> RecentHeaderFields { RecentHeaderFields(capacity: Self.capacity, longestKey: Self.longestLine) }

    /// Looks `line` up in `cache`, counting the parses it needs in `parses`.
    private func field(_ line: String, in cache: RecentHeaderFields, parses: inout Int) -> HTTPHeaders.Field? {
        var line = line
        return line.withUTF8 { utf8 in
            cache.field(for: UnsafeRawBufferPointer(utf8)) { bytes in
                parses += 1
                return CurlTransfer.field(bytes)
            }
        }
    }

    @Test func aRepeatedLineIsParsedOnce() {
        let cache = makeCache()
        var parses = 0
        #expect(field("Content-Type: application/json", in: cache, parses: &parses) == HTTPHeaders.Field(name: "Content-Type", value: "application/json"))
        #expect(field("Content-Type: application/json", in: cache, parses: &parses) == HTTPHeaders.Field(name: "Content-Type", value: "application/json"))
        #expect(parses == 1)
    }

    @Test func aLineThatDiffersInOneByteIsItsOwnField() {
        let cache = makeCache()
        var parses = 0
        _ = field("Date: Sun, 22 Nov 2026 23:59:58 GMT", in: cache, parses: &parses)
        #expect(field("Date: Sun, 22 Nov 2026 23:59:59 GMT", in: cache, parses: &parses)?.value == "Sun, 22 Nov 2026 23:59:59 GMT")
        #expect(field("date: Sun, 22 Nov 2026 23:59:59 GMT", in: cache, parses: &parses)?.name == "date")
        #expect(parses == 3)
    }

    @Test func aNewValueTakesTheOldValuesPlaceSoTheRestStays() {
        let cache = makeCache()
        var parses = 0
        _ = field("Server: nginx", in: cache, parses: &parses)
        for second in 0..<(Self.capacity * 2) {
            _ = field("Date: Sun, 22 Nov 2026 23:59:\(10 + second) GMT", in: cache, parses: &parses)
        }
        let before = parses
        _ = field("Server: nginx", in: cache, parses: &parses)
        #expect(parses == before)
    }

    @Test func theCacheKeepsAtMostItsCapacity() {
        let cache = makeCache()
        var parses = 0
        for index in 0...Self.capacity { _ = field("X-Field-\(index): v", in: cache, parses: &parses) }
        let before = parses
        _ = field("X-Field-0: v", in: cache, parses: &parses)  // the oldest, evicted by the one past capacity
        #expect(parses == before + 1)
    }

    @Test func longLinesAndLinesWithoutAColonAreParsedEveryTime() {
        let cache = makeCache()
        var parses = 0
        let long = "Set-Cookie: " + String(repeating: "a", count: Self.longestLine)
        #expect(field(long, in: cache, parses: &parses)?.name == "Set-Cookie")
        _ = field(long, in: cache, parses: &parses)
        #expect(field("no colon here", in: cache, parses: &parses) == nil)
        #expect(field("no colon here", in: cache, parses: &parses) == nil)
        #expect(parses == 4)
    }

    @Test func fieldsAreTrimmedAroundTheValue() {
        var parses = 0
        #expect(field("X-A:  \tspaced value  ", in: makeCache(), parses: &parses) == HTTPHeaders.Field(name: "X-A", value: "spaced value"))
        #expect(field("X-Empty:", in: makeCache(), parses: &parses) == HTTPHeaders.Field(name: "X-Empty", value: ""))
    }
}
