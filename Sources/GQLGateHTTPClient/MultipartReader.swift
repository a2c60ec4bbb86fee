package import GQLGateCore

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
        /// Reading a part's header fields.
        case headers
        /// Reading a part's body, which starts at `partStart`.
        case body
        /// After the close delimiter.
        case finished
    }

    /// `CRLF--boundary`: what ends every part.
    private let delimiter: [UInt8]
    private var buffer: [UInt8] = []
    private var phase = Phase.preamble
    /// Where the body of the part being read starts in `buffer`.
    private var partStart = 0
    /// Where the next search for a delimiter starts (what came before holds none).
    private var scanFrom = 0
    /// Nothing of the preamble was dropped: a delimiter at index 0 opens the body.
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
    /// - Throws: `Malformed` when what came is no multipart body (a part's header block that does not end).
    package mutating func nextPart() throws(Malformed) -> [UInt8]? {
        while true {
            switch phase {
            case .finished:
                return nil
            case .preamble:
                // The first delimiter may open the body without the CRLF before it.
                let opening = delimiter.count - 2
                if atBodyStart, buffer.count >= opening, buffer[0..<opening].elementsEqual(delimiter[2...]) {
                    switch delimiterLine(endingAt: opening) {
                    case .incomplete: return nil
                    case .next(let after): startPart(at: after)
                    case .close: finish()
                    case .notADelimiter: atBodyStart = false
                    }
                    continue
                }
                if buffer.count >= opening { atBodyStart = false }
                guard let found = findDelimiter() else {
                    keepPreambleTail()
                    return nil
                }
                switch delimiterLine(endingAt: found + delimiter.count) {
                case .incomplete: return nil
                case .next(let after): startPart(at: after)
                case .close: finish()
                case .notADelimiter: scanFrom = found + 1
                }
            case .headers:
                guard let bodyStart = headerBlockEnd() else {
                    guard buffer.count <= Self.maxHeaderBytes else {
                        throw Malformed(reason: "a part's header block is longer than \(Self.maxHeaderBytes) bytes")
                    }
                    return nil
                }
                partStart = bodyStart
                scanFrom = bodyStart
                phase = .body
            case .body:
                guard let found = findDelimiter() else { return nil }
                switch delimiterLine(endingAt: found + delimiter.count) {
                case .incomplete:
                    return nil
                case .notADelimiter:
                    scanFrom = found + 1
                case .next(let after):
                    let part = Array(buffer[partStart..<found])
                    startPart(at: after)
                    return part
                case .close:
                    let part = Array(buffer[partStart..<found])
                    finish()
                    return part
                }
            }
        }
    }

    /// What the bytes after a boundary make of it.
    private enum DelimiterLine {
        /// The bytes that tell are still to come.
        case incomplete
        /// A delimiter; the next part's header block starts at the index.
        case next(Int)
        /// The close delimiter (`--` after the boundary).
        case close
        /// The boundary's text followed by other text: part of the content.
        case notADelimiter
    }

    /// What the boundary ending at `end` starts: a delimiter line (optional
    /// spaces, then CRLF), the close delimiter, or neither.
    private func delimiterLine(endingAt end: Int) -> DelimiterLine {
        guard buffer.count >= end + 2 else { return .incomplete }
        if buffer[end] == UInt8(ascii: "-"), buffer[end + 1] == UInt8(ascii: "-") { return .close }
        var index = end
        while index < buffer.count, buffer[index] == UInt8(ascii: " ") || buffer[index] == UInt8(ascii: "\t") { index += 1 }
        guard index + 2 <= buffer.count else { return .incomplete }
        return buffer[index] == 0x0D && buffer[index + 1] == 0x0A ? .next(index + 2) : .notADelimiter
    }

    /// Drops what came before `start`, where the next part's header block starts.
    private mutating func startPart(at start: Int) {
        buffer.removeFirst(start)
        phase = .headers
        partStart = 0
        scanFrom = 0
    }

    /// The close delimiter came: what follows is dropped.
    private mutating func finish() {
        buffer = []
        phase = .finished
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
