package import Logging

/// A swift-log handler writing one line per record, JSON or text as
/// `settings` say, through a `LogLineWriter` (stderr on its own thread).
///
/// ```swift
/// let logger = GatewayLogHandler.logger(settings: LogSettings(level: .info, format: .json), writer: LogLineWriter())
/// logger.info("listening", metadata: ["address": "127.0.0.1:8080"])
/// ```
package struct GatewayLogHandler: LogHandler {
    /// Metadata added to every record of this handler.
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let settings: LogSettings
    private let writer: LogLineWriter
    private let clock: @Sendable () -> String
    private var levelOverride: Logger.Level?

    /// - Parameters:
    ///   - settings: the shared level and format.
    ///   - writer: where lines go.
    ///   - clock: the timestamp of a record (tests fix it).
    package init(settings: LogSettings, writer: LogLineWriter, clock: @escaping @Sendable () -> String = LogTimestamp.now) {
        self.settings = settings
        self.writer = writer
        self.clock = clock
    }

    /// A logger whose records go through a handler like this.
    package static func logger(label: String = "gqlgate", settings: LogSettings, writer: LogLineWriter) -> Logger {
        Logger(label: label) { _ in GatewayLogHandler(settings: settings, writer: writer) }
    }

    /// The shared level, unless this handler's logger set its own.
    package var logLevel: Logger.Level {
        get { levelOverride ?? settings.logLevel }
        set { levelOverride = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var fields: Logger.Metadata
        if metadata.isEmpty, metadataProvider == nil {
            fields = event.metadata ?? [:]
        } else {
            fields = metadata
            if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
            if let given = event.metadata { fields.merge(given) { _, new in new } }
        }
        if let error = event.error { fields["error"] = .string("\(error)") }
        let message = event.message.description
        switch settings.lineFormat {
        case .json: writer.write(JSONLogLine.render(timestamp: clock(), level: event.level, message: message, metadata: fields))
        case .text: writer.write(TextLogLine.render(timestamp: clock(), level: event.level, message: message, metadata: fields))
        }
    }
}
