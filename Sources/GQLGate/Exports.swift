// `import GQLGate` brings the pipeline API (Exchange, Operation, ResultStream,
// GatewayError, ...) and the configuration types along.
@_exported import GQLGateConfig
@_exported import GQLGateCore
@_exported import GQLGateExchanges
@_exported import GQLGatePipeline
