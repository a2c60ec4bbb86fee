/// Values kept in reusable slots, found again by the key `insert` gave
/// without hashing: a slot index and a generation. A key whose value was
/// removed finds nothing, even once its slot holds another value.
/// `@inlinable`, so each user gets it specialized for its `Value`: generic
/// code across modules would look up type metadata on every call. `public`,
/// not `package`: the compiler serialises no `package` inlinable body.
@_spi(GQLGateInternals) public struct SlotTable<Value> {
    /// Where a value is, and which value it was.
    public struct Key: Hashable, Sendable {
        public let slot: Int
        public let generation: UInt64

        @inlinable init(slot: Int, generation: UInt64) {
            self.slot = slot
            self.generation = generation
        }
    }

    @usableFromInline var slots: [(generation: UInt64, value: Value?)] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var lastGeneration: UInt64 = 0
    @usableFromInline var storedCount = 0
    /// Values held.
    @inlinable public var count: Int { storedCount }

    @inlinable public init() {}

    /// Keeps the value `make` builds from its key (a value may need to know
    /// its own key), and returns the key.
    @inlinable @discardableResult
    public mutating func insert(_ make: (Key) -> Value) -> Key {
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
        storedCount += 1
        return key
    }

    /// Takes out the value of `key`; nil when it was taken out before.
    @inlinable
    public mutating func remove(_ key: Key) -> Value? {
        guard key.slot < slots.count, slots[key.slot].generation == key.generation, let value = slots[key.slot].value else { return nil }
        slots[key.slot].value = nil
        freeSlots.append(key.slot)
        storedCount -= 1
        return value
    }

    /// Takes out every value.
    @inlinable
    public mutating func removeAll() -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        for slot in slots.indices {
            if let value = slots[slot].value {
                values.append(value)
                slots[slot].value = nil
                freeSlots.append(slot)
            }
        }
        storedCount = 0
        return values
    }
}
