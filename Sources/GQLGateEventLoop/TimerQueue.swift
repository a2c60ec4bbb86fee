/// Identifies a timer scheduled on an `EventLoop`, to cancel it.
package struct EventLoopTimerID: Hashable, Sendable {
    let raw: UInt64
}

/// Loop-confined timers: a binary min-heap of deadlines with lazy cancellation.
struct TimerQueue {
    typealias ID = EventLoopTimerID

    private struct Entry {
        let deadline: UInt64
        let id: UInt64
        let action: () -> Void
    }

    private var heap: [Entry] = []
    /// Timers scheduled and neither fired nor cancelled: cancelling checks
    /// here, not by scanning the heap (thousands of connections each cancel
    /// and re-arm a keep-alive timer). A heap entry not in it was cancelled,
    /// and is dropped when it reaches the top.
    private var pending: Set<UInt64> = []
    private var nextID: UInt64 = 1

    var isEmpty: Bool { pending.isEmpty }

    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> ID {
        let id = nextID
        nextID += 1
        heap.append(Entry(deadline: deadline, id: id, action: action))
        pending.insert(id)
        siftUp(heap.count - 1)
        return ID(raw: id)
    }

    mutating func cancel(_ id: ID) {
        pending.remove(id.raw)
    }

    /// The earliest live deadline.
    mutating func nextDeadline() -> UInt64? {
        dropCancelledTop()
        return heap.first?.deadline
    }

    /// Removes and returns the actions due at `now`, earliest first.
    mutating func popDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while true {
            dropCancelledTop()
            guard let top = heap.first, top.deadline <= now else { return due }
            pending.remove(top.id)
            due.append(removeTop().action)
        }
    }

    private mutating func dropCancelledTop() {
        while let top = heap.first, !pending.contains(top.id) {
            _ = removeTop()
        }
    }

    private mutating func removeTop() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return top
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
