/// Values kept in reusable slots, found again by the key `insert` gave
/// without hashing: a slot index and a generation. A key whose value was
/// removed finds nothing, even once its slot holds another value.
struct SlotTable<Value> {
    /// Where a value is, and which value it was.
    struct Key: Hashable, Sendable {
        let slot: Int
        let generation: UInt64
    }

    private var slots: [(generation: UInt64, value: Value?)] = []
    private var freeSlots: [Int] = []
    private var lastGeneration: UInt64 = 0
    /// Values held.
    private(set) var count = 0

    /// Keeps the value `make` builds from its key (a value may need to know
    /// its own key), and returns the key.
    @discardableResult
    mutating func insert(_ make: (Key) -> Value) -> Key {
        lastGeneration &+= 1
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = slots.count
            slots.append((0, nil))
        }
        let key = Key(slot: slot, generation: lastGeneration)
        slots[slot] = (key.generation, make(key))
        count += 1
        return key
    }

    /// Takes out the value of `key`; nil when it was taken out before.
    mutating func remove(_ key: Key) -> Value? {
        guard key.slot < slots.count, slots[key.slot].generation == key.generation, let value = slots[key.slot].value else { return nil }
        slots[key.slot].value = nil
        freeSlots.append(key.slot)
        count -= 1
        return value
    }

    /// Takes out every value.
    mutating func removeAll() -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        for slot in slots.indices {
            if let value = slots[slot].value {
                values.append(value)
                slots[slot].value = nil
                freeSlots.append(slot)
            }
        }
        count = 0
        return values
    }
}
