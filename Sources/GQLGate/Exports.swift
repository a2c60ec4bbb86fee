// `import GQLGate` brings what embedding the gateway and writing an exchange
// take, and nothing of the machinery. This module's own public face is
// `Gateway`, `GatewayStartError`, `ConfigReload` and `DrainOutcome`; the four
// re-exports below each carry only their public declarations (everything else
// in them, and all of every other module, is `package`):
//
// - GQLGatePipeline: the stage model: `Exchange`, `InlineExchange`
//   (`InlineDecision`), `ExchangeNext`, `Operation` (`GraphQLRequest`,
//   `JSONValue`, `OperationKind`, `ClientTransport`, `ResultDelivery`),
//   `ResultStream`, `GraphQLResponse`, `GatewayError`
//   (`GatewayErrorConvertible`), and where a stage goes: `ExchangePlacement`,
//   `PipelineSlot`.
// - GQLGateConfig: `GatewayConfig` and its sections, `ConfigLoader`,
//   `ConfigOverrides`, `ConfigError` (`Gateway.init` and `reload` take them).
// - GQLGateCore: the types public signatures use: `HTTPHeaders` (operations'
//   and responses' header fields), `Bytes` (response bodies), `ContentCoding`
//   (`compression.algorithms`).
// - GQLGateMetrics: `GatewayMetrics`, which `Gateway.init` takes.
//
// `Gateway.init`'s `logger` is swift-log's `Logger`: import `Logging` to pass one.
@_exported public import GQLGateConfig
@_exported public import GQLGateCore
@_exported public import GQLGateMetrics
@_exported public import GQLGatePipeline
