/// Why `Gateway.start()` could not start serving: the listen address could not
/// be bound (in use, not permitted), or TLS could not be set up.
public struct GatewayStartError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the address.
    public let message: String

    package init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
