/// A set that keeps the order elements were inserted in, with insertion and
/// removal in amortised constant time: a removed element leaves a hole that
/// iteration skips, and the holes are squeezed out once they outnumber the
/// elements. (An array's `removeAll(where:)` would make each removal cost
/// the whole set, which for thousands of subscribers leaving adds up to
/// seconds.)
struct ArrivalOrderedSet<Element: Hashable & Sendable>: Sendable {
    private var slots: [Element?] = []
    private var positions: [Element: Int] = [:]

    /// Number of elements.
    var count: Int { positions.count }

    var isEmpty: Bool { positions.isEmpty }

    /// The elements in the order they were inserted.
    var elements: [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(positions.count)
        for case let element? in slots { elements.append(element) }
        return elements
    }

    func contains(_ element: Element) -> Bool {
        positions[element] != nil
    }

    /// Appends `element` unless it is already in the set.
    mutating func insert(_ element: Element) {
        guard positions[element] == nil else { return }
        positions[element] = slots.count
        slots.append(element)
    }

    /// Removes `element`; false when it was not in the set.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard let position = positions.removeValue(forKey: element) else { return false }
        slots[position] = nil
        if positions.isEmpty {
            slots.removeAll()
        } else if slots.count > 2 * positions.count + 16 {
            compact()
        }
        return true
    }

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        for (position, element) in slots.enumerated() { positions[element!] = position }
    }
}
