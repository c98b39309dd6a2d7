import CZlib
import Foundation

/// Compresses to a raw DEFLATE stream (no zlib or gzip header), as Core Data writes its model
/// cache (`Z_MODELCACHE`), through the system's zlib; ``RawInflate`` reads it back.
enum RawDeflate {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func deflate(_ input: Data) throws -> Data {
        var stream = z_stream()
        // -15: a raw stream with the largest window, as Core Data writes.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else {
            throw Failure(description: "zlib cannot start deflating")
        }
        defer { deflateEnd(&stream) }
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
                    status = CZlib.deflate(&stream, Z_FINISH)
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                        throw Failure(description: "zlib failed deflating (status \(status))")
                    }
                    output.append(buffer.bindMemory(to: UInt8.self).baseAddress!, count: buffer.count - Int(stream.avail_out))  // a non-empty buffer
                }
            } while status != Z_STREAM_END
        }
        return output
    }
}
