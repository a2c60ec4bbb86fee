@_spi(GQLGateInternals) import GQLGateCore
import GQLGateLogging
import Logging

extension Gateway {
    /// Looks for changed `server.tls` files once a second, in a task of its
    /// own (never on a server thread or a loop), until `shutdown`.
    func watchTLSFiles() {
        guard tlsFiles != nil else { return }
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self, let files = self.tlsFiles else { return }
                if let outcome = files.checkForChanges() { self.log(outcome, trigger: "file change") }
            }
        }
        tlsWatch.withLock { $0 = task }
    }

    /// Logs what reading the `server.tls` files did.
    func log(_ outcome: TLSFiles.Outcome, trigger: String) {
        switch outcome {
        case .replaced(let certificate):
            var metadata: Logger.Metadata = ["trigger": .string(trigger)]
            if let certificate {
                metadata["subject"] = .string(certificate.subject)
                metadata["serial"] = .string(certificate.serial)
                metadata["not_after"] = .string(LogTimestamp.format(seconds: Int(certificate.notAfter), milliseconds: 0))
            }
            logger.info("tls certificate loaded", metadata: metadata)
        case .kept(let error):
            logger.error("tls reload failed", metadata: [
                "trigger": .string(trigger), "error": .string(error.description), "kept": "the certificate served until now",
            ])
        }
    }
}
