package import GQLGateCore
package import GQLGatePipeline

/// A JSON value already written as compact text, so that one upstream event
/// fanned out to many listeners is serialised once and spliced into each
/// listener's message. Kept as bytes: a fanned-out result's body is taken
/// as it is, without a string made of it for each listener.
package struct SerializedJSON: Sendable, Equatable, CustomStringConvertible {
    /// The JSON text, as UTF-8.
    package let bytes: Bytes

    /// Serialises `value`.
    package init(_ value: JSONValue) {
        bytes = Bytes(value.serialized())
    }

    /// Wraps text the caller knows to be one valid JSON value (e.g. bytes just read by `JSONReader`).
    package init(trusted text: String) {
        bytes = Bytes(text)
    }

    /// Wraps UTF-8 the caller knows to be one valid JSON value (a response body checked to be one).
    package init(trusted bytes: Bytes) {
        self.bytes = bytes
    }

    /// The JSON text.
    package var text: String { bytes.string }

    package var description: String { text }
}
