#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Bytes {
    /// A copy without the byte ranges `ranges` (ascending, not overlapping):
    /// every other byte in its order, in one allocation.
    package func removing(_ ranges: [Range<Int>]) -> Bytes {
        let count = self.count - ranges.reduce(0) { $0 + $1.count }
        guard count > 0, let memory = malloc(count), let source = baseAddress else { return .empty }
        var written = 0
        var next = 0
        for range in ranges + [self.count..<self.count] {
            let length = range.lowerBound - next
            (memory + written).copyMemory(from: source + next, byteCount: length)
            written += length
            next = range.upperBound
        }
        return Bytes(takingOwnershipOf: memory, count: count)
    }
}
