import CWslay

/// The C callbacks every wslay context gets; `user_data` is the unretained
/// `WebSocketConnection`, which frees its context before it goes away.
let wslayCallbacks = wslay_event_callbacks(
    recv_callback: { _, buffer, length, _, user in
        guard let buffer, let user else { return -1 }
        return connection(user).wslayReceive(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
    },
    send_callback: { _, data, length, flags, user in
        guard let data, let user else { return -1 }
        let more = flags & Int32(WSLAY_MSG_MORE.rawValue) != 0
        return connection(user).wslaySend(UnsafeRawBufferPointer(start: data, count: length), more: more)
    },
    genmask_callback: { _, buffer, length, _ in
        guard let buffer else { return -1 }
        var generator = SystemRandomNumberGenerator()
        for index in 0..<length { buffer[index] = UInt8.random(in: .min ... .max, using: &generator) }
        return 0
    },
    on_frame_recv_start_callback: nil,
    on_frame_recv_chunk_callback: nil,
    on_frame_recv_end_callback: nil,
    on_msg_recv_callback: { _, argument, user in
        guard let argument, let user else { return }
        let message = argument.pointee
        connection(user).wslayReceived(opcode: message.opcode, payload: UnsafeRawBufferPointer(start: message.msg, count: message.msg_length))
    }
)

private func connection(_ user: UnsafeMutableRawPointer) -> WebSocketConnection {
    Unmanaged<WebSocketConnection>.fromOpaque(user).takeUnretainedValue()
}
