import GQLGateCore
package import GQLGatePipeline

/// The response cache (`cache.enabled`). Queries are answered from the
/// `ResponseCacheStore` (memory or Redis) when it holds a fresh answer for their `RequestKey`
/// (`X-Cache: HIT` and `Age`), else fetched with `__typename` added to every
/// selection set (and `id` where the learned `EntitySchema` gives the type
/// one), stripped of them again, and stored when cacheable
/// (`X-Cache: MISS`) or not (`X-Cache: BYPASS`: errors, no `data`, a status
/// other than 200, upstream `no-store`/`no-cache`, `private` with an empty
/// scope, `Set-Cookie`, a `Vary` of `*` or of a field left out of the key
/// (`KeyHeaders`), a TTL of zero, or a client's `Cache-Control: no-cache`). The TTL
/// is `CacheTTLPolicy`'s. Expired answers are served within
/// `stale_while_revalidate` (one refresh runs in the background) and, within
/// `stale_if_error`, instead of an upstream failure (a 5xx answer or no answer).
/// A store that cannot be reached turns every query into a bypass: fetched,
/// answered, not stored.
///
/// While `invalidate_on_mutation` is on, mutations are sent with
/// `__typename` (and `id`) too, and their answers purge what they may have changed (see
/// `ResponseCacheStore.purge`). Subscriptions pass untouched, and so do
/// operations using `@defer` or `@stream`, whose answers may come in parts
/// the cache never sees whole (a query's is marked `X-Cache: BYPASS`). Place after
/// the query limits, before dedupe.
package struct CacheExchange: InlineExchange {
    /// What the exchange does besides storing.
    package struct Settings: Sendable {
        /// The client fields in the key: the scope (`cache.vary_headers`) and the forwarded ones.
        package var keyHeaders: KeyHeaders
        /// `cache.default_ttl` and `cache.types`.
        package var ttl: CacheTTLPolicy
        /// `cache.invalidate_on_mutation`.
        package var invalidateOnMutation: Bool
        /// The upstream schema, once learned: where it gives a type an `id`,
        /// answers are tagged with that entity even when the client did not
        /// select `id`. Without one (or before it is learned) only the ids
        /// clients select tag entities.
        package var schema: EntitySchemaSource?

        package init(keyHeaders: KeyHeaders = KeyHeaders(), ttl: CacheTTLPolicy = CacheTTLPolicy(), invalidateOnMutation: Bool = true,
                    schema: EntitySchemaSource? = nil) {
            self.keyHeaders = keyHeaders
            self.ttl = ttl
            self.invalidateOnMutation = invalidateOnMutation
            self.schema = schema
        }
    }

    private let cache: any ResponseCacheStore
    /// The same store when its fresh answers are in memory, which `decide` gives.
    private let memory: (any InlineResponseCache)?
    /// Whether answers may come from a store other replicas write (not only from this process's memory).
    private let shared: Bool
    private let settings: Settings
    private let clock: CacheClock

    /// - Parameter clock: the time answers are stamped and aged with; by
    ///   default the store's own (`ResponseCacheStore.clock`).
    package init(cache: any ResponseCacheStore, settings: Settings = Settings(), clock: CacheClock? = nil) {
        self.cache = cache
        memory = cache as? any InlineResponseCache
        shared = !(cache is MemoryResponseCache)
        self.settings = settings
        self.clock = clock ?? cache.clock
    }

    package func handle(_ operation: Operation, next: @escaping ExchangeNext) async throws -> ResultStream {
        switch operation.kind {
        case .query where operation.defersResults: return .single(try await bypassed(operation, next: next))
        case .query: return .single(try await query(operation, next: next))
        case .mutation where settings.invalidateOnMutation && !operation.defersResults: return .single(try await mutation(operation, next: next))
        default: return try await next(operation)
        }
    }

    /// The fresh answer to a query, when the store keeps answers in memory
    /// (`InlineResponseCache`) and holds one, as `handle` would give it (`X-Cache: HIT`, `Age`, the
    /// hit counted), with the operation's `cacheHit` ticket when it asks for one; anything else (a client's `Cache-Control: no-cache`
    /// included) `handle` decides, on a loop.
    package func decide(_ operation: inout Operation) -> InlineDecision {
        guard let memory, operation.kind == .query, !operation.defersResults else { return .onLoop }
        let client = CacheControlDirectives(operation.headers)
        let key = requestKey(for: operation)
        guard !client.noCache, !client.noStore, let found = memory.freshHit(for: key, now: clock.now()) else { return .onLoop }
        var response = served(found.answer, age: found.age)
        response.headers.add(name: "X-Cache", value: CacheOutcome.hit.rawValue)  // stored without one
        operation.record(.cacheServed(.hit))
        if operation.asksForCacheHitTicket {
            operation.cacheHit = MemoryHitTicket(memory: memory, clock: clock, key: key, changeCount: found.changeCount, answer: found.answer)
        }
        return .answer(response)
    }

    /// The key a query's answer is stored under: its document, operation
    /// name, variables, scope (`cache.vary_headers`) and forwarded fields.
    private func requestKey(for operation: borrowing Operation) -> RequestKey {
        RequestKey(operation: operation, headers: settings.keyHeaders)
    }

    // MARK: - Queries

    private func query(_ operation: Operation, next: @escaping ExchangeNext) async throws -> GraphQLResponse {
        let key = requestKey(for: operation)
        let client = CacheControlDirectives(operation.headers)
        let found = client.noCache || client.noStore ? .miss : await cache.lookup(key, now: clock.now())
        let (response, outcome): (GraphQLResponse, CacheOutcome)
        switch found {
        case .fresh(let answer, let age):
            (response, outcome) = (served(answer, age: age), .hit)
        case .stale(let answer, let age, let refresh):
            if refresh { startRefresh(operation, key: key, next: next) }
            (response, outcome) = (served(answer, age: age), .hit)
        case .expired(let answer, let age):
            let fetched = try await fetchOrError(operation, key: key, next: next, mayStore: true)
            (response, outcome) = fetched.0.status >= 500 ? (served(answer, age: age), .hit) : fetched
        case .miss:
            (response, outcome) = try await fetchOrError(operation, key: key, next: next, mayStore: !(client.noCache || client.noStore))
        case .unavailable:
            (response, outcome) = try await fetchOrError(operation, key: key, next: next, mayStore: false)
        }
        cache.record(outcome)
        operation.record(.cacheServed(outcome))
        var marked = response
        marked.headers.replaceOrAdd(name: "X-Cache", value: outcome.rawValue)
        return marked
    }

    /// A query whose answer may come in parts: sent as it is, never looked up or stored.
    private func bypassed(_ operation: Operation, next: ExchangeNext) async throws -> GraphQLResponse {
        guard var response = try await next(operation).first() else { throw GatewayError.noResult }
        cache.record(.bypass)
        operation.record(.cacheServed(.bypass))
        response.headers.replaceOrAdd(name: "X-Cache", value: CacheOutcome.bypass.rawValue)
        return response
    }

    private func served(_ answer: CachedAnswer, age: Duration) -> GraphQLResponse {
        var headers = answer.headers
        // Never stored since this version; an answer a shared store kept from an earlier one may carry it.
        if shared { headers.remove(name: "Set-Cookie") }
        headers.reserveCapacity(headers.count + 3)  // Age here; X-Cache and X-Request-Id later
        headers.add(name: "Age", value: String(max(0, age.components.seconds)))  // stored without one
        var response = GraphQLResponse(status: answer.status, headers: headers, body: answer.body, source: .cache)
        response.encodings = answer.encodings
        return response
    }

    private func startRefresh(_ operation: Operation, key: RequestKey, next: @escaping ExchangeNext) {
        Task {
            let outcome = try? await fetch(operation, key: key, next: next, mayStore: true).1
            if outcome != .miss { await cache.refreshFailed(key) }
        }
    }

    /// `fetch`, with a gateway error (no upstream answer) turned into its answer.
    private func fetchOrError(_ operation: Operation, key: RequestKey, next: ExchangeNext,
                              mayStore: Bool) async throws -> (GraphQLResponse, CacheOutcome) {
        do {
            return try await fetch(operation, key: key, next: next, mayStore: mayStore)
        } catch let error as any GatewayErrorConvertible {
            return (error.gatewayError.response(), .bypass)
        }
    }

    /// Sends the query upstream with `__typename` added, strips it from the
    /// answer, and stores the answer when `mayStore` and it is cacheable.
    private func fetch(_ operation: Operation, key: RequestKey, next: ExchangeNext,
                       mayStore: Bool) async throws -> (GraphQLResponse, CacheOutcome) {
        let (response, inspection) = try await send(operation, next: next)
        guard let inspection else { return (response, .bypass) }
        let directives = CacheControlDirectives(response.headers)
        let ttl = settings.ttl.ttl(types: inspection.types, directives: directives)
        guard mayStore, response.status == 200, inspection.hasData, !inspection.hasErrors, !directives.noStore,
              !directives.noCache, !(directives.isPrivate && key.hasEmptyScope), ttl > .zero,
              settings.keyHeaders.answerIsShareable(response.headers)
        else { return (response, .bypass) }
        var headers = response.headers
        headers.remove(name: "X-Request-Id")
        headers.remove(name: "Age")
        headers.remove(name: "X-Cache")
        var purgeTags: Set<String> = [CacheTags.everyAnswer]
        if let name = operation.selected?.name { purgeTags.insert(CacheTags.operation(name)) }
        let tags = CacheTags(entities: inspection.entities.union(purgeTags), types: inspection.types,
                             arguments: settings.invalidateOnMutation ? rootArguments(of: operation) : [:])
        let stored = await cache.store(
            CachedAnswer(status: response.status, headers: headers, body: response.body, storedAt: clock.now(), ttl: ttl, tags: tags),
            for: key)
        return (response, stored ? .miss : .bypass)
    }

    // MARK: - Mutations

    private func mutation(_ operation: Operation, next: ExchangeNext) async throws -> GraphQLResponse {
        let (response, inspection) = try await send(operation, next: next)
        if let inspection, inspection.hasData {
            _ = await cache.purge(CachePurge(entities: inspection.entities, types: inspection.rootFieldTypes, arguments: rootArguments(of: operation)),
                                  now: clock.now())
            operation.record(.cachePurged)
        }
        return response
    }

    // MARK: - Upstream

    /// Sends `operation` with the typenamed document; returns the answer with
    /// the added `__typename`s and `id`s stripped, and what its body holds
    /// (nil when the body is not a JSON object).
    private func send(_ operation: Operation, next: ExchangeNext) async throws -> (GraphQLResponse, AnswerInspection?) {
        var upstream = operation
        let typenamed = operation.document?.typenamed(schema: settings.schema?.current)
        if let typenamed { upstream.request.query = typenamed.query }
        guard var response = try await next(upstream).first() else {
            throw GatewayError.noResult
        }
        let inspection = AnswerInspection(body: response.body, alias: typenamed?.alias, idAlias: typenamed?.idAlias)
        if let inspection { response.body = inspection.body }
        return (response, inspection)
    }

    private func rootArguments(of operation: Operation) -> [String: Set<String>] {
        operation.document?.rootArguments(operationName: operation.request.operationName, variables: operation.request.variables) ?? [:]
    }
}
