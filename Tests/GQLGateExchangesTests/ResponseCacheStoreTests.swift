import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline
import Testing

private func key(_ query: String) throws -> RequestKey {
    RequestKey(operation: try analysed(query), headers: KeyHeaders(scope: ["authorization"]))
}

private func answer(_ body: String, tags: CacheTags = CacheTags(), ttl: Duration = .seconds(10)) -> CachedAnswer {
    CachedAnswer(status: 200, headers: ["Content-Type": "application/json"], body: Bytes(body), storedAt: .zero, ttl: ttl, tags: tags)
}

@Suite struct MemoryResponseCacheTests {
    @Test func bytesCountBodyHeadersKeyTagsAndOverhead() throws {
        let cache = MemoryResponseCache(maxBytes: 1 << 20)
        let stored = answer("0123456789", tags: CacheTags(entities: ["Review:1"], types: ["Review"], arguments: ["episode": ["JEDI"]]))
        let k = try key("{ a }")
        cache.store(stored, for: k)
        let expected = CachedAnswer.entryOverhead + 10 + k.byteCount + ("Content-Type".utf8.count + "application/json".utf8.count + 4)
            + "Review:1".utf8.count + "Review".utf8.count + "episode".utf8.count + "JEDI".utf8.count
        #expect(stored.cost + k.byteCount == expected)
        #expect(cache.statistics.bytes == expected)
        cache.store(answer("01234"), for: k)
        #expect(cache.statistics.bytes == expected - 5 - 25)
        #expect(cache.statistics.entries == 1)
    }

    @Test func aConditionalStoreAsksUnderTheLockAndStoresOnlyWhenTold() throws {
        let cache = MemoryResponseCache(maxBytes: 1 << 20)
        let k = try key("{ a }")
        #expect(!cache.store(answer("old"), for: k, if: { false }))
        if case .miss = cache.lookup(k, now: .zero) {} else { Issue.record("nothing should have been stored") }
        #expect(cache.store(answer("new"), for: k, if: { true }))
        #expect(cache.freshHit(for: k, now: .zero)?.answer.body == Bytes("new"))
    }

    @Test func theLeastRecentlyUsedAnswersAreEvictedPastMaxBytes() throws {
        let body = String(repeating: "x", count: 1000)
        let (a, b, c) = (try key("{ a }"), try key("{ b }"), try key("{ c }"))
        let size = answer(body).cost + a.byteCount
        let cache = MemoryResponseCache(maxBytes: 2 * size)
        cache.store(answer(body), for: a)
        cache.store(answer(body), for: b)
        _ = cache.lookup(a, now: .zero)
        cache.store(answer(body), for: c)
        #expect(cache.statistics.evictions == 1)
        #expect(cache.statistics.bytes == 2 * size)
        if case .miss = cache.lookup(b, now: .zero) {} else { Issue.record("b should have been evicted") }
        if case .fresh = cache.lookup(a, now: .zero) {} else { Issue.record("a should still be held") }
    }

    @Test func evictedAnswersLeaveTheTagIndex() throws {
        let body = String(repeating: "x", count: 1000)
        let tags = CacheTags(types: ["Review"])
        let cache = MemoryResponseCache(maxBytes: answer(body, tags: tags).cost + (try key("{ a }")).byteCount)
        cache.store(answer(body, tags: tags), for: try key("{ a }"))
        cache.store(answer(body, tags: tags), for: try key("{ b }"))
        #expect(cache.purge(entities: [], types: ["Review"], arguments: [:]) == 1)
        #expect(cache.statistics.entries == 0)
    }

    /// The count a hit replay's ticket holds to (`CacheHitTicket`): storing
    /// an answer for another key leaves it; whatever removes or replaces an
    /// answer moves it, and a hit counted against an old count is refused.
    @Test func anAnswerRemovedOrReplacedMovesTheChangeCountThatHitsAreCountedAgainst() throws {
        let tags = CacheTags(types: ["Review"])
        let (a, b) = (try key("{ a }"), try key("{ b }"))
        let changes: [(String, @Sendable (MemoryResponseCache) -> Void)] = [
            ("replaced", { $0.store(answer("new"), for: a) }),
            ("purged", { _ = $0.purge(entities: [], types: ["Review"], arguments: [:]) }),
            ("soft-purged", { _ = $0.purge(CachePurge(types: ["Review"], soft: true), now: .seconds(1)) }),
            ("all removed", { _ = $0.removeAll() }),
            ("expired and dropped", { _ = $0.lookup(a, now: .seconds(60)) }),
        ]
        for (name, change) in changes {
            let cache = MemoryResponseCache(maxBytes: 1 << 20)
            cache.store(answer("old", tags: tags), for: a)
            let hit = try #require(cache.freshHit(for: a, now: .zero))
            cache.store(answer("other"), for: b)
            #expect(cache.countHit(for: a, unchangedSince: hit.changeCount), "\(name): storing another key changes nothing")
            change(cache)
            #expect(!cache.countHit(for: a, unchangedSince: hit.changeCount), "\(name)")
            #expect(cache.statistics.hits == 2, "\(name): the refused hit is not counted")
        }
        let body = String(repeating: "x", count: 1000)
        let small = MemoryResponseCache(maxBytes: answer(body).cost + a.byteCount)
        small.store(answer(body), for: a)
        let hit = try #require(small.freshHit(for: a, now: .zero))
        small.store(answer(body), for: b)
        #expect(!small.countHit(for: a, unchangedSince: hit.changeCount), "evicted")
    }

    @Test func aHitCountedAgainstTheChangeCountMakesItsAnswerTheMostRecentlyUsed() throws {
        let body = String(repeating: "x", count: 1000)
        let (a, b, c) = (try key("{ a }"), try key("{ b }"), try key("{ c }"))
        let cache = MemoryResponseCache(maxBytes: 2 * (answer(body).cost + a.byteCount))
        cache.store(answer(body), for: a)
        let hit = try #require(cache.freshHit(for: a, now: .zero))
        cache.store(answer(body), for: b)
        #expect(cache.countHit(for: a, unchangedSince: hit.changeCount))
        cache.store(answer(body), for: c)
        if case .miss = cache.lookup(b, now: .zero) {} else { Issue.record("b, the least recently used, should have been evicted") }
        if case .fresh = cache.lookup(a, now: .zero) {} else { Issue.record("a should still be held") }
    }

    @Test func staleWindowsFollowTheTTL() throws {
        let cache = MemoryResponseCache(maxBytes: 1 << 20, staleWhileRevalidate: .seconds(5), staleIfError: .seconds(20))
        let k = try key("{ a }")
        cache.store(answer("{}", ttl: .seconds(10)), for: k)
        var seen: [String] = []
        for second in [9, 10, 12, 16, 29, 30] {
            switch cache.lookup(k, now: .seconds(second)) {
            case .fresh: seen.append("\(second) fresh")
            case .stale(_, _, let refresh): seen.append("\(second) stale\(refresh ? " refresh" : "")")
            case .expired: seen.append("\(second) expired")
            case .miss: seen.append("\(second) miss")
            case .unavailable: seen.append("\(second) unavailable")
            }
        }
        #expect(seen == ["9 fresh", "10 stale refresh", "12 stale", "16 expired", "29 expired", "30 miss"])
        #expect(cache.statistics.entries == 0)
    }
}

@Suite struct AnswerInspectionTests {
    @Test func addedTypenamesAreStrippedEverywhereAndTheClientsOwnKept() throws {
        let body = #"{"data":{"_gqlgate_typename":"Query","luke":{"__typename":"Human","id":"1000","_gqlgate_typename":"Human","#
            + #""friends":[{"n":"Han","_gqlgate_typename":"Human","id":1002},{"n":"R2","_gqlgate_typename":"Droid"}],"#
            + #""home":null}},"extensions":{"cost":1}}"#
        let inspection = try #require(AnswerInspection(body: Bytes(body), alias: "_gqlgate_typename"))
        #expect(inspection.body.string
            == #"{"data":{"luke":{"__typename":"Human","id":"1000","friends":[{"n":"Han","id":1002},{"n":"R2"}],"home":null}},"extensions":{"cost":1}}"#)
        #expect(inspection.types == ["Human", "Droid"])
        #expect(inspection.rootFieldTypes == ["Human"])
        #expect(inspection.entities == ["Human:1000", "Human:1002"])
        #expect(inspection.hasData && !inspection.hasErrors)
    }

    @Test func anAnswerWithNothingToStripKeepsItsBytes() throws {
        let body = Bytes(#"{"data": {"hello": "world"}, "errors": [{"message": "x"}]}"#)
        let inspection = try #require(AnswerInspection(body: body, alias: "_gqlgate_typename"))
        #expect(inspection.body === body)
        #expect(inspection.hasErrors)
        #expect(AnswerInspection(body: Bytes("<html>"), alias: nil) == nil)
    }

    @Test(arguments: [
        // The added members first, last, alone, in a row, between kept ones, with whitespace.
        (#"{"data": {"a": {"_t": "A", "n": 5.0}}}"#, #"{"data": {"a": {"n": 5.0}}}"#),
        (#"{"data": {"a": {"n": 1e400 , "_t": "A"}}}"#, #"{"data": {"a": {"n": 1e400}}}"#),
        (#"{"data": {"a": {"_t": "A"}}}"#, #"{"data": {"a": {}}}"#),
        (#"{"data": {"a": {"_t": "A", "_i": 1, "x": -0, "_t": "A", "y": 12345678901234567890, "_i": "1"}}}"#,
         #"{"data": {"a": {"x": -0, "y": 12345678901234567890}}}"#),
        (#"{ "data" : { "_t" : "Query" , "a" : [ { "n" : 1.5E+3 , "_t" : "A" } , { "_i" : 7 , "s" : "\u00e9\/" } ] } }"#,
         #"{ "data" : { "a" : [ { "n" : 1.5E+3 } , { "s" : "\u00e9\/" } ] } }"#),
    ])
    func theAddedMembersAreCutAndEveryOtherByteKept(body: String, expected: String) throws {
        let inspection = try #require(AnswerInspection(body: Bytes(body), alias: "_t", idAlias: "_i"))
        #expect(inspection.body.string == expected)
        #expect(inspection.types.contains("A"))
    }

    @Test func anAnswerNestedPastTheBoundIsNotInspected() {
        let deep = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        #expect(AnswerInspection(body: Bytes(#"{"data":{"a":"# + deep + "}}"), alias: "_t") == nil)
        let deepest = String(repeating: "[", count: JSONReader.maximumDepth - 3) + String(repeating: "]", count: JSONReader.maximumDepth - 3)
        #expect(AnswerInspection(body: Bytes(#"{"data":{"a":"# + deepest + "}}"), alias: "_t")?.hasData == true)
    }
}

@Suite struct CacheTTLPolicyTests {
    private let policy = CacheTTLPolicy(defaultTTL: .seconds(30), typeTTLs: ["Character": .seconds(3600), "Review": .seconds(10)])

    @Test func theMinimumOfDefaultTypesAndUpstream() {
        let none = CacheControlDirectives([:])
        #expect(policy.ttl(types: [], directives: none) == .seconds(30))
        #expect(policy.ttl(types: ["Character"], directives: none) == .seconds(30))
        #expect(policy.ttl(types: ["Character", "Review", "Planet"], directives: none) == .seconds(10))
        #expect(policy.ttl(types: ["Review"], directives: CacheControlDirectives(["Cache-Control": "public, max-age=5"])) == .seconds(5))
        #expect(policy.ttl(types: [], directives: CacheControlDirectives(["Cache-Control": "max-age=5, s-maxage=20"])) == .seconds(20))
    }

    @Test func directivesAreReadFromEveryField() {
        let directives = CacheControlDirectives(HTTPHeaders([
            .init(name: "Cache-Control", value: "Private , max-age=\"7\""), .init(name: "cache-control", value: "no-store"),
        ]))
        #expect(directives.isPrivate && directives.noStore && !directives.noCache)
        #expect(directives.freshnessLifetime == .seconds(7))
    }
}
