@_spi(GQLGateInternals) import GQLGateCore
import GQLGateEventLoop
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Logging

/// Learns the upstream schema for one pipeline's response cache: sends the
/// introspection query when the pipeline starts serving, asks again (after
/// 1 s, doubling up to 30 s) while the upstream does not answer, and stops
/// for good once it has the schema, the upstream refused, or the pipeline
/// was replaced. Until then the cache tags only the ids clients select.
/// Logs the first failure and the outcome once each.
final class SchemaLearning: Sendable {
    private let chain: ExchangeChain
    private let source: EntitySchemaSource
    private let task = Lock<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - chain: document analysis, the upstream stages (credentials, retries) and the transport.
    ///   - source: where the learned schema goes.
    init(chain: ExchangeChain, source: EntitySchemaSource) {
        self.chain = chain
        self.source = source
    }

    /// Starts learning, once.
    func start(logger: Logger) {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { await self.run(logger: logger) }
        }
    }

    /// Stops asking (the pipeline was replaced or the gateway stops).
    func stop() {
        task.withLock { $0?.cancel() }
    }

    private func run(logger: Logger) async {
        var delay = Duration.seconds(1)
        var warned = false
        while !Task.isCancelled {
            switch await SchemaIntrospection.learn(through: chain) {
            case .success(let schema):
                source.update(schema)
                logger.info("upstream schema learned", metadata: ["types_with_id": .stringConvertible(schema.identifiedTypes.count)])
                return
            case .failure(.refused(let reason)):
                logger.warning("upstream schema unknown", metadata: [
                    "reason": "\(reason)", "detail": "cached answers are tagged with the ids clients select only",
                ])
                return
            case .failure(.unanswered(let reason)):
                if !warned {
                    logger.warning("upstream schema not learned yet", metadata: ["reason": "\(reason)", "detail": "asking again"])
                    warned = true
                }
                try? await EventLoop.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
    }
}
