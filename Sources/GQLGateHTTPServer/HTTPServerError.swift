/// Why the embedded HTTP server could not start.
package struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the address.
    package let message: String

    package var description: String { message }
}
