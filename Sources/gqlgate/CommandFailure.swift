import GQLGateConfig

/// A failure that ends the process with the contract's exit code.
struct CommandFailure: Error {
    let message: String
    let exitCode: Int32

    /// Invalid configuration (exit 1).
    static func config(_ error: ConfigError) -> CommandFailure {
        CommandFailure(message: "gqlgate: invalid configuration: \(error)", exitCode: 1)
    }

    /// Bad flag value (exit 2).
    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message: "gqlgate: \(message)", exitCode: 2)
    }

    static let noUpstream = CommandFailure(
        message: """
            gqlgate: no upstream configured. Pass --upstream URL (or set GQLGATE_UPSTREAM, or upstream.url in --config FILE), \
            or try `gqlgate demo` for a demo API with gqlgate in front of it.
            """,
        exitCode: 2)

    func report() {
        FileHandleOutput.standardError(message)
    }
}

/// Writes whole lines to standard error (C's `stderr` is a global var that
/// strict concurrency rejects).
enum FileHandleOutput {
    static func standardError(_ text: String) {
        var line = text.hasSuffix("\n") ? text : text + "\n"
        line.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
