#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An immutable byte buffer in `malloc`'d memory, so that C libraries
/// (libcurl request bodies, libmicrohttpd responses) can use it without a copy.
///
/// `@unchecked Sendable`: the memory is written only before `init` returns and
/// freed only in `deinit`; in between it is read-only, so sharing is safe.
public final class Bytes: @unchecked Sendable {
    /// Start of the bytes; `nil` when `count` is 0.
    package let baseAddress: UnsafeMutableRawPointer?
    /// Number of bytes.
    public let count: Int

    /// Takes ownership of `malloc`'d memory, which `deinit` frees.
    package init(takingOwnershipOf baseAddress: UnsafeMutableRawPointer?, count: Int) {
        self.baseAddress = count == 0 ? nil : baseAddress
        self.count = count
        if count == 0, let baseAddress { free(baseAddress) }
    }

    /// Copies `bytes` into new memory.
    public convenience init(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0, let source = bytes.baseAddress, let memory = malloc(bytes.count) else {
            self.init(takingOwnershipOf: nil, count: 0)
            return
        }
        memory.copyMemory(from: source, byteCount: bytes.count)
        self.init(takingOwnershipOf: memory, count: bytes.count)
    }

    /// Copies the UTF-8 bytes of `string`.
    public convenience init(_ string: String) {
        var string = string
        let copy: Bytes? = string.withUTF8 { Bytes(UnsafeRawBufferPointer($0)) }
        self.init(copyOf: copy)
    }

    /// Copies `array`.
    public convenience init(_ array: [UInt8]) {
        let copy: Bytes = array.withUnsafeBytes { Bytes($0) }
        self.init(copyOf: copy)
    }

    private convenience init(copyOf other: Bytes?) {
        guard let other, other.count > 0, let memory = malloc(other.count), let source = other.baseAddress else {
            self.init(takingOwnershipOf: nil, count: 0)
            return
        }
        memory.copyMemory(from: source, byteCount: other.count)
        self.init(takingOwnershipOf: memory, count: other.count)
    }

    /// An empty buffer.
    public static let empty = Bytes(takingOwnershipOf: nil, count: 0)

    deinit {
        free(baseAddress)
    }

    /// Calls `body` with a read-only view of the bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: baseAddress, count: count))
    }

    /// The bytes as an array (a copy).
    public var array: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The bytes decoded as UTF-8 (invalid sequences repaired).
    public var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}

extension Bytes: Equatable {
    public static func == (lhs: Bytes, rhs: Bytes) -> Bool {
        lhs.count == rhs.count && (lhs.count == 0 || memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0)
    }
}
