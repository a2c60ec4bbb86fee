import GQLGateCore
import Testing

/// Request header fields by name and value, as the server side keeps them
/// (`RecentHeaderFields.field(name:value:)`); the line form is tested with the
/// curl parser in GQLGateHTTPClientTests.
@Suite struct RecentHeaderFieldsByNameTests {
    /// Looks up the field `name: value` by its two parts.
    private func field(name: String, value: String, in cache: RecentHeaderFields) -> HTTPHeaders.Field {
        var name = name, value = value
        return name.withUTF8 { name in
            value.withUTF8 { value in cache.field(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value)) }
        }
    }

    @Test func fieldsByNameAndValueAreTheBytesReceived() {
        let cache = RecentHeaderFields(capacity: 16, longestKey: 256)
        for _ in 0..<2 {
            #expect(field(name: "Content-Type", value: "application/json", in: cache) == HTTPHeaders.Field(name: "Content-Type", value: "application/json"))
            #expect(field(name: "Content-Type", value: "text/plain", in: cache) == HTTPHeaders.Field(name: "Content-Type", value: "text/plain"))
            #expect(field(name: "content-type", value: "text/plain", in: cache) == HTTPHeaders.Field(name: "content-type", value: "text/plain"))
            #expect(field(name: "X-Empty", value: "", in: cache) == HTTPHeaders.Field(name: "X-Empty", value: ""))
            #expect(field(name: "X-Ab", value: "c", in: cache) == HTTPHeaders.Field(name: "X-Ab", value: "c"))
            #expect(field(name: "X-A", value: "bc", in: cache) == HTTPHeaders.Field(name: "X-A", value: "bc"))
        }
        let long = String(repeating: "c", count: 256)
        #expect(field(name: "Cookie", value: long, in: cache).value == long)
        #expect(field(name: "Cookie", value: long, in: cache).value == long)
    }

    @Test func aFullTableStillGivesEveryFieldRight() {
        let cache = RecentHeaderFields(capacity: 2, longestKey: 64)
        for round in 0..<3 {
            for name in ["A", "B", "C", "D"] {
                #expect(field(name: name, value: "\(round)", in: cache) == HTTPHeaders.Field(name: name, value: "\(round)"))
            }
        }
    }
}
