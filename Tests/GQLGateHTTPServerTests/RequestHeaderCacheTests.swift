import GQLGateCore
@testable import GQLGateHTTPServer
import Testing

/// Request header fields handed out again while their bytes repeat.
@Suite struct RequestHeaderCacheTests {
    private func field(_ name: String, _ value: String, in cache: RequestHeaderCache) -> HTTPHeaders.Field {
        var name = name, value = value
        return name.withUTF8 { name in
            value.withUTF8 { value in cache.field(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value)) }
        }
    }

    @Test func fieldsAreTheBytesReceived() {
        let cache = RequestHeaderCache()
        #expect(field("Content-Type", "application/json", in: cache) == HTTPHeaders.Field(name: "Content-Type", value: "application/json"))
        #expect(field("Content-Type", "application/json", in: cache) == HTTPHeaders.Field(name: "Content-Type", value: "application/json"))
        #expect(field("Content-Type", "text/plain", in: cache) == HTTPHeaders.Field(name: "Content-Type", value: "text/plain"))
        #expect(field("content-type", "text/plain", in: cache) == HTTPHeaders.Field(name: "content-type", value: "text/plain"))
        #expect(field("X-Empty", "", in: cache) == HTTPHeaders.Field(name: "X-Empty", value: ""))
        #expect(field("X-Empty", "", in: cache) == HTTPHeaders.Field(name: "X-Empty", value: ""))
    }

    @Test func manyDistinctFieldsAndLongValuesStayCorrect() {
        let cache = RequestHeaderCache()
        let long = String(repeating: "c", count: RequestHeaderCache.longestValue + 1)
        for round in 0..<3 {
            for index in 0..<(RequestHeaderCache.capacity * 2) {
                #expect(field("X-\(index)", "v\(index)", in: cache) == HTTPHeaders.Field(name: "X-\(index)", value: "v\(index)"), "round \(round)")
            }
            #expect(field("Cookie", long, in: cache).value == long)
        }
    }
}
