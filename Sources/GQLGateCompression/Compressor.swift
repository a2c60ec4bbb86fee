import CBrotli
import CZlib
package import GQLGateCore
#if canImport(Glibc)
import Glibc
#endif

/// Compresses answer bodies in one call with Debian's libbrotli and zlib
/// (not compress-nio, which would pull SwiftNIO into a server that has no
/// use for it). Stateless: safe from any thread.
package enum Compressor {
    /// Brotli quality: 5 compresses JSON to about gzip's best at a fraction of its CPU time.
    static let brotliQuality: Int32 = 5
    /// zlib level: 6, its default.
    static let gzipLevel: Int32 = 6

    /// `body` compressed with `coding`, or nil when that would not make it
    /// smaller (or the library failed): the answer is then sent as it is.
    package static func compress(_ body: Bytes, as coding: ContentCoding) -> Bytes? {
        guard let input = body.baseAddress, body.count > 0 else { return nil }
        switch coding {
        case .br: return brotli(input, count: body.count)
        case .gzip: return gzip(input, count: body.count)
        }
    }

    private static func brotli(_ input: UnsafeMutableRawPointer, count: Int) -> Bytes? {
        let bound = BrotliEncoderMaxCompressedSize(count)
        guard bound > 0, let output = malloc(bound) else { return nil }
        var size = bound
        let done = BrotliEncoderCompress(brotliQuality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, count,
                                         input.assumingMemoryBound(to: UInt8.self), &size, output.assumingMemoryBound(to: UInt8.self))
        return smaller(output, size: done == BROTLI_TRUE ? size : nil, than: count)
    }

    private static func gzip(_ input: UnsafeMutableRawPointer, count: Int) -> Bytes? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer around the deflate data.
        guard deflateInit2_(&stream, gzipLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(count))) + 32  // deflateBound leaves out the gzip wrapper's 18 bytes
        guard let output = malloc(bound) else { return nil }
        stream.next_in = input.assumingMemoryBound(to: Bytef.self)
        stream.avail_in = uInt(count)
        stream.next_out = output.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(bound)
        let result = deflate(&stream, Z_FINISH)
        return smaller(output, size: result == Z_STREAM_END ? Int(stream.total_out) : nil, than: count)
    }

    /// `output` as `Bytes` when `size` is known and below `count`; else frees it.
    private static func smaller(_ output: UnsafeMutableRawPointer, size: Int?, than count: Int) -> Bytes? {
        guard let size, size < count else {
            free(output)
            return nil
        }
        return Bytes(takingOwnershipOf: realloc(output, size) ?? output, count: size)
    }
}
