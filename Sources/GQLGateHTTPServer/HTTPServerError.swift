/// Why the embedded HTTP server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the address.
    public let message: String

    public var description: String { message }
}
