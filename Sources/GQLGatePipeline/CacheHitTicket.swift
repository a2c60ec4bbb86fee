/// A fresh answer a cache stage served from this process's memory, as the
/// gateway's endpoint may serve it again to a request with the same bytes
/// (the hit replay): while the store has removed or replaced no answer
/// since, and this one is still fresh.
package protocol CacheHitTicket: AnyObject, Sendable {
    /// The answer's age now, its hit counted by the store as any hit is (the
    /// answer becomes the most recently used), while the ticket holds; nil
    /// (nothing counted) once it does not.
    func renewedAge() -> Duration?
}
