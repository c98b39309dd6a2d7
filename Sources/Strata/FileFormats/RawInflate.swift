import CZlib
import Foundation

/// Decompresses a raw DEFLATE stream (no zlib or gzip header), as Core Data writes its model
/// cache, through the system's zlib.
enum RawInflate {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The stream's content; refuses, without allocating it, content larger than `maximumSize`
    /// (a small stream can claim to expand without bound), and a stream that is cut short.
    static func inflate(_ input: Data, maximumSize: Int) throws -> Data {
        var stream = z_stream()
        // -15: a raw stream with the largest window, which is what Core Data writes.
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib cannot start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        try input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(source.count)
            repeat {
                try chunk.withUnsafeMutableBytes { buffer in
                    stream.next_out = buffer.bindMemory(to: Bytef.self).baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    guard status == Z_OK || status == Z_STREAM_END else {
                        throw Failure(description: "the DEFLATE stream is damaged (zlib status \(status))")
                    }
                    let produced = buffer.count - Int(stream.avail_out)
                    guard output.count + produced <= maximumSize else {
                        throw Failure(description: "the DEFLATE stream expands past \(maximumSize) bytes")
                    }
                    output.append(buffer.bindMemory(to: UInt8.self).baseAddress!, count: produced)  // a non-empty buffer
                }
            } while status != Z_STREAM_END && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        guard status == Z_STREAM_END else { throw Failure(description: "the DEFLATE stream ends early") }
        return output
    }
}
