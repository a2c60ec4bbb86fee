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

/// An inline stage known by its name.
private struct NamedInline: InlineExchange {
    let name: String

    func decide(_ operation: inout Operation) -> InlineDecision { .passOn }
}

/// Each stage's name, and `inline ` before it when it is held as inline.
private func names(_ builder: PipelineBuilder) -> [String] {
    builder.stages.map { stage in
        switch stage {
        case .inline(let exchange): "inline " + ((exchange as? NamedInline)?.name ?? "?")
        case .exchange(let exchange): (exchange as? Named)?.name ?? "?"
        }
    }
}

@Suite struct PipelineBuilderTests {
    @Test func theBuiltInOrderIsWrittenOnce() {
        #expect(PipelineSlot.allCases == [
            .rateLimit, .persistedDocuments, .apq, .document, .safelist, .methodRules, .limits, .validation, .demandControl, .costRateLimit, .fieldUsage, .cache,
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

    @Test func theBuiltInSlotsBeforeASlotAreNoneOnceAnExchangeIsPlacedAmongThem() {
        var builder = PipelineBuilder()
        builder.fill(.document, with: Named(name: "document"))
        builder.fill(.cache, with: Named(name: "cache"))
        builder.fill(.retry, with: Named(name: "retry"))
        #expect(builder.builtInSlots(before: .cache) == [.document])
        var placedAfter = builder
        placedAfter.place([.after(.cache, Named(name: "after cache"))])
        #expect(placedAfter.builtInSlots(before: .cache) == [.document])
        var placedBefore = builder
        placedBefore.place([.before(.cache, Named(name: "before cache"))])
        #expect(placedBefore.builtInSlots(before: .cache) == nil)
        var placedEarlier = builder
        placedEarlier.place([.after(.rateLimit, Named(name: "early"))])
        #expect(placedEarlier.builtInSlots(before: .cache) == nil)
    }

    @Test func fillingASlotAgainReplacesItsExchange() {
        var builder = PipelineBuilder()
        builder.fill(.limits, with: Named(name: "old"))
        builder.fill(.limits, with: Named(name: "new"))
        #expect(names(builder) == ["new"])
        #expect(builder.stage(in: .limits).map { ($0.exchange as? Named)?.name } == "new")
        #expect(builder.stage(in: .cache) == nil)
    }

    @Test func whetherAStageIsInlineFollowsFromItsType() {
        var builder = PipelineBuilder()
        builder.fill(.document, with: NamedInline(name: "document"))
        builder.fill(.retry, with: Named(name: "retry"))
        builder.place([.before(.cache, NamedInline(name: "mine, inline")), .after(.cache, Named(name: "mine"))])
        #expect(names(builder) == ["inline document", "inline mine, inline", "mine", "retry"])
    }
}
