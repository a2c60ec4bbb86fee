import GQLGateCore
import GQLGateTracing
import Testing

@Suite struct SamplerTests {
    private let parentSampled = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: 3, sampled: true)
    private let parentNotSampled = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: 3, sampled: false)

    @Test func aClientsDecisionWinsWhateverTheRatio() {
        #expect(Sampler(ratio: 0).samples(traceID: parentSampled.traceID, parent: parentSampled))
        #expect(!Sampler(ratio: 1).samples(traceID: parentNotSampled.traceID, parent: parentNotSampled))
    }

    @Test func ratioOneSamplesEveryNewTraceAndZeroNone() {
        let ids = SpanIDs(seed: 7)
        for _ in 0..<1_000 {
            let id = ids.nextTraceID()
            #expect(Sampler(ratio: 1).samples(traceID: id, parent: nil))
            #expect(!Sampler(ratio: 0).samples(traceID: id, parent: nil))
        }
    }

    @Test func aRatioSamplesThatShareOfNewTraces() {
        let ids = SpanIDs(seed: 42)
        let sampler = Sampler(ratio: 0.01)
        let sampled = (0..<100_000).count { _ in sampler.samples(traceID: ids.nextTraceID(), parent: nil) }
        #expect((800...1_200).contains(sampled))  // 1,000 expected; the ids are well spread
    }

    @Test func theDecisionDependsOnTheTraceIDAlone() {
        let low = TraceID(high: .max, low: 0x0000_0000_0000_0001)
        let high = TraceID(high: 0, low: 0x7FFF_FFFF_FFFF_FFFF)
        #expect(Sampler(ratio: 0.5).samples(traceID: low, parent: nil))
        #expect(!Sampler(ratio: 0.5).samples(traceID: high, parent: nil))
    }
}
