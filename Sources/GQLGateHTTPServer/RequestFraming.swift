/// How a request says its body is framed, read from its `Content-Length` and
/// `Transfer-Encoding` fields as the server collects them, and what the
/// server makes of it (RFC 9112 §6.3). libmicrohttpd reads only the first of
/// each field; a proxy in front may read another, so every field counts here.
struct RequestFraming {
    /// What the server does with the request.
    enum Verdict: Equatable {
        /// Read the body. `closeAfterAnswer` when `Transfer-Encoding` came with a
        /// `Content-Length`: the length is ignored, and as a proxy in front may
        /// have read it instead, the connection is not used again.
        case accept(closeAfterAnswer: Bool)
        /// The declared length is over the limit: 413 before the body is read.
        case tooLarge
        /// Refused before the body is read, then the connection closes.
        case refused(FramingRefusal)
    }

    private var sawLength = false
    private var length: UInt64?
    private var lengthIsValid = true
    private var codings: [String] = []
    private var sawCoding = false

    /// Takes note of one header field; fields other than the two are skipped
    /// by length, without reading their bytes.
    mutating func note(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        switch name.count {
        case 14 where Self.equalsIgnoringCase(name, "content-length"): noteLength(value)
        case 17 where Self.equalsIgnoringCase(name, "transfer-encoding"): noteCodings(value)
        default: break
        }
    }

    /// The verdict for a request whose fields were all noted.
    func verdict(maxBodyBytes: Int) -> Verdict {
        if sawCoding {
            guard codings == ["chunked"] else { return .refused(.unsupportedTransferCoding) }
            return .accept(closeAfterAnswer: sawLength)
        }
        guard sawLength else { return .accept(closeAfterAnswer: false) }
        guard lengthIsValid, let length else { return .refused(.invalidContentLength) }
        return length > UInt64(max(0, maxBodyBytes)) ? .tooLarge : .accept(closeAfterAnswer: false)
    }

    private mutating func noteLength(_ value: UnsafeRawBufferPointer) {
        let parsed = Self.decimal(value)
        if sawLength, parsed != length { lengthIsValid = false }
        if parsed == nil, !Self.isDigits(value) { lengthIsValid = false }
        sawLength = true
        length = parsed
    }

    private mutating func noteCodings(_ value: UnsafeRawBufferPointer) {
        sawCoding = true
        for coding in String(decoding: value, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false) {
            codings.append(coding.trimmingOWS.lowercased())
        }
    }

    /// The value as a decimal number; nil when it is not one, or past `UInt64.max`
    /// (a length that large is over any limit: `verdict` says `tooLarge`).
    private static func decimal(_ value: UnsafeRawBufferPointer) -> UInt64? {
        guard !value.isEmpty else { return nil }
        var result: UInt64 = 0
        for byte in value {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - 0x30))
            if overflow1 || overflow2 { return UInt64.max }
            result = sum
        }
        return result
    }

    private static func isDigits(_ value: UnsafeRawBufferPointer) -> Bool {
        !value.isEmpty && value.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<bytes.count where bytes[index] != expected[index] {
            let letter = expected[index] >= 0x61 && expected[index] <= 0x7A
            guard letter, bytes[index] | 0x20 == expected[index] else { return false }
        }
        return true
    }
}

/// Why the server refuses a request before reading its body.
package enum FramingRefusal: Sendable, Equatable {
    /// `Content-Length` fields that disagree, or one that is not a number: 400.
    case invalidContentLength
    /// A transfer coding other than one final `chunked`: 501.
    case unsupportedTransferCoding
    /// A header block that leaves too little of the connection's memory for
    /// the answer's (`ConnectionMemory.answerReserve`): 431.
    case headerFieldsTooLarge

    /// The status the refusal is answered with.
    package var status: Int {
        switch self {
        case .invalidContentLength: 400
        case .unsupportedTransferCoding: 501
        case .headerFieldsTooLarge: 431
        }
    }
}

extension Substring {
    /// Without the spaces and tabs around it (HTTP's optional white space).
    fileprivate var trimmingOWS: Substring {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isOWS($0) }), let end = lastIndex(where: { !isOWS($0) }) else { return "" }
        return self[start...end]
    }
}
