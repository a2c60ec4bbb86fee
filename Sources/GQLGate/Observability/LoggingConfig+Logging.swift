package import GQLGateConfig
package import GQLGateLogging
package import Logging

extension LoggingConfig {
    /// `logging.level` as a swift-log level (`warn` is `.warning`).
    package var loggerLevel: Logger.Level {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .warn: .warning
        case .error: .error
        }
    }

    /// `logging.format` as a log line format.
    package var lineFormat: LogLineFormat {
        switch format {
        case .json: .json
        case .text: .text
        }
    }
}
