/// Where one of your exchanges goes in the pipeline: right before or right
/// after a built-in slot. Exchanges placed at the same point run in the order
/// given. An `InlineExchange` runs where the request arrived as long as
/// every stage before it is inline; a plain `Exchange` runs on a loop, and
/// so does every stage after it (placed before `.cache`: cache hits too).
///
/// ```swift
/// let gateway = try Gateway(config: config, exchanges: [.before(.cache, Timing())])
/// ```
public struct ExchangePlacement: Sendable {
    let stage: PipelineStage
    let slot: PipelineSlot
    let isBefore: Bool

    /// `exchange` right before `slot`: it sees every operation that reaches
    /// the slot, answered by it or not (before `.cache`: cache hits too).
    public static func before(_ slot: PipelineSlot, _ exchange: some Exchange) -> ExchangePlacement {
        ExchangePlacement(stage: .exchange(exchange), slot: slot, isBefore: true)
    }

    /// `exchange` right before `slot`, deciding at once.
    public static func before(_ slot: PipelineSlot, _ exchange: some InlineExchange) -> ExchangePlacement {
        ExchangePlacement(stage: .inline(exchange), slot: slot, isBefore: true)
    }

    /// `exchange` right after `slot`: it sees what the slot passes on.
    public static func after(_ slot: PipelineSlot, _ exchange: some Exchange) -> ExchangePlacement {
        ExchangePlacement(stage: .exchange(exchange), slot: slot, isBefore: false)
    }

    /// `exchange` right after `slot`, deciding at once.
    public static func after(_ slot: PipelineSlot, _ exchange: some InlineExchange) -> ExchangePlacement {
        ExchangePlacement(stage: .inline(exchange), slot: slot, isBefore: false)
    }
}
