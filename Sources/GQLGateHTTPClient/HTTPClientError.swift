/// Why an upstream request produced no HTTP answer, sorted by what it means
/// for retrying: whether the request can have reached the upstream.
package struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// What the failure means for the request: the cases of the pipeline's
    /// `UpstreamFailure.Kind` (which this module cannot import; the
    /// transports map one to the other), and `cancelled`.
    package enum Kind: Sendable, Equatable {
        /// Nothing was sent: connection refused, DNS failure, connect timeout.
        /// Safe to retry even a mutation.
        case notReached
        /// The transfer ran past its deadline after the request left.
        case timedOut
        /// The connection failed after (part of) the request was sent, or
        /// what came back is no HTTP answer (`unusableStatus`).
        case failedAfterSend
        /// The answer's body, decoded, ran past the request's `maxResponseBytes`
        /// (the transfer was ended there).
        case answerTooLarge
        /// The transfer was cancelled by the caller.
        case cancelled
    }

    package let kind: Kind
    /// libcurl's `CURLcode` (0 for cancellation).
    package let code: Int32
    /// libcurl's message for the failure.
    package let message: String

    package init(kind: Kind, code: Int32, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    package var description: String { "\(message) (curl error \(code))" }

    /// The caller cancelled the transfer.
    package static let cancelled = HTTPClientError(kind: .cancelled, code: 0, message: "cancelled")

    /// Whether `status` can end an HTTP exchange: 200 to 599. An informational
    /// status (1xx: `101 Switching Protocols`, say) or one outside the classes
    /// HTTP defines is no answer to pass on.
    package static func isFinalStatus(_ status: Int) -> Bool {
        (200...599).contains(status)
    }

    /// The upstream answered with `status`, which no HTTP answer may carry
    /// (`isFinalStatus`): the request reached it, the answer is unusable.
    package static func unusableStatus(_ status: Int) -> HTTPClientError {
        let text = status == 101 ? "101 Switching Protocols to a request that asked for no switch" : "\(status), which is no final HTTP status"
        return HTTPClientError(kind: .failedAfterSend, code: Code.weirdServerReply, message: "the upstream answered \(text)")
    }

    /// Sorts a libcurl error code. `requestBytesSent` is libcurl's
    /// `CURLINFO_REQUEST_SIZE`: 0 means not a byte of the request went out.
    package static func kind(forCurlCode code: Int32, requestBytesSent: Int) -> Kind {
        switch code {
        case Code.couldNotResolveProxy, Code.couldNotResolveHost, Code.couldNotConnect:
            return .notReached
        case Code.operationTimedOut:
            return requestBytesSent == 0 ? .notReached : .timedOut
        case Code.sslConnectError, Code.peerFailedVerification, Code.sendError, Code.gotNothing, Code.receiveError:
            return requestBytesSent == 0 ? .notReached : .failedAfterSend
        default:
            return .failedAfterSend
        }
    }

    /// The libcurl codes the classification names (values of `CURLcode`).
    enum Code {
        static let couldNotResolveProxy: Int32 = 5
        static let couldNotResolveHost: Int32 = 6
        static let couldNotConnect: Int32 = 7
        static let weirdServerReply: Int32 = 8
        static let operationTimedOut: Int32 = 28
        static let sslConnectError: Int32 = 35
        static let gotNothing: Int32 = 52
        static let sendError: Int32 = 55
        static let receiveError: Int32 = 56
        static let peerFailedVerification: Int32 = 60
    }
}
