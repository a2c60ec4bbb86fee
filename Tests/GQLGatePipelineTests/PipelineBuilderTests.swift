import GQLGateCore
import GQLGatePipeline
import Testing

/// An exchange known by its name, to read the order a builder gives.
private struct Named: Exchange {
    let name: String

    func handle(_ operation: Operation, next: ExchangeNext) async throws -> ResultStream {
        try await next(operation)
    }
}

private func names(_ builder: PipelineBuilder) -> [String] {
    builder.exchanges.map { ($0 as? Named)?.name ?? "?" }
}

@Suite struct PipelineBuilderTests {
    @Test func theBuiltInOrderIsWrittenOnce() {
        #expect(PipelineSlot.allCases == [
            .requestLog, .rateLimit, .persistedDocuments, .apq, .document, .trace, .safelist, .methodRules, .limits, .cache,
            .dedupe, .upstreamAPQ, .credentials, .retry, .circuitBreaker, .upstreamConcurrency,
        ])
    }

    @Test func filledSlotsComeInTheBuiltInOrderWhateverTheOrderTheyWereFilled() {
        var builder = PipelineBuilder()
        for slot in PipelineSlot.allCases.reversed() { builder.fill(slot, with: Named(name: slot.rawValue)) }
        #expect(names(builder) == PipelineSlot.allCases.map(\.rawValue))
    }

    @Test func placedExchangesGoRightBeforeOrAfterTheirSlotInTheOrderGiven() {
        var builder = PipelineBuilder()
        builder.fill(.document, with: Named(name: "document"))
        builder.fill(.cache, with: Named(name: "cache"))
        builder.fill(.retry, with: Named(name: "retry"))
        builder.place([
            .after(.cache, Named(name: "after cache")), .before(.cache, Named(name: "before cache 1")),
            .before(.cache, Named(name: "before cache 2")), .before(.apq, Named(name: "first")),
            .after(.dedupe, Named(name: "after empty dedupe")),
        ])
        #expect(names(builder) == [
            "first", "document", "before cache 1", "before cache 2", "cache", "after cache", "after empty dedupe", "retry",
        ])
    }

    @Test func fillingASlotAgainReplacesItsExchange() {
        var builder = PipelineBuilder()
        builder.fill(.limits, with: Named(name: "old"))
        builder.fill(.limits, with: Named(name: "new"))
        #expect(names(builder) == ["new"])
        #expect((builder.exchange(in: .limits) as? Named)?.name == "new")
        #expect(builder.exchange(in: .cache) == nil)
    }
}
