import CFuzzerDriver
#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with this process's arguments on `body`, which gets each
/// input's bytes, and exits with libFuzzer's status. SwiftPM gives an
/// executable Swift's `main`, so libFuzzer's own `main` is not used.
public func runFuzzer(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, body))
}
