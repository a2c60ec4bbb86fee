import CWslay
import GQLGateCore
import GQLGateEventLoop

/// What wslay's callbacks (`WslayCallbacks.swift`) call: bytes in and out of
/// the transport, and the messages wslay has put together.
extension WebSocketConnection {
    func queue(_ opcode: UInt8, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var message = wslay_event_msg(opcode: opcode, msg: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), msg_length: bytes.count)
        return wslay_event_queue_msg(context, &message)
    }

    /// wslay wants bytes: first those the handshake read ahead, then the
    /// transport's; none from a header `frameCheck` refuses on.
    func wslayReceive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !frameCheck.failed else { return report(.wouldBlock) }
        let count = pendingOffset < pendingInput.count ? takePendingInput(into: buffer) : report(transport.receive(into: buffer))
        guard count > 0 else { return count }
        let passed = frameCheck.pass(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
        return passed > 0 ? passed : report(.wouldBlock)
    }

    private func takePendingInput(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, pendingInput.count - pendingOffset)
        pendingInput.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + pendingOffset, byteCount: count)
        }
        pendingOffset += count
        if pendingOffset == pendingInput.count {
            pendingInput = []
            pendingOffset = 0
        }
        return count
    }

    func wslaySend(_ bytes: UnsafeRawBufferPointer, more: Bool) -> Int {
        report(transport.send(bytes, more: more))
    }

    private func report(_ result: ByteStreamResult) -> Int {
        switch result {
        case .transferred(let count):
            return count
        case .wouldBlock:
            wslay_event_set_error(context, WSLAY_ERR_WOULDBLOCK.rawValue)
        case .endOfStream, .failed:
            wslay_event_set_error(context, WSLAY_ERR_CALLBACK_FAILURE.rawValue)
        }
        return -1
    }

    func wslayReceived(opcode: UInt8, payload: UnsafeRawBufferPointer) {
        switch opcode {
        case UInt8(WSLAY_TEXT_FRAME.rawValue):
            delegate?.webSocket(self, didReceive: .text(String(decoding: payload, as: UTF8.self)))
        case UInt8(WSLAY_BINARY_FRAME.rawValue):
            delegate?.webSocket(self, didReceive: .binary(Bytes(payload)))
        case UInt8(WSLAY_CONNECTION_CLOSE.rawValue):
            receivedCloseReason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
        case UInt8(WSLAY_PING.rawValue):
            checkSendBufferAfterPing()
        case UInt8(WSLAY_PONG.rawValue):
            receivedPong()
        default:
            break
        }
    }
}
