/// A stage as the pipeline holds it: inline or not, as its type said when it
/// was placed (`PipelineBuilder.fill`, `ExchangePlacement`), never by a cast.
package enum PipelineStage: Sendable {
    /// Decides at once (`InlineExchange`): runs where the request arrived while every stage before it is inline too.
    case inline(any InlineExchange)
    /// Runs on a loop.
    case exchange(any Exchange)

    /// The stage as a plain exchange.
    package var exchange: any Exchange {
        switch self {
        case .inline(let stage): stage
        case .exchange(let stage): stage
        }
    }
}
