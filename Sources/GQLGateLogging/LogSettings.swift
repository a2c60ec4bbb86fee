package import Logging
import Synchronization

/// The level and format every `GatewayLogHandler` made with it reads: shared,
/// so a configuration reload changes them for all loggers at once.
package final class LogSettings: Sendable {
    private let level: Atomic<UInt8>
    private let format: Atomic<UInt8>

    /// - Parameters:
    ///   - level: the least severe level written.
    ///   - format: how records become lines.
    package init(level: Logger.Level, format: LogLineFormat) {
        self.level = Atomic(level.code)
        self.format = Atomic(format.rawValue)
    }

    /// The least severe level written.
    package var logLevel: Logger.Level {
        Logger.Level(code: level.load(ordering: .relaxed))
    }

    /// How records become lines.
    package var lineFormat: LogLineFormat {
        LogLineFormat(rawValue: format.load(ordering: .relaxed)) ?? .json
    }

    /// Changes level and format for every handler that reads these settings.
    package func update(level: Logger.Level, format: LogLineFormat) {
        self.level.store(level.code, ordering: .relaxed)
        self.format.store(format.rawValue, ordering: .relaxed)
    }
}

extension Logger.Level {
    fileprivate var code: UInt8 {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }

    fileprivate init(code: UInt8) {
        switch code {
        case 0: self = .trace
        case 1: self = .debug
        case 2: self = .info
        case 3: self = .notice
        case 4: self = .warning
        case 5: self = .error
        default: self = .critical
        }
    }
}
