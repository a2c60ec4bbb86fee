// `import GQLGate` brings the pipeline API (Exchange, Operation, ResultStream,
// GatewayError, ...), the configuration types and the metrics along.
@_exported import GQLGateConfig
@_exported import GQLGateCore
@_exported import GQLGateExchanges
@_exported import GQLGateMetrics
@_exported import GQLGatePipeline
