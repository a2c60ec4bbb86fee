/// A bounded map that forgets the least recently used entry first.
/// Not thread-safe: wrap it in a `Mutex`.
public struct LRUCache<Key: Hashable, Value> {
    private typealias Node = LRUNode<Key, Value>

    /// Most entries kept.
    public let capacity: Int
    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var newest = -1
    private var oldest = -1

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    public var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    public mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToNewest(slot)
        return nodes[slot].value
    }

    /// Stores `value`; past capacity the oldest entry is dropped.
    public mutating func insert(_ value: Value, for key: Key) {
        if let slot = index[key] {
            nodes[slot].value = value
            moveToNewest(slot)
            return
        }
        let slot: Int
        if nodes.count < capacity {
            slot = nodes.count
            nodes.append(Node(key: key, value: value, newer: -1, older: -1))
        } else {
            slot = oldest
            unlink(slot)
            index[nodes[slot].key] = nil
            nodes[slot] = Node(key: key, value: value, newer: -1, older: -1)
        }
        index[key] = slot
        linkAsNewest(slot)
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let node = nodes[slot]
        if node.newer >= 0 { nodes[node.newer].older = node.older } else { newest = node.older }
        if node.older >= 0 { nodes[node.older].newer = node.newer } else { oldest = node.newer }
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUNode: Sendable where Key: Sendable, Value: Sendable {}

/// An entry of `LRUCache`, linked to its neighbours in recency order by index.
struct LRUNode<Key, Value> {
    var key: Key
    var value: Value
    var newer: Int
    var older: Int
}
