@testable import GQLGateSubscriptions
import Testing

@Suite("ArrivalOrderedSet")
struct ArrivalOrderedSetTests {
    @Test("keeps insertion order through removals and compaction")
    func orderSurvivesRemovals() {
        var set = ArrivalOrderedSet<Int>()
        for value in 0..<1000 { set.insert(value) }
        for value in 0..<1000 where value % 3 != 0 {
            let removed = set.remove(value)
            #expect(removed)
        }
        #expect(set.elements == Array(stride(from: 0, to: 1000, by: 3)))
        #expect(set.count == 334)
        set.insert(5)
        #expect(set.elements.last == 5)
    }

    @Test("inserting twice keeps one, at its first place; removing twice removes once")
    func duplicates() {
        var set = ArrivalOrderedSet<String>()
        set.insert("a")
        set.insert("b")
        set.insert("a")
        #expect(set.elements == ["a", "b"])
        let removedFirst = set.remove("a"), removedAgain = set.remove("a")
        #expect(removedFirst && !removedAgain)
        #expect(!set.contains("a"))
        #expect(set.elements == ["b"])
        set.remove("b")
        #expect(set.isEmpty && set.elements.isEmpty)
    }
}
