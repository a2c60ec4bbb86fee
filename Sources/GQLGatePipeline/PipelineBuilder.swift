/// Assembles the pipeline: the built-in stages in their slots, in
/// `PipelineSlot`'s order, with exchanges placed around them; `build` folds
/// them around the transport into an `ExchangeChain`. Whether a stage is
/// inline follows from its type (`InlineExchange`) where it is filled.
package struct PipelineBuilder: Sendable {
    private var filled: [PipelineSlot: PipelineStage] = [:]
    private var placed: [ExchangePlacement] = []

    package init() {}

    /// Puts `exchange` in `slot`, replacing what was there; it runs on a loop.
    package mutating func fill(_ slot: PipelineSlot, with exchange: some Exchange) {
        filled[slot] = .exchange(exchange)
    }

    /// Puts `exchange` in `slot`, replacing what was there; it decides at once.
    package mutating func fill(_ slot: PipelineSlot, with exchange: some InlineExchange) {
        filled[slot] = .inline(exchange)
    }

    /// Puts `stage` in `slot` as it was held elsewhere.
    package mutating func fill(_ slot: PipelineSlot, with stage: PipelineStage) {
        filled[slot] = stage
    }

    /// What `slot` holds, if anything.
    package func stage(in slot: PipelineSlot) -> PipelineStage? {
        filled[slot]
    }

    /// The slots filled, in the order operations pass them.
    package var filledSlots: [PipelineSlot] {
        PipelineSlot.allCases.filter { filled[$0] != nil }
    }

    /// The slots whose stages run before `slot`'s, in order, or nil when an
    /// exchange placed from outside runs before it.
    package func builtInSlots(before slot: PipelineSlot) -> [PipelineSlot]? {
        let earlier = PipelineSlot.allCases.prefix { $0 != slot }
        guard !placed.contains(where: { earlier.contains($0.slot) || ($0.slot == slot && $0.isBefore) }) else { return nil }
        return earlier.filter { filled[$0] != nil }
    }

    /// Adds exchanges at their placements, after any placed there already.
    package mutating func place(_ placements: [ExchangePlacement]) {
        placed += placements
    }

    /// Every stage in the order operations pass them.
    package var stages: [PipelineStage] {
        var stages: [PipelineStage] = []
        for slot in PipelineSlot.allCases {
            stages += placed.lazy.filter { $0.slot == slot && $0.isBefore }.map(\.stage)
            if let stage = filled[slot] { stages.append(stage) }
            stages += placed.lazy.filter { $0.slot == slot && !$0.isBefore }.map(\.stage)
        }
        return stages
    }

    /// The pipeline, ending in `transport`.
    package func build(transport: some Transport) -> ExchangeChain {
        ExchangeChain(stages: stages, transport: transport)
    }
}
