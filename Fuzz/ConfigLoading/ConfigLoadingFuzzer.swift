import FuzzerSupport
import GQLGateConfig

/// What `${VAR}` references in a fuzzed file expand from.
private let environment = ["TOKEN": "fuzz-secret-token", "PORT": "8080", "EMPTY": ""]

/// One input: any text as a config file. Loading either fails with a
/// config error or yields a config that prints; a valid one reads back from
/// its own printed form to the same config.
private func fuzzConfigLoading(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    guard let config = try? ConfigLoader.load(yaml: text, environment: environment) else { return 0 }
    _ = config.renderYAML()
    // What `check-config` prints, a valid config, must read back as itself; an
    // invalid one (say `auth.oauth2` without `token_url`) need not load again.
    guard (try? config.validate()) != nil else { return 0 }
    let printed = config.renderYAML(redactingSecrets: false)
    do {
        let again = try ConfigLoader.load(yaml: printed, environment: [:])
        precondition(again.renderYAML(redactingSecrets: false) == printed, "the printed config reads back differently:\n\(printed)")
    } catch {
        preconditionFailure("the printed config does not load: \(error)\n\(printed)")
    }
    return 0
}

/// Runs libFuzzer on `fuzzConfigLoading`.
@main
enum ConfigLoadingFuzzer {
    static func main() {
        runFuzzer { fuzzConfigLoading($0, $1) }
    }
}
