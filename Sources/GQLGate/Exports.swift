// `import GQLGate` brings what embedding the gateway and writing an exchange
// take, and nothing of the machinery: the stage model (`Exchange`,
// `InlineExchange`, `Operation`, `ResultStream`, `GraphQLResponse`,
// `GatewayError`, `ExchangePlacement`, `PipelineSlot`), the configuration
// types, the header fields and bytes those use, and `GatewayMetrics`
// (`Gateway.init` takes one). Everything else in the package is `package`.
@_exported public import GQLGateConfig
@_exported public import GQLGateCore
@_exported public import GQLGateMetrics
@_exported public import GQLGatePipeline
