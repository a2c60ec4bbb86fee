import FuzzerSupport
import GQLGateHTTPClient

/// One input: any bytes as an upstream's `multipart/mixed` body (boundary
/// `-`), read once whole and once in pieces cut where the first byte says.
/// Both readings give the same parts and the same end (finished, open, or
/// malformed), and every part is a piece of the input.
private func fuzzMultipartParts(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: count)
    let step = count == 0 ? 1 : max(1, Int(input[0]) % 17)
    let whole = read(input, piece: max(1, count))
    let cut = read(input, piece: step)
    precondition(whole == cut, "reading in pieces of \(step) bytes gives other parts than reading whole")
    let text = Array(input)
    for part in whole.parts {
        precondition(part.isEmpty || contains(text, part), "a part that is not in the input")
    }
    return 0
}

/// What a reading gave: the parts, and how the body ended.
private struct Reading: Equatable {
    var parts: [[UInt8]] = []
    var finished = false
    var malformed = false
}

private func read(_ input: UnsafeRawBufferPointer, piece: Int) -> Reading {
    var reader = MultipartReader(boundary: "-")!
    var reading = Reading()
    var offset = 0
    while offset < input.count {
        let end = min(input.count, offset + piece)
        reader.append(UnsafeRawBufferPointer(rebasing: input[offset..<end]))
        offset = end
        do {
            while let part = try reader.nextPart() { reading.parts.append(part) }
        } catch {
            reading.malformed = true
            return reading
        }
    }
    reading.finished = reader.isFinished
    return reading
}

private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// Runs libFuzzer on `fuzzMultipartParts`.
@main
enum MultipartPartsFuzzer {
    static func main() {
        runFuzzer { fuzzMultipartParts($0, $1) }
    }
}
