@_spi(GQLGateInternals) import GQLGatePipeline
import Testing

@Suite struct CostBoundedLRUTests {
    @Test func dropsTheLeastRecentlyUsedUntilTheNewEntryFits() {
        var cache = CostBoundedLRU<String, Int>(capacity: 10)
        #expect(cache.insert(1, for: "a", cost: 4).isEmpty)
        #expect(cache.insert(2, for: "b", cost: 4).isEmpty)
        #expect(cache.value(for: "a") == 1)
        let dropped = cache.insert(3, for: "c", cost: 5)
        #expect(dropped.map(\.key) == ["b"])
        #expect(cache.totalCost == 9)
        #expect(cache.count == 2)
        #expect(cache.peek("a") == 1)
        #expect(cache.peek("b") == nil)
    }

    @Test func updatingAsNewestChangesTheValueAndItsRecencyAndTheOldestEntryIsSeen() {
        var cache = CostBoundedLRU<String, Int>(capacity: 10)
        cache.insert(1, for: "a", cost: 4)
        cache.insert(2, for: "b", cost: 4)
        #expect(cache.oldestEntry?.key == "a")
        #expect(cache.updateAsNewest("a") { $0 += 10 })
        #expect(!cache.updateAsNewest("z") { $0 += 10 })
        #expect(cache.oldestEntry?.key == "b")
        #expect(cache.insert(3, for: "c", cost: 4).map(\.key) == ["b"])
        #expect(cache.peek("a") == 11)
        #expect(cache.totalCost == 8)
    }

    @Test func markingAsNewestChangesOnlyTheRecency() {
        var cache = CostBoundedLRU<String, Int>(capacity: 10)
        cache.insert(1, for: "a", cost: 4)
        cache.insert(2, for: "b", cost: 4)
        let (marked, unknown) = (cache.markAsNewest("a"), cache.markAsNewest("z"))
        #expect(marked && !unknown)
        #expect(cache.oldestEntry?.key == "b")
        #expect(cache.peek("a") == 1)
        #expect(cache.insert(3, for: "c", cost: 5).map(\.key) == ["b"])
    }

    @Test func replacingAKeyFreesItsOldCost() {
        var cache = CostBoundedLRU<String, Int>(capacity: 10)
        cache.insert(1, for: "a", cost: 8)
        #expect(cache.insert(2, for: "a", cost: 9).isEmpty)
        #expect(cache.totalCost == 9)
        #expect(cache.value(for: "a") == 2)
    }

    @Test func aValueCostingMoreThanTheCapacityIsNotStored() {
        var cache = CostBoundedLRU<String, Int>(capacity: 10)
        cache.insert(1, for: "a", cost: 3)
        #expect(cache.insert(2, for: "b", cost: 11).isEmpty)
        #expect(cache.peek("b") == nil)
        #expect(cache.totalCost == 3)
    }

    @Test func removingAndReusingSlotsKeepsTheOrder() {
        var cache = CostBoundedLRU<String, Int>(capacity: 3)
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(i, for: key, cost: 1) }
        #expect(cache.removeValue(for: "b") == 1)
        #expect(cache.totalCost == 2)
        cache.insert(3, for: "d", cost: 1)
        #expect(cache.insert(4, for: "e", cost: 1).map(\.key) == ["a"])
        #expect(cache.update("c") { $0 = 30 })
        #expect(!cache.update("a") { $0 = 10 })
        #expect(cache.insert(5, for: "f", cost: 2).map(\.key) == ["c", "d"])
        #expect(cache.count == 2)
        #expect(cache.totalCost == 3)
    }
}
