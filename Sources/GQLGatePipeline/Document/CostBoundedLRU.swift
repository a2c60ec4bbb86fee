/// A map bounded by the total cost of its values (bytes, for the response
/// cache and the APQ store) that forgets the least recently used entries
/// first. Not thread-safe: wrap it in a `Lock`.
///
/// Inlinable, so that the modules using it (the response cache, the APQ
/// store) get it specialised for their keys and values: a generic dictionary
/// look-up through witness tables costs a cache hit several times more.
@_spi(GQLGateInternals) public struct CostBoundedLRU<Key: Hashable, Value> {
    /// Most total cost kept.
    public let capacity: Int
    /// Sum of the costs of the entries held.
    @inlinable public var totalCost: Int { storedCost }
    @usableFromInline var storedCost = 0
    @usableFromInline var index: [Key: Int] = [:]
    @usableFromInline var slots: [Slot] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var newest = -1
    @usableFromInline var oldest = -1

    /// An entry's place. Its parts are fields of their own, so that reading
    /// one (a hit's value, the links) copies nothing else; `key` and `value`
    /// are set together, and both nil in a free slot.
    @usableFromInline
    struct Slot {
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var cost = 0
        @usableFromInline var newer = -1
        @usableFromInline var older = -1

        @inlinable init() {}
    }

    @inlinable
    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Entries held.
    @inlinable public var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    @inlinable
    public mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToNewest(slot)
        return slots[slot].value
    }

    /// Marks `key` most recently used, without reading its value. Returns false when there is none.
    @inlinable
    public mutating func markAsNewest(_ key: Key) -> Bool {
        guard let slot = index[key] else { return false }
        moveToNewest(slot)
        return true
    }

    /// The value for `key`, leaving the recency order alone.
    @inlinable
    public func peek(_ key: Key) -> Value? {
        index[key].flatMap { slots[$0].value }
    }

    /// The least recently used entry, leaving the order alone.
    @inlinable
    public var oldestEntry: (key: Key, value: Value)? {
        guard oldest >= 0, let key = slots[oldest].key, let value = slots[oldest].value else { return nil }
        return (key, value)
    }

    /// Replaces the value for `key` in place, keeping its cost and recency.
    /// Returns false when there is none.
    @inlinable @discardableResult
    public mutating func update(_ key: Key, _ change: (inout Value) -> Void) -> Bool {
        guard let slot = index[key], slots[slot].value != nil else { return false }
        change(&slots[slot].value!)
        return true
    }

    /// Changes the value for `key` in place, keeping its cost, and marks it
    /// most recently used: one look-up. Returns false when there is none.
    @inlinable @discardableResult
    public mutating func updateAsNewest(_ key: Key, _ change: (inout Value) -> Void) -> Bool {
        guard let slot = index[key], slots[slot].value != nil else { return false }
        change(&slots[slot].value!)
        moveToNewest(slot)
        return true
    }

    /// Stores `value` at `cost` as the most recently used entry, replacing any
    /// value for `key` (not reported), then drops the oldest entries until the
    /// total fits. A value costing more than `capacity` is not stored (and any
    /// old value for `key` is removed). Returns the entries dropped for room.
    @inlinable @discardableResult
    public mutating func insert(_ value: Value, for key: Key, cost: Int) -> [(key: Key, value: Value)] {
        removeValue(for: key)
        guard cost <= capacity else { return [] }
        var dropped: [(key: Key, value: Value)] = []
        while totalCost + cost > capacity, oldest >= 0, let oldestKey = slots[oldest].key, let oldestValue = slots[oldest].value {
            _ = removeValue(for: oldestKey)
            dropped.append((oldestKey, oldestValue))
        }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = slots.count
            slots.append(Slot())
        }
        (slots[slot].key, slots[slot].value, slots[slot].cost) = (key, value, cost)
        index[key] = slot
        storedCost += cost
        linkAsNewest(slot)
        return dropped
    }

    /// Removes and returns the value for `key`.
    @inlinable @discardableResult
    public mutating func removeValue(for key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key), let value = slots[slot].value else { return nil }
        unlink(slot)
        storedCost -= slots[slot].cost
        slots[slot] = Slot()
        freeSlots.append(slot)
        return value
    }

    @inlinable
    mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let (newer, older) = (slots[slot].newer, slots[slot].older)  // the links alone: no copy of the entry
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = -1
        slots[slot].older = -1
    }

    @inlinable
    mutating func linkAsNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}

extension CostBoundedLRU: Sendable where Key: Sendable, Value: Sendable {}
extension CostBoundedLRU.Slot: Sendable where Key: Sendable, Value: Sendable {}
