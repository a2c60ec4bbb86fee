import GQLGateCore

/// Reads the parts of a `multipart/mixed` body (RFC 2046 §5.1) as its bytes
/// arrive, however they are cut: `append` what came, then take each part
/// completed so far with `nextPart`. A part is complete once the delimiter
/// after it arrived (`CRLF--boundary`), so it is handed on as soon as the
/// sender finished it. The preamble (before the first delimiter), the parts'
/// header fields and the epilogue (after the close delimiter) are skipped;
/// `isFinished` tells when the close delimiter came.
///
/// A value type without I/O: it holds the bytes of the part being received
/// and nothing after a part was taken, so it holds at most one part (plus a
/// delimiter's length) at a time.
package struct MultipartReader {
    /// Why a body is no `multipart/mixed` body.
    package struct Malformed: Error, Equatable {
        package let reason: String
    }

    private enum Phase {
        /// Before the first delimiter.
        case preamble
        /// After a boundary: the close delimiter's `--`, or the rest of a delimiter line.
        case afterDelimiter
        /// Reading a part's header fields.
        case headers
        /// Reading a part's body, which starts the buffer.
        case body
        /// After the close delimiter.
        case finished
    }

    /// `CRLF--boundary`: what ends every part.
    private let delimiter: [UInt8]
    private var buffer: [UInt8] = []
    private var phase = Phase.preamble
    /// Where the next search for a delimiter starts (what came before holds none).
    private var scanFrom = 0
    /// Nothing of the body was read past yet: a delimiter without its CRLF may open it.
    private var atBodyStart = true

    /// The longest header block a part may have.
    static let maxHeaderBytes = 8 << 10

    /// A reader for parts separated by `boundary` (1 to 70 characters, RFC 2046 §5.1.1).
    package init?(boundary: String) {
        guard (1...70).contains(boundary.utf8.count) else { return nil }
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// A reader for a body of `contentType`, when that is `multipart/mixed`
    /// with a boundary.
    package init?(contentType: String) {
        guard let boundary = Self.boundary(ofMultipartMixed: contentType) else { return nil }
        self.init(boundary: boundary)
    }

    /// Whether the close delimiter (`CRLF--boundary--`) came: no part follows.
    package var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// The bytes held: those of the part being received (and of a delimiter not yet complete).
    package var bufferedCount: Int { buffer.count }

    /// Takes more of the body. After the close delimiter, bytes are dropped (the epilogue).
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !isFinished else { return }
        buffer.append(contentsOf: bytes)
    }

    /// The body of the next complete part, nil until one is complete.
    /// - Throws: `Malformed` when what came is no multipart body: a part's
    ///   header block that does not end, a delimiter followed by other text
    ///   than spaces and CRLF (or the close delimiter's `--`).
    package mutating func nextPart() throws(Malformed) -> [UInt8]? {
        while true {
            switch phase {
            case .finished:
                return nil
            case .preamble:
                // The first delimiter may open the body without the CRLF before it.
                if atBodyStart {
                    let opening = delimiter.count - 2
                    if buffer.count < opening, buffer.elementsEqual(delimiter[2..<(2 + buffer.count)]) { return nil }
                    atBodyStart = false
                    if buffer.count >= opening, buffer[0..<opening].elementsEqual(delimiter[2...]) {
                        buffer.removeFirst(opening)
                        phase = .afterDelimiter
                        continue
                    }
                }
                guard let found = findDelimiter() else {
                    keepPreambleTail()
                    return nil
                }
                buffer.removeFirst(found + delimiter.count)
                scanFrom = 0
                phase = .afterDelimiter
            case .afterDelimiter:
                guard try delimiterLineEnded() else { return nil }
            case .headers:
                guard let bodyStart = headerBlockEnd() else {
                    guard buffer.count <= Self.maxHeaderBytes else {
                        throw Malformed(reason: "a part's header block is longer than \(Self.maxHeaderBytes) bytes")
                    }
                    return nil
                }
                buffer.removeFirst(bodyStart)
                scanFrom = 0
                phase = .body
            case .body:
                // Complete once the delimiter came: whether a part or the end follows is read later.
                guard let found = findDelimiter() else { return nil }
                let part = Array(buffer[0..<found])
                buffer.removeFirst(found + delimiter.count)
                phase = .afterDelimiter
                return part
            }
        }
    }

    /// Reads what follows a boundary at the start of `buffer`: `--` (the close
    /// delimiter: the body is over), or optional spaces and CRLF (a part
    /// follows). False while the bytes that tell are still to come.
    private mutating func delimiterLineEnded() throws(Malformed) -> Bool {
        guard buffer.count >= 2 else { return false }
        if buffer[0] == UInt8(ascii: "-"), buffer[1] == UInt8(ascii: "-") {
            buffer = []
            phase = .finished
            return true
        }
        var index = 0
        while index < buffer.count, buffer[index] == UInt8(ascii: " ") || buffer[index] == UInt8(ascii: "\t") { index += 1 }
        guard index <= 64 else { throw Malformed(reason: "a delimiter is followed by more than 64 spaces") }
        guard index + 2 <= buffer.count else { return false }
        guard buffer[index] == 0x0D, buffer[index + 1] == 0x0A else {
            throw Malformed(reason: "a delimiter is followed by other text than a line break")
        }
        buffer.removeFirst(index + 2)
        phase = .headers
        return true
    }

    /// Where a part's body starts: past the empty line that ends its header
    /// block (at once for a part without header fields); nil until it came.
    private func headerBlockEnd() -> Int? {
        if buffer.count >= 2, buffer[0] == 0x0D, buffer[1] == 0x0A { return 2 }
        return find([0x0D, 0x0A, 0x0D, 0x0A], from: 0).map { $0 + 4 }
    }

    /// The index of the next delimiter from `scanFrom`; when there is none, `scanFrom`
    /// moves to where one could still start, so no byte is searched twice.
    private mutating func findDelimiter() -> Int? {
        if let found = find(delimiter, from: scanFrom) { return found }
        scanFrom = max(scanFrom, buffer.count - delimiter.count + 1)
        return nil
    }

    /// In the preamble: keeps only what a delimiter could still start in.
    private mutating func keepPreambleTail() {
        let drop = max(0, buffer.count - delimiter.count)
        guard drop > 0 else { return }
        buffer.removeFirst(drop)
        scanFrom = max(0, scanFrom - drop)
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard start >= 0, buffer.count >= needle.count, start <= buffer.count - needle.count else { return nil }
        let first = needle[0]
        var index = start
        while index <= buffer.count - needle.count {
            if buffer[index] == first, buffer[(index + 1)..<(index + needle.count)].elementsEqual(needle[1...]) { return index }
            index += 1
        }
        return nil
    }

    /// The boundary of a `multipart/mixed` content type (`multipart/mixed; boundary="-"`), unquoted; nil for another type.
    package static func boundary(ofMultipartMixed contentType: String) -> String? {
        let pieces = contentType.split(separator: ";")
        guard let type = pieces.first, String(type.trimmingASCIISpaces()).equalsIgnoringASCIICase("multipart/mixed") else { return nil }
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0].trimmingASCIISpaces()).equalsIgnoringASCIICase("boundary") else { continue }
            var value = pair[1].trimmingASCIISpaces()
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }
}
