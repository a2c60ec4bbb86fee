import GQLGateTracing
import Testing

@Suite struct SpanIDsTests {
    @Test func newIDsAreNonZeroAndDistinct() {
        let ids = SpanIDs(seed: 0)
        var seen = Set<UInt64>()
        for _ in 0..<10_000 { seen.insert(ids.next()) }
        #expect(seen.count == 10_000)
        #expect(!seen.contains(0))
    }
}
