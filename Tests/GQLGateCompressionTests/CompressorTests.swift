import CZlib
import GQLGateCore
import Testing
@testable import GQLGateCompression

@Suite struct CompressorTests {
    private static let json = Bytes(String(repeating: #"{"id":"1000","name":"Luke Skywalker","friends":[{"name":"Han"}]},"#, count: 200))

    @Test func gzipRoundTripsThroughZlib() throws {
        let compressed = try #require(Compressor.compress(Self.json, as: .gzip))
        #expect(compressed.count < Self.json.count / 10)
        #expect(Array(compressed.array.prefix(2)) == [0x1F, 0x8B])  // a gzip member
        #expect(try inflate(compressed, capacity: Self.json.count + 16) == Self.json.array)
    }

    @Test func brotliIsSmallerStill() throws {
        let br = try #require(Compressor.compress(Self.json, as: .br))
        let gz = try #require(Compressor.compress(Self.json, as: .gzip))
        #expect(br.count < Self.json.count / 10 && br.count <= gz.count)
    }

    @Test func whatWouldNotShrinkIsLeftAsItIs() {
        #expect(Compressor.compress(Bytes("{}"), as: .gzip) == nil)
        #expect(Compressor.compress(Bytes(""), as: .br) == nil)
        var random = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        let bytes = noise.withUnsafeBytes { Bytes($0) }
        #expect(Compressor.compress(bytes, as: .gzip) == nil)
        #expect(Compressor.compress(bytes, as: .br) == nil)
    }

    /// `compressed` (gzip) decoded with zlib.
    private func inflate(_ compressed: Bytes, capacity: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: capacity)
        var stream = z_stream()
        #expect(inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&stream) }
        let produced = output.withUnsafeMutableBufferPointer { out -> Int in
            stream.next_in = compressed.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(compressed.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            let result = CZlib.inflate(&stream, Z_FINISH)
            #expect(result == Z_STREAM_END)
            return Int(stream.total_out)
        }
        return Array(output.prefix(produced))
    }
}
