public import GQLGateCore

/// How the client sent an operation.
public enum ClientTransport: Sendable, Equatable {
    /// `GET /graphql?query=...`
    case httpGet
    /// `POST /graphql` with a JSON body.
    case httpPost
    /// A message on a client WebSocket (graphql-transport-ws or graphql-ws).
    case webSocket
}

/// How the client takes the operation's results.
public enum ResultDelivery: Sendable, Equatable {
    /// One HTTP answer (`application/json` or `application/graphql-response+json`).
    case single
    /// Server-Sent Events (`Accept: text/event-stream`, graphql-sse distinct connections mode).
    case serverSentEvents
    /// Apollo's multipart subscriptions (`Accept: multipart/mixed;subscriptionSpec="1.0"`).
    case multipart
    /// Messages on the client's WebSocket.
    case webSocket

    /// Whether many results can reach the client (what a subscription needs).
    public var streams: Bool { self != .single }
}

/// One GraphQL operation on its way through the exchanges.
public struct Operation: Sendable {
    /// The request parameters. Changing them drops `originalBody`, so the
    /// transport sends what the exchanges made, not what the client sent.
    public var request: GraphQLRequest {
        didSet { originalBody = nil }
    }
    /// How the client sent it.
    public var clientTransport: ClientTransport
    /// How the client takes the results.
    public var delivery: ResultDelivery
    /// The media type the client's `Accept` asked for: every JSON answer it
    /// gets over HTTP (a stream's refusal included) is in it (`GraphQLResponse.delivered(as:)`,
    /// `GatewayError.response(as:)`). Set by the endpoint.
    package var responseMediaType = ResponseMediaType.graphQLResponse
    /// Whether the client takes an incremental answer (`@defer`, `@stream`)
    /// as `multipart/mixed` parts: an HTTP request for one answer whose
    /// `Accept` admits `multipart/mixed`. Set by the gateway's endpoint; an
    /// operation that `defersResults` without it is refused.
    package var acceptsIncrementalDelivery = false
    /// The client's request headers.
    public var headers: HTTPHeaders
    /// The request id: the client's `X-Request-Id`, or a new one.
    public var requestID: String
    /// The parsed and analysed document, once `DocumentExchange` ran.
    package var document: AnalysedDocument?
    /// The operation chosen from the document, once `DocumentExchange` ran.
    package var selected: DocumentOperation?
    /// The persisted document's id when the client asked for a listed
    /// document by id (and the request now holds its text).
    package var persistedDocumentID: String?
    /// The client's JSON body, forwarded unchanged while nothing rewrote the request.
    package private(set) var originalBody: Bytes?
    /// Header fields exchanges add to the upstream request (credentials, say).
    /// The transport sends them after the client's forwarded fields, replacing
    /// any forwarded field of the same name.
    public var upstreamHeaders = HTTPHeaders()
    /// When the whole operation must be over (a `GatewayClock` monotonic reading in
    /// nanoseconds), retries included; the transport shortens its per-attempt
    /// timeout to fit. `nil`: only the per-attempt timeout applies.
    package var deadline: UInt64?
    /// Who the client is, for limits per client: the key it authenticated
    /// with, else its address. Set by the gateway only when a stage reads it
    /// (`clients.rate_limit` by key).
    package var clientID: String?
    /// The operation's estimated cost (`demand_control`), once the demand
    /// control stage ran; nil when nothing estimated it.
    package var estimatedCost: Double?
    /// Set by the endpoint when it would serve a hit again (the hit replay):
    /// a cache stage that answers at once from memory then sets `cacheHit`.
    package var asksForCacheHitTicket = false
    /// How the endpoint may serve the same answer again (`CacheHitTicket`),
    /// when it asked for it and a cache stage answered at once from memory.
    package var cacheHit: (any CacheHitTicket)?
    /// The facts gathered for the client request (its access line, metrics
    /// and span read them); `nil` when nobody keeps them. Stages add to it
    /// through `record`.
    package let facts: OperationRecord?

    /// States `fact` about the operation: kept in its record and told to the gateway's recorder.
    package func record(_ fact: OperationFact) {
        facts?.record(fact)
    }

    /// The operation's kind, once the document was analysed.
    public var kind: OperationKind? { selected?.kind }

    /// Whether the selected operation uses `@defer` or `@stream`, so that its
    /// answer may come in parts; false before the document was analysed.
    package var defersResults: Bool { selected?.shape.defersResults == true }

    /// The selected operation's name once the document was analysed (nil for
    /// an anonymous one), the `operationName` the client sent before.
    public var operationName: String? { selected == nil ? request.operationName : selected?.name }

    /// The body to send upstream: the client's bytes when untouched, else the request re-encoded.
    package func upstreamBody() -> Bytes {
        originalBody ?? Bytes(request.jsonBody())
    }
}

extension Operation {
    /// An operation as a client would send it (a test's, a stage's own).
    public init(request: GraphQLRequest, clientTransport: ClientTransport, delivery: ResultDelivery = .single,
                headers: HTTPHeaders, requestID: String) {
        self.init(request: request, clientTransport: clientTransport, delivery: delivery, headers: headers, requestID: requestID,
                  originalBody: nil)
    }

    /// An operation as the gateway receives it: with the client's body as sent, who the client is, and its record.
    package init(request: GraphQLRequest, clientTransport: ClientTransport, delivery: ResultDelivery = .single,
                 headers: HTTPHeaders, requestID: String, originalBody: Bytes?, clientID: String? = nil,
                 facts: OperationRecord? = nil) {
        // Through the memberwise initialiser (`responseMediaType` picks it): an initialiser
        // that sets the fields one by one builds a value this large aside and copies it
        // into place, a retain and a release of each of its references.
        self.init(request: request, clientTransport: clientTransport, delivery: delivery, responseMediaType: .graphQLResponse,
                  headers: headers, requestID: requestID, originalBody: originalBody, clientID: clientID, facts: facts)
    }
}
