import Synchronization

/// The bytes every upstream answer being received may hold together
/// (`upstream.max_response_bytes_in_flight`): each answer's decoded body
/// takes what it allocates as it grows and gives it back when the transfer ends, so that
/// answers that are each within `max_response_bytes` (decompression bombs,
/// say) cannot together take the gateway's memory.
final class ResponseBytesBudget: Sendable {
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes `count` bytes; false, taking nothing, when that would pass the limit.
    func take(_ count: Int) -> Bool {
        let now = used.add(count, ordering: .relaxed).newValue
        guard now > limit else { return true }
        used.subtract(count, ordering: .relaxed)
        return false
    }

    /// Gives back `count` bytes taken.
    func giveBack(_ count: Int) {
        guard count > 0 else { return }
        used.subtract(count, ordering: .relaxed)
    }
}
