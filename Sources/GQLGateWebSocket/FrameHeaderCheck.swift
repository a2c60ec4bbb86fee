/// Follows the frames in the bytes a connection reads, before wslay sees
/// them, and stops at the first malformed header that wslay would not close
/// with 1002: a control frame fragmented or over 125 bytes (RFC 6455 §5.5) and
/// a length not in its shortest form or with the top bit set (§5.2), which
/// wslay's frame layer fails with a close frame without a code, and a close
/// frame with a 1-byte payload (§5.5.1), which wslay takes for a close
/// without a code.
struct FrameHeaderCheck {
    /// Whether a malformed header was found; no byte from it on may reach wslay.
    private(set) var failed = false
    /// Payload bytes of the current frame still to come.
    private var payloadLeft: UInt64 = 0
    /// Bytes read of the header being read; 0 between frames.
    private var headerRead = 0
    private var firstByte: UInt8 = 0
    private var lengthByte: UInt8 = 0
    private var length: UInt64 = 0

    /// Follows `bytes`, the next ones read, and returns how many of them may
    /// be handed on: all, or those before the malformed header found in them
    /// (none when it began in earlier bytes, or after a failure).
    mutating func pass(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard !failed else { return 0 }
        var index = 0
        var headerStart: Int?  // nil while the header being read began in earlier bytes
        while index < bytes.count {
            if headerRead == 0, payloadLeft > 0 {
                let skipped = Int(min(payloadLeft, UInt64(bytes.count - index)))
                index += skipped
                payloadLeft -= UInt64(skipped)
                continue
            }
            if headerRead == 0 { headerStart = index }
            read(bytes[index])
            index += 1
            if failed { return headerStart ?? 0 }
        }
        return bytes.count
    }

    /// Takes the next header byte; at the header's end the payload's length is known.
    private mutating func read(_ byte: UInt8) {
        headerRead += 1
        if headerRead == 1 {
            firstByte = byte
            return
        }
        if headerRead == 2 {
            lengthByte = byte
            let shortLength = byte & 0x7F
            length = extendedLengthBytes == 0 ? UInt64(shortLength) : 0
            let isControl = firstByte & 0x08 != 0, isFinal = firstByte & 0x80 != 0, isClose = firstByte & 0x0F == 0x08
            failed = isControl && (shortLength > 125 || !isFinal) || isClose && shortLength == 1
        } else if headerRead <= 2 + extendedLengthBytes {
            length = length << 8 | UInt64(byte)
            if headerRead == 2 + extendedLengthBytes {
                failed = extendedLengthBytes == 2 ? length < 126 : length < 1 << 16 || length >> 63 != 0
            }
        }
        if !failed, headerRead == 2 + extendedLengthBytes + (lengthByte & 0x80 != 0 ? 4 : 0) {
            headerRead = 0
            payloadLeft = length
        }
    }

    private var extendedLengthBytes: Int {
        switch lengthByte & 0x7F {
        case 126: 2
        case 127: 8
        default: 0
        }
    }
}
