@_spi(GQLGateInternals) import GQLGateCore
import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

private let heroAnswer = #"{"data":{"hero":{"name":"R2-D2","_gqlgate_typename":"Droid"}}}"#
private let heroStripped = #"{"data":{"hero":{"name":"R2-D2"}}}"#

/// A cache exchange over a fresh cache, on a manual clock.
private struct Fixture {
    let clock = ManualClock()
    let cache: MemoryResponseCache
    let exchange: CacheExchange

    init(types: [String: Duration] = [:], staleWhileRevalidate: Duration = .zero, staleIfError: Duration = .zero) {
        cache = MemoryResponseCache(maxBytes: 1 << 20, staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError)
        exchange = CacheExchange(cache: cache, settings: .init(ttl: CacheTTLPolicy(defaultTTL: .seconds(30), typeTTLs: types)),
                                 clock: .monotonic(clock.clock))
    }

    func serve(_ operation: Operation, _ upstream: ScriptedUpstream) async throws -> String {
        try await served(by: exchange, operation, upstream: upstream)
    }
}

@Suite struct CacheExchangeTests {
    @Test func aRepeatedQueryIsAHitWithTheSameBodyAndAge() async throws {
        let fixture = Fixture()
        let upstream = ScriptedUpstream(heroAnswer)
        let query = try analysed("{ hero { name } }")
        #expect(try await fixture.serve(query, upstream) == "200 MISS \(heroStripped)")
        fixture.clock.advance(by: .seconds(3))
        #expect(try await fixture.serve(query, upstream) == "200 HIT Age: 3 \(heroStripped)")
        #expect(upstream.calls == 1)
        #expect(upstream.queries[0].contains("_gqlgate_typename: __typename"))
        let statistics = fixture.cache.statistics
        #expect((statistics.hits, statistics.misses, statistics.bypasses, statistics.entries) == (1, 1, 0, 1))
    }

    /// A hit answered at once carries a ticket (`CacheHitTicket`): renewed,
    /// it gives the age now and counts a hit, until the answer expires or the
    /// cache removes or replaces an answer.
    @Test func aHitAtOnceCarriesATicketThatHoldsWhileTheAnswerIsFreshAndUnchanged() async throws {
        let fixture = Fixture()
        let upstream = ScriptedUpstream(heroAnswer)
        let query = try analysed("{ hero { name } }")
        _ = try await fixture.serve(query, upstream)
        var unasked = query
        guard case .answer = fixture.exchange.decide(&unasked) else { Issue.record("a fresh answer should be given at once"); return }
        #expect(unasked.cacheHit == nil, "no ticket unless asked for")
        var hit = query
        hit.asksForCacheHitTicket = true
        guard case .answer = fixture.exchange.decide(&hit) else { Issue.record("a fresh answer should be given at once"); return }
        let ticket = try #require(hit.cacheHit)
        fixture.clock.advance(by: .seconds(4))
        #expect(ticket.renewedAge() == .seconds(4))
        #expect(fixture.cache.statistics.hits == 3, "two hits at once, one renewal")
        fixture.clock.advance(by: .seconds(26))
        #expect(ticket.renewedAge() == nil, "expired at the answer's TTL of 30 s")

        let purged = Fixture()
        _ = try await purged.serve(query, upstream)
        var again = query
        again.asksForCacheHitTicket = true
        guard case .answer = purged.exchange.decide(&again) else { Issue.record("a fresh answer should be given at once"); return }
        let second = try #require(again.cacheHit)
        #expect(await purged.cache.purge(entities: [], types: ["Droid"], arguments: [:]) == 1)
        #expect(second.renewedAge() == nil, "the answer was purged")
        #expect(purged.cache.statistics.hits == 1)
    }

    @Test func aQueryUsingDeferIsSentAsItIsAndNeverStored() async throws {
        let fixture = Fixture()
        let upstream = ScriptedUpstream(#"{"data":{"hero":{"name":"R2-D2"}},"hasNext":true}"#)
        let query = try analysed("{ hero { name ... @defer { friends { name } } } }")
        #expect(try await fixture.serve(query, upstream) == #"200 BYPASS {"data":{"hero":{"name":"R2-D2"}},"hasNext":true}"#)
        #expect(try await fixture.serve(query, upstream) == #"200 BYPASS {"data":{"hero":{"name":"R2-D2"}},"hasNext":true}"#)
        #expect(upstream.queries == Array(repeating: "{ hero { name ... @defer { friends { name } } } }", count: 2))
        #expect(fixture.cache.statistics.entries == 0)
    }

    @Test func numbersReachTheClientAsTheUpstreamWroteThemOnMissAndHit() async throws {
        let fixture = Fixture()
        let numbers = #"{"a": 5.0, "b": 1e400, "c": -0, "d": 12345678901234567890, "e": 1.5E+3}"#
        let upstream = ScriptedUpstream(#"{"data": {"_gqlgate_typename": "Query", "stats": {"_gqlgate_typename": "Stats", "raw": "#
            + numbers + "}}}")
        let query = try analysed("{ stats { raw } }")
        let body = #"{"data": {"stats": {"raw": "# + numbers + "}}}"
        #expect(try await fixture.serve(query, upstream) == "200 MISS \(body)")
        #expect(try await fixture.serve(query, upstream) == "200 HIT Age: 0 \(body)")
        #expect(upstream.calls == 1)
    }

    @Test func anAnswerNestedPastTheBoundIsPassedOnAndNotStored() async throws {
        let fixture = Fixture()
        let deep = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        let answer = #"{"data":{"stats":{"raw":"# + deep + "}}}"
        let upstream = ScriptedUpstream(answer)
        let query = try analysed("{ stats { raw } }")
        #expect(try await fixture.serve(query, upstream) == "200 BYPASS \(answer)")
        #expect(try await fixture.serve(query, upstream) == "200 BYPASS \(answer)")
        #expect(upstream.calls == 2)
    }

    @Test func anotherScopeIsAMiss() async throws {
        let fixture = Fixture()
        let upstream = ScriptedUpstream(heroAnswer)
        _ = try await fixture.serve(try analysed("{ hero { name } }", headers: ["Authorization": "Bearer a"]), upstream)
        #expect(try await fixture.serve(try analysed("{ hero { name } }", headers: ["Authorization": "Bearer b"]), upstream)
            == "200 MISS \(heroStripped)")
        #expect(try await fixture.serve(try analysed("{hero{name}}", headers: ["authorization": "Bearer a"]), upstream)
            == "200 HIT Age: 0 \(heroStripped)")
        #expect(upstream.calls == 2)
    }

    @Test(arguments: [
        (#"{"data":{"hero":null},"errors":[{"message":"boom"}]}"#, ["Content-Type": "application/json"] as HTTPHeaders, 200),
        (heroAnswer, ["Cache-Control": "no-store"] as HTTPHeaders, 200),
        (heroAnswer, ["Cache-Control": "private, max-age=60"] as HTTPHeaders, 200),
        (heroAnswer, ["Cache-Control": "max-age=0"] as HTTPHeaders, 200),
        (heroAnswer, ["Content-Type": "application/json"] as HTTPHeaders, 503),
        ("not json", ["Content-Type": "text/plain"] as HTTPHeaders, 200),
    ])
    func uncacheableAnswersAreBypassedAndNotStored(body: String, headers: HTTPHeaders, status: Int) async throws {
        let fixture = Fixture()
        let upstream = ScriptedUpstream([.init(status: status, headers: headers, body: body)])
        let query = try analysed("{ hero { name } }")
        for _ in 0..<2 { #expect(try await fixture.serve(query, upstream).hasPrefix("\(status) BYPASS")) }
        #expect(upstream.calls == 2)
        #expect(fixture.cache.statistics.bypasses == 2)
    }

    @Test func privateAnswersAreStoredPerScope() async throws {
        let fixture = Fixture()
        let upstream = ScriptedUpstream([.init(headers: ["Cache-Control": "private"], body: heroAnswer)])
        let query = try analysed("{ hero { name } }", headers: ["Authorization": "Bearer a"])
        _ = try await fixture.serve(query, upstream)
        #expect(try await fixture.serve(query, upstream).hasPrefix("200 HIT"))
    }

    @Test func aClientsNoCacheBypassesTheStoredAnswer() async throws {
        let fixture = Fixture()
        let upstream = ScriptedUpstream(heroAnswer)
        _ = try await fixture.serve(try analysed("{ hero { name } }"), upstream)
        #expect(try await fixture.serve(try analysed("{ hero { name } }", headers: ["Cache-Control": "no-cache"]), upstream)
            == "200 BYPASS \(heroStripped)")
        #expect(upstream.calls == 2)
    }

    @Test func theShortestTypeTTLWins() async throws {
        let fixture = Fixture(types: ["Review": .seconds(10), "Droid": .seconds(60)])
        let upstream = ScriptedUpstream(
            #"{"data":{"hero":{"name":"R2-D2","_gqlgate_typename":"Droid"},"reviews":[{"stars":5,"_gqlgate_typename":"Review"}]}}"#)
        let query = try analysed("{ hero { name } reviews(episode: JEDI) { stars } }")
        _ = try await fixture.serve(query, upstream)
        fixture.clock.advance(by: .milliseconds(9_999))
        #expect(try await fixture.serve(query, upstream).hasPrefix("200 HIT Age: 9 "))
        fixture.clock.advance(by: .milliseconds(1))
        #expect(try await fixture.serve(query, upstream).hasPrefix("200 MISS"))
    }

    @Test func staleWhileRevalidateServesTheOldAnswerAndRefreshesOnce() async throws {
        let fixture = Fixture(staleWhileRevalidate: .seconds(5))
        let upstream = ScriptedUpstream(heroAnswer, #"{"data":{"hero":{"name":"C-3PO","_gqlgate_typename":"Droid"}}}"#)
        let query = try analysed("{ hero { name } }")
        _ = try await fixture.serve(query, upstream)
        fixture.clock.advance(by: .seconds(32))
        #expect(try await fixture.serve(query, upstream) == "200 HIT Age: 32 \(heroStripped)")
        let key = RequestKey(operation: query, headers: KeyHeaders(scope: ["authorization"]))
        #expect(await eventually {
            if case .fresh = fixture.cache.lookup(key, now: CacheClock.monotonic(fixture.clock.clock).now()) { return true }
            return false
        })
        #expect(try await fixture.serve(query, upstream) == #"200 HIT Age: 0 {"data":{"hero":{"name":"C-3PO"}}}"#)
        #expect(upstream.calls == 2)
    }

    @Test func staleIfErrorServesTheOldAnswerInsteadOfAFailure() async throws {
        let fixture = Fixture(staleIfError: .seconds(60))
        let upstream = ScriptedUpstream([
            .init(body: heroAnswer),
            .init(body: "", error: .upstreamUnavailable("down")),
            .init(status: 503, body: #"{"errors":[{"message":"busy"}]}"#),
            .init(body: "", error: .upstreamTimeout("slow")),
        ])
        let query = try analysed("{ hero { name } }")
        _ = try await fixture.serve(query, upstream)
        fixture.clock.advance(by: .seconds(40))
        #expect(try await fixture.serve(query, upstream) == "200 HIT Age: 40 \(heroStripped)")
        #expect(try await fixture.serve(query, upstream) == "200 HIT Age: 40 \(heroStripped)")
        fixture.clock.advance(by: .seconds(51))
        #expect(try await fixture.serve(query, upstream).hasPrefix("504 BYPASS"))
    }

    @Test func aMutationPurgesTheListsItMayHaveChangedAndNothingElse() async throws {
        let fixture = Fixture()
        let jedi = try analysed(#"query R($e: Episode!) { reviews(episode: $e) { id stars } }"#, variables: .object([("e", .string("JEDI"))]))
        let empire = try analysed(#"{ reviews(episode: EMPIRE) { id stars } }"#)
        let hero = try analysed("{ hero { name } }")
        _ = try await fixture.serve(jedi, ScriptedUpstream(#"{"data":{"reviews":[{"id":"1","stars":4,"_gqlgate_typename":"Review"}]}}"#))
        _ = try await fixture.serve(empire, ScriptedUpstream(#"{"data":{"reviews":[{"id":"2","stars":3,"_gqlgate_typename":"Review"}]}}"#))
        _ = try await fixture.serve(hero, ScriptedUpstream(heroAnswer))
        let create = try analysed("mutation { createReview(episode: JEDI, review: {stars: 5}) { id stars } }")
        let mutationUpstream = ScriptedUpstream(#"{"data":{"createReview":{"id":"3","stars":5,"_gqlgate_typename":"Review"}}}"#)
        #expect(try await fixture.serve(create, mutationUpstream) == #"200 - {"data":{"createReview":{"id":"3","stars":5}}}"#)
        #expect(mutationUpstream.queries[0].contains("_gqlgate_typename: __typename"))
        let again = ScriptedUpstream(#"{"data":{"reviews":[]}}"#)
        #expect(try await fixture.serve(jedi, again).hasPrefix("200 MISS"))
        #expect(try await fixture.serve(empire, again).hasPrefix("200 HIT"))
        #expect(try await fixture.serve(hero, again).hasPrefix("200 HIT"))
        #expect(fixture.cache.statistics.invalidations == 1)
    }

    @Test func aMutationPurgesEveryAnswerHoldingAnEntityItReturns() async throws {
        let fixture = Fixture()
        let hero = try analysed("{ hero(episode: EMPIRE) { id name } }")
        _ = try await fixture.serve(hero, ScriptedUpstream(#"{"data":{"hero":{"id":"1000","name":"Luke","_gqlgate_typename":"Human"}}}"#))
        let rename = try analysed(#"mutation { rename(id: "1000", episode: JEDI) { id name } }"#)
        _ = try await fixture.serve(rename, ScriptedUpstream(#"{"data":{"rename":{"id":"1000","name":"Luke S.","_gqlgate_typename":"Human"}}}"#))
        #expect(try await fixture.serve(hero, ScriptedUpstream(heroAnswer)).hasPrefix("200 MISS"))
    }

    @Test func subscriptionsAndMutationsWithoutInvalidationPassUntouched() async throws {
        let cache = MemoryResponseCache(maxBytes: 1 << 20)
        let exchange = CacheExchange(cache: cache, settings: .init(invalidateOnMutation: false))
        let upstream = ScriptedUpstream(#"{"data":{"b":1}}"#)
        _ = try await served(by: exchange, try analysed("mutation { b }"), upstream: upstream)
        _ = try await served(by: exchange, try analysed("subscription { c { d } }"), upstream: upstream)
        #expect(upstream.queries == ["mutation { b }", "subscription { c { d } }"])
    }
}

@Suite struct RequestKeyTests {
    @Test func variableOrderDoesNotMatter() throws {
        let a = try analysed("query Q($a: Int, $b: Int) { f(a: $a, b: $b) }", variables: .object([("a", .integer(1)), ("b", .integer(2))]))
        let b = try analysed("query Q($a: Int, $b: Int) { f(a: $a, b: $b) }", variables: .object([("b", .integer(2)), ("a", .integer(1))]))
        #expect(RequestKey(operation: a, headers: KeyHeaders(scope: ["authorization"])) == RequestKey(operation: b, headers: KeyHeaders(scope: ["authorization"])))
    }

    @Test func scopeVariablesAndOperationNameMatter() throws {
        let keys = try [
            analysed("query A { f } query B { g }", operationName: "A"),
            analysed("query A { f } query B { g }", operationName: "B"),
            analysed("query A { f } query B { g }", operationName: "A", variables: .object([("x", .integer(1))])),
            analysed("query A { f } query B { g }", operationName: "A", headers: ["Authorization": "Bearer a"]),
            analysed("query A { f } query B { g }", operationName: "A", headers: ["Authorization": "Bearer b"]),
        ].map { RequestKey(operation: $0, headers: KeyHeaders(scope: ["authorization"])) }
        #expect(Set(keys).count == 5)
        #expect(keys[0].hasEmptyScope && !keys[3].hasEmptyScope)
    }

    @Test func onlyTheVaryHeadersMakeTheScope() throws {
        let a = try analysed("{ f }", headers: ["Authorization": "Bearer a", "Accept-Language": "de"])
        let b = try analysed("{ f }", headers: ["Authorization": "Bearer a", "Accept-Language": "fr"])
        #expect(RequestKey(operation: a, headers: KeyHeaders(scope: ["authorization"])) == RequestKey(operation: b, headers: KeyHeaders(scope: ["authorization"])))
        #expect(RequestKey(operation: a, headers: KeyHeaders(scope: ["authorization", "accept-language"]))
            != RequestKey(operation: b, headers: KeyHeaders(scope: ["authorization", "accept-language"])))
    }

    @Test func everyForwardedFieldButTheUnkeyedOnesAndAnAcceptThatGoesUpstreamAreInTheKey() throws {
        let headers = KeyHeaders(scope: ["authorization"], forwarded: ["accept-language", "cookie", "traceparent"], unkeyed: ["traceparent"])
        func key(_ fields: HTTPHeaders) throws -> RequestKey {
            RequestKey(operation: try analysed("{ f }", headers: fields), headers: headers)
        }
        #expect(try key(["Accept-Language": "de"]) != key(["Accept-Language": "en"]))
        #expect(try key(["Cookie": "session=alice"]) != key(["Cookie": "session=bob"]))
        // The upstream is sent the gateway's Accept, and each client gets the answer in its media type…
        #expect(try key(["Accept": "application/json"]) == key(["Accept": "application/graphql-response+json"]))
        #expect(try key(["Accept": "*/*"]) == key([:]))
        // …but for incremental delivery, which the upstream produces, the client's own goes upstream.
        #expect(try key(["Accept": "multipart/mixed;deferSpec=20220824, application/json"]) != key(["Accept": "application/json"]))
        #expect(try key(["Traceparent": "00-a-b-01"]) == key(["Traceparent": "00-c-d-01"]))
        // Forwarded fields are no scope: a `private` answer still needs a vary header.
        #expect(try key(["Cookie": "session=alice"]).hasEmptyScope)
    }

    @Test func answersThatAreOneClientsAreNotShareable() {
        let headers = KeyHeaders(scope: ["authorization"], forwarded: ["traceparent"], unkeyed: ["traceparent"])
        #expect(headers.answerIsShareable(["Content-Type": "application/json", "Vary": "Accept-Encoding, Accept-Language"]))
        #expect(!headers.answerIsShareable(["Set-Cookie": "session=victim; HttpOnly"]))
        #expect(!headers.answerIsShareable(["Vary": "*"]))
        #expect(!headers.answerIsShareable(["Vary": "Origin , TraceParent"]))
    }

    /// The hex that names an answer in Redis: the SHA-256 of the parts (a tag,
    /// then each part and a NUL), the same on every replica and every version.
    @Test func theDescriptionIsTheSHA256OfTheParts() {
        let sent = Operation(request: GraphQLRequest(query: "{ a }", operationName: "A"), clientTransport: .httpPost, headers: [:], requestID: "r")
        // printf '\x02{ a }\x00A\x00\x00' | sha256sum
        #expect(RequestKey(operation: sent, headers: KeyHeaders(scope: ["authorization"])).description
            == "ad186d659b5075bc72f2bf32fccc878c708d92f0b49a1fa802c5448317812932")
    }
}

@Suite struct CacheClockTests {
    @Test func readsTheMonotonicOrTheWallReadingOfItsClock() {
        let manual = ManualClock(monotonicNanoseconds: 7_000_000_000, wallTime: .seconds(1_800_000_000))
        #expect(CacheClock.monotonic(manual.clock).now() == .seconds(7))
        #expect(CacheClock.wall(manual.clock).now() == .seconds(1_800_000_000))
        manual.advance(by: .seconds(2))
        #expect(CacheClock.monotonic(manual.clock).now() == .seconds(9))
        #expect(CacheClock.wall(manual.clock).now() == .seconds(1_800_000_002))
    }
}
