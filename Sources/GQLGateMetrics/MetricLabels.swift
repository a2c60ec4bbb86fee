package import GQLGatePipeline

/// The `status` label of `gqlgate_requests_total`: the class of the status sent to the client.
package enum StatusClass: String, CaseIterable, Sendable {
    case success = "2xx"
    case redirection = "3xx"
    case clientError = "4xx"
    case serverError = "5xx"

    /// The class of `status`; anything below 300 counts as 2xx, anything from 500 up as 5xx.
    package init(status: Int) {
        switch status {
        case ..<300: self = .success
        case 300..<400: self = .redirection
        case 400..<500: self = .clientError
        default: self = .serverError
        }
    }
}

/// The `operation` label: the operation's kind, or `unknown` when the request
/// never got as far as a parsed document (bad body, syntax error, 404).
package enum OperationLabel: String, CaseIterable, Sendable {
    case query
    case mutation
    case subscription
    case unknown

    /// The label of an operation whose kind is `kind` (nil: not analysed).
    package init(_ kind: OperationKind?) {
        switch kind {
        case .query: self = .query
        case .mutation: self = .mutation
        case .subscription: self = .subscription
        case nil: self = .unknown
        }
    }
}

/// The `outcome` label of `gqlgate_token_refreshes_total`.
package enum TokenRefreshOutcome: String, CaseIterable, Sendable {
    case ok
    case failed
}

/// The `outcome` label of `gqlgate_schema_refreshes_total`: what reading
/// the schema's source (the file, or introspection) did.
package enum SchemaRefreshOutcome: String, CaseIterable, Sendable {
    /// A schema different from the one held was loaded.
    case loaded
    /// The source gave the schema held already.
    case unchanged
    /// No schema: the source could not be read, refused, or did not make a schema.
    case failed

    var index: Int {
        switch self {
        case .loaded: 0
        case .unchanged: 1
        case .failed: 2
        }
    }

    package init(_ refresh: SchemaRefresh) {
        switch refresh {
        case .loaded: self = .loaded
        case .unchanged: self = .unchanged
        case .failed: self = .failed
        }
    }
}

/// The `reason` label of `gqlgate_load_shed_total`.
package enum LoadShedReason: String, CaseIterable, Sendable {
    /// No place among `upstream.max_concurrency` within `upstream.queue_timeout`.
    case overloaded
    /// The circuit breaker is open.
    case circuitOpen = "circuit_open"
}

// MARK: - Series positions

// Each label's position in `allCases`, the order `GatewayMetrics` creates its
// series in; a switch, so recording neither allocates nor searches.

extension StatusClass {
    var index: Int {
        switch self {
        case .success: 0
        case .redirection: 1
        case .clientError: 2
        case .serverError: 3
        }
    }
}

extension OperationLabel {
    var index: Int {
        switch self {
        case .query: 0
        case .mutation: 1
        case .subscription: 2
        case .unknown: 3
        }
    }
}

extension TokenRefreshOutcome {
    var index: Int {
        switch self {
        case .ok: 0
        case .failed: 1
        }
    }
}

extension PersistedDocumentOutcome {
    /// Its counter's place (`gqlgate_persisted_documents_total{outcome}`).
    var index: Int {
        switch self {
        case .idFound: 0
        case .idUnknown: 1
        case .listedText: 2
        case .unlistedText: 3
        case .refused: 4
        }
    }
}

extension LoadShedReason {
    var index: Int {
        switch self {
        case .overloaded: 0
        case .circuitOpen: 1
        }
    }
}
