package import GQLGatePipeline

/// A JSON value already written as compact text, so that one upstream event
/// fanned out to many listeners is serialised once and spliced into each
/// listener's message.
package struct SerializedJSON: Sendable, Equatable, CustomStringConvertible {
    /// The JSON text.
    package let text: String

    /// Serialises `value`.
    package init(_ value: JSONValue) {
        text = value.serialized()
    }

    /// Wraps text the caller knows to be one valid JSON value (e.g. bytes just read by `JSONReader`).
    package init(trusted text: String) {
        self.text = text
    }

    package var description: String { text }
}
