import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

do {
    var command = try GQLGateCommand.parseAsRoot()
    try command.run()
} catch let failure as CommandFailure {
    failure.report()
    exit(failure.exitCode)
} catch {
    let code = GQLGateCommand.exitCode(for: error)
    if code == .success {
        print(GQLGateCommand.fullMessage(for: error))
        exit(0)
    }
    FileHandleOutput.standardError(GQLGateCommand.fullMessage(for: error))
    exit(2)
}
