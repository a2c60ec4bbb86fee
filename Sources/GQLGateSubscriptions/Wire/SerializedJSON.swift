public import GQLGatePipeline

/// A JSON value already written as compact text, so that one upstream event
/// fanned out to many listeners is serialised once and spliced into each
/// listener's message.
public struct SerializedJSON: Sendable, Equatable, CustomStringConvertible {
    /// The JSON text.
    public let text: String

    /// Serialises `value`.
    public init(_ value: JSONValue) {
        text = value.serialized()
    }

    /// Wraps text the caller knows to be one valid JSON value (e.g. bytes just read by `JSONReader`).
    public init(trusted text: String) {
        self.text = text
    }

    public var description: String { text }
}
