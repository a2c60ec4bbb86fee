@_spi(GQLGateInternals) import GQLGateCore
import Testing

@Suite struct SlotTableTests {
    @Test func aKeyFindsItsValueOnce() {
        var table = SlotTable<String>()
        let a = table.insert { _ in "a" }
        let b = table.insert { _ in "b" }
        #expect(table.count == 2)
        #expect(table.remove(b) == "b")
        #expect(table.remove(b) == nil)
        #expect(table.remove(a) == "a")
        #expect(table.count == 0)
    }

    @Test func aValueCanBeMadeFromItsOwnKey() {
        var table = SlotTable<(slot: Int, generation: UInt64)>()
        let key = table.insert { ($0.slot, $0.generation) }
        let value = table.remove(key)
        #expect(value?.slot == key.slot && value?.generation == key.generation)
    }

    @Test func anOldKeyFindsNothingOnceItsSlotHoldsAnotherValue() {
        var table = SlotTable<String>()
        let old = table.insert { _ in "old" }
        _ = table.remove(old)
        let new = table.insert { _ in "new" }
        #expect(new.slot == old.slot)
        #expect(table.remove(old) == nil)
        #expect(table.remove(new) == "new")
    }

    @Test func removeAllTakesEveryValueAndLeavesTheKeysDead() {
        var table = SlotTable<Int>()
        let keys = (0..<5).map { n in table.insert { _ in n } }
        _ = table.remove(keys[2])
        #expect(table.removeAll().sorted() == [0, 1, 3, 4])
        #expect(table.count == 0)
        #expect(keys.allSatisfy { table.remove($0) == nil })
        let again = table.insert { _ in 9 }
        #expect(table.count == 1)
        #expect(table.remove(again) == 9)
    }

    @Test func slotsAreReusedSoTheTableStaysAsLargeAsItsPeak() {
        var table = SlotTable<Int>()
        for round in 0..<100 {
            let a = table.insert { _ in round }
            let b = table.insert { _ in round + 1 }
            #expect(a.slot < 2 && b.slot < 2)
            _ = table.remove(a)
            _ = table.remove(b)
        }
    }
}
