import CZlib
import Foundation

/// Raw DEFLATE streams (no zlib or gzip header), as Core Data writes its model cache
/// (`Z_MODELCACHE`), through the system's zlib.
package enum RawDeflate {
    /// Why a stream could not be made or read.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// `input` compressed.
    package static func deflate(_ input: Data) throws -> Data {
        var stream = z_stream()
        // -15: a raw stream with the largest window, as Core Data writes.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else {
            throw Failure(description: "zlib cannot start deflating")
        }
        defer { deflateEnd(&stream) }
        let (output, status) = try run(&stream, over: input, maximumSize: .max) { stream in
            let status = CZlib.deflate(&stream, Z_FINISH)
            // Z_BUF_ERROR: no progress possible with this chunk full; the next one continues.
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw Failure(description: "zlib failed deflating (status \(status))")
            }
            return status
        }
        guard status == Z_STREAM_END else { throw Failure(description: "zlib stopped deflating before the end (status \(status))") }
        return output
    }

    /// The stream's content; refuses, without allocating it, content larger than `maximumSize`
    /// (a small stream can claim to expand without bound), and a stream that is cut short.
    package static func inflate(_ input: Data, maximumSize: Int) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib cannot start inflating")
        }
        defer { inflateEnd(&stream) }
        let (output, status) = try run(&stream, over: input, maximumSize: maximumSize) { stream in
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END else {
                throw Failure(description: "the DEFLATE stream is damaged (zlib status \(status))")
            }
            return status
        }
        guard status == Z_STREAM_END else { throw Failure(description: "the DEFLATE stream ends early") }
        return output
    }

    /// Runs `step` over `input` into 64 KiB output chunks until the stream ends, or no input is
    /// left and the last chunk was not filled (nothing more can come); the output and zlib's
    /// last status.
    private static func run(
        _ stream: inout z_stream, over input: Data, maximumSize: Int, step: (inout z_stream) throws -> Int32
    ) throws -> (Data, Int32) {
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
                    status = try step(&stream)
                    let produced = buffer.count - Int(stream.avail_out)
                    guard output.count + produced <= maximumSize else {
                        throw Failure(description: "the DEFLATE stream expands past \(maximumSize) bytes")
                    }
                    output.append(buffer.bindMemory(to: UInt8.self).baseAddress!, count: produced)  // a non-empty buffer
                }
            } while status != Z_STREAM_END && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        return (output, status)
    }
}
