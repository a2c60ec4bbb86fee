#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable `malloc`'d buffer that collects bytes from C callbacks (request
/// bodies from libmicrohttpd, answers from libcurl) and becomes `Bytes`
/// without a copy.
///
/// Not thread-safe: one owner at a time.
package struct ByteAccumulator: ~Copyable {
    private var memory: UnsafeMutableRawPointer?
    /// Bytes allocated.
    package private(set) var capacity = 0
    /// Bytes collected so far.
    package private(set) var count = 0

    /// An empty accumulator; memory is allocated on the first append.
    package init() {}

    deinit {
        free(memory)
    }

    /// Appends `length` bytes from `source`; returns false when memory runs out.
    @discardableResult
    package mutating func append(_ source: UnsafeRawPointer, length: Int) -> Bool {
        guard length > 0 else { return true }
        if count + length > capacity {
            let wanted = capacity(toAppend: length)
            guard let grown = realloc(memory, wanted) else { return false }
            memory = grown
            capacity = wanted
        }
        (memory! + count).copyMemory(from: source, byteCount: length)
        count += length
        return true
    }

    /// Makes room for `total` bytes in all, when it has less; false when memory runs out.
    package mutating func reserve(_ total: Int) -> Bool {
        guard total > capacity else { return true }
        guard let grown = realloc(memory, total) else { return false }
        memory = grown
        capacity = total
        return true
    }

    /// The capacity after appending `length` more bytes: the same while they
    /// fit, else at least double.
    package func capacity(toAppend length: Int) -> Int {
        count + length <= capacity ? capacity : max(count + length, max(capacity * 2, 512))
    }

    /// Hands the collected bytes over as `Bytes` and leaves the accumulator empty.
    package mutating func take() -> Bytes {
        let bytes = Bytes(takingOwnershipOf: memory, count: count)
        memory = nil
        capacity = 0
        count = 0
        return bytes
    }
}
