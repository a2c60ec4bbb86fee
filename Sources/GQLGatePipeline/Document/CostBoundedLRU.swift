/// A map bounded by the total cost of its values (bytes, for the response
/// cache and the APQ store) that forgets the least recently used entries
/// first. Not thread-safe: wrap it in a `Mutex`.
public struct CostBoundedLRU<Key: Hashable, Value> {
    /// Most total cost kept.
    public let capacity: Int
    /// Sum of the costs of the entries held.
    public private(set) var totalCost = 0
    private var index: [Key: Int] = [:]
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var newest = -1
    private var oldest = -1

    fileprivate struct Slot {
        var entry: (key: Key, value: Value, cost: Int)?
        var newer = -1
        var older = -1
    }

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Entries held.
    public var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    public mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToNewest(slot)
        return slots[slot].entry?.value
    }

    /// The value for `key`, leaving the recency order alone.
    public func peek(_ key: Key) -> Value? {
        index[key].flatMap { slots[$0].entry?.value }
    }

    /// Replaces the value for `key` in place, keeping its cost and recency.
    /// Returns false when there is none.
    @discardableResult
    public mutating func update(_ key: Key, _ change: (inout Value) -> Void) -> Bool {
        guard let slot = index[key], var entry = slots[slot].entry else { return false }
        change(&entry.value)
        slots[slot].entry = entry
        return true
    }

    /// Stores `value` at `cost` as the most recently used entry, replacing any
    /// value for `key` (not reported), then drops the oldest entries until the
    /// total fits. A value costing more than `capacity` is not stored (and any
    /// old value for `key` is removed). Returns the entries dropped for room.
    @discardableResult
    public mutating func insert(_ value: Value, for key: Key, cost: Int) -> [(key: Key, value: Value)] {
        removeValue(for: key)
        guard cost <= capacity else { return [] }
        var dropped: [(key: Key, value: Value)] = []
        while totalCost + cost > capacity, oldest >= 0, let entry = slots[oldest].entry {
            _ = removeValue(for: entry.key)
            dropped.append((entry.key, entry.value))
        }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slot = slots.count
            slots.append(Slot())
        }
        slots[slot].entry = (key, value, cost)
        index[key] = slot
        totalCost += cost
        linkAsNewest(slot)
        return dropped
    }

    /// Removes and returns the value for `key`.
    @discardableResult
    public mutating func removeValue(for key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key), let entry = slots[slot].entry else { return nil }
        unlink(slot)
        slots[slot] = Slot()
        freeSlots.append(slot)
        totalCost -= entry.cost
        return entry.value
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let node = slots[slot]
        if node.newer >= 0 { slots[node.newer].older = node.older } else { newest = node.older }
        if node.older >= 0 { slots[node.older].newer = node.newer } else { oldest = node.newer }
        slots[slot].newer = -1
        slots[slot].older = -1
    }

    private mutating func linkAsNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}

extension CostBoundedLRU: Sendable where Key: Sendable, Value: Sendable {}
extension CostBoundedLRU.Slot: Sendable where Key: Sendable, Value: Sendable {}
