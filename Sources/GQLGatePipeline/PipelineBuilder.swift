/// Where one of your exchanges goes in the pipeline: right before or right
/// after a built-in slot. Exchanges placed at the same point run in the order
/// given.
///
/// ```swift
/// let gateway = try Gateway(config: config, exchanges: [.before(.cache, LoggingExchange())])
/// ```
public struct ExchangePlacement: Sendable {
    let exchange: any Exchange
    let slot: PipelineSlot
    let isBefore: Bool

    /// `exchange` right before `slot`: it sees every operation that reaches
    /// the slot, answered by it or not (before `.cache`: cache hits too).
    public static func before(_ slot: PipelineSlot, _ exchange: any Exchange) -> ExchangePlacement {
        ExchangePlacement(exchange: exchange, slot: slot, isBefore: true)
    }

    /// `exchange` right after `slot`: it sees what the slot passes on.
    public static func after(_ slot: PipelineSlot, _ exchange: any Exchange) -> ExchangePlacement {
        ExchangePlacement(exchange: exchange, slot: slot, isBefore: false)
    }
}

/// Assembles the pipeline: the built-in stages in their slots, in
/// `PipelineSlot`'s order, with exchanges placed around them; `build` folds
/// them around the transport into an `ExchangeChain`.
public struct PipelineBuilder: Sendable {
    private var filled: [PipelineSlot: any Exchange] = [:]
    private var placed: [ExchangePlacement] = []

    public init() {}

    /// Puts `exchange` in `slot`, replacing what was there.
    public mutating func fill(_ slot: PipelineSlot, with exchange: any Exchange) {
        filled[slot] = exchange
    }

    /// What `slot` holds, if anything.
    public func exchange(in slot: PipelineSlot) -> (any Exchange)? {
        filled[slot]
    }

    /// Adds exchanges at their placements, after any placed there already.
    public mutating func place(_ placements: [ExchangePlacement]) {
        placed += placements
    }

    /// Every exchange in the order operations pass them.
    public var exchanges: [any Exchange] {
        var exchanges: [any Exchange] = []
        for slot in PipelineSlot.allCases {
            exchanges += placed.lazy.filter { $0.slot == slot && $0.isBefore }.map(\.exchange)
            if let exchange = filled[slot] { exchanges.append(exchange) }
            exchanges += placed.lazy.filter { $0.slot == slot && !$0.isBefore }.map(\.exchange)
        }
        return exchanges
    }

    /// The pipeline, ending in `transport`.
    public func build(transport: some Transport) -> ExchangeChain {
        ExchangeChain(exchanges: exchanges, transport: transport)
    }
}
