import GQLGatePipeline
import Testing

/// The keys a cache holds, found by reading each candidate (which marks it used).
private func keys(of cache: inout LRUCache<String, Int>, among candidates: [String]) -> [String] {
    candidates.filter { cache.value(for: $0) != nil }
}

@Suite struct LRUCacheTests {
    @Test func storesAndReadsValues() {
        var cache = LRUCache<String, Int>(capacity: 3)
        #expect(cache.count == 0)
        #expect(cache.value(for: "a") == nil)
        cache.insert(1, for: "a")
        cache.insert(2, for: "b")
        #expect(cache.capacity == 3)
        #expect(cache.count == 2)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "b") == 2)
        #expect(cache.value(for: "c") == nil)
        #expect(cache.count == 2)
    }

    @Test func evictsTheOldestEntriesFirst() {
        var cache = LRUCache<String, Int>(capacity: 3)
        for (i, key) in ["a", "b", "c", "d", "e"].enumerated() { cache.insert(i, for: key) }
        #expect(cache.count == 3)
        #expect(keys(of: &cache, among: ["a", "b", "c", "d", "e"]) == ["c", "d", "e"])
    }

    @Test func readingMakesAnEntryRecent() {
        var cache = LRUCache<String, Int>(capacity: 3)
        cache.insert(1, for: "a")
        cache.insert(2, for: "b")
        cache.insert(3, for: "c")
        #expect(cache.value(for: "a") == 1)
        cache.insert(4, for: "d")
        #expect(cache.value(for: "b") == nil)
        cache.insert(5, for: "e")
        #expect(cache.value(for: "c") == nil)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "d") == 4)
        #expect(cache.value(for: "e") == 5)
    }

    @Test func insertingAnExistingKeyUpdatesInPlaceAndMakesItRecent() {
        var cache = LRUCache<String, Int>(capacity: 2)
        cache.insert(1, for: "a")
        cache.insert(2, for: "b")
        cache.insert(10, for: "a")
        #expect(cache.count == 2)
        cache.insert(3, for: "c")
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 10)
        #expect(cache.value(for: "c") == 3)
        #expect(cache.count == 2)
    }

    @Test func capacityOneKeepsTheLatest() {
        var cache = LRUCache<String, Int>(capacity: 1)
        cache.insert(1, for: "a")
        cache.insert(1, for: "a")
        #expect(cache.value(for: "a") == 1)
        cache.insert(2, for: "b")
        #expect(cache.count == 1)
        #expect(cache.value(for: "a") == nil)
        #expect(cache.value(for: "b") == 2)
    }

    @Test func matchesASimpleModelOverALongRun() {
        var cache = LRUCache<Int, Int>(capacity: 5)
        var model: [(key: Int, value: Int)] = []  // oldest first
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var mismatches: [String] = []
        for step in 0..<5000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let key = Int((seed >> 33) % 9)
            if (seed >> 20) % 3 == 0 {
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                if let expected { model.append(expected) }
                let got = cache.value(for: key)
                if got != expected?.value { mismatches.append("step \(step): read \(key) got \(String(describing: got))") }
            } else {
                model.removeAll { $0.key == key }
                model.append((key, step))
                if model.count > 5 { model.removeFirst() }
                cache.insert(step, for: key)
            }
            if cache.count != model.count { mismatches.append("step \(step): count \(cache.count) != \(model.count)") }
        }
        #expect(mismatches.isEmpty)
        let held = (0..<9).filter { key in model.contains { $0.key == key } }
        #expect(held.map { cache.value(for: $0) } == held.map { key in model.first { $0.key == key }?.value })
    }
}
