/// A loop-bound value carried through a `Sendable` place (a closure for
/// `EventLoop.execute`, a property of a shared object): it may be made on any
/// thread, but its value is used only on `loop`'s thread (checked in debug
/// builds). The one audited hand-off, so that loop-bound types can say they
/// are not `Sendable` instead of claiming `@unchecked Sendable` each.
///
/// `@unchecked Sendable`: the value is reached only through `value`, on the
/// loop's thread; the thread that made it hands it over and does not keep it.
/// `public` so that other modules specialise it (see `Lock`).
public struct LoopBound<Value>: @unchecked Sendable {
    /// The loop whose thread owns the value.
    public let loop: EventLoop
    @usableFromInline let wrapped: Value

    /// Binds `value` to `loop`.
    @inlinable
    public init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        wrapped = value
    }

    /// The value; on the loop's thread only.
    @inlinable
    public var value: Value {
        assert(loop.inLoop, "a loop-bound value used off its loop")
        return wrapped
    }
}
