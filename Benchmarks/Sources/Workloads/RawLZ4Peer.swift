import BenchLZ4
import Foundation

/// The physical limit: the records hand-serialised into a byte buffer, LZ4-compressed in
/// chunks, written with `fsync`, and read back into structs. What an atomic store could do
/// with no framework around it; Strata's save and load are measured against it.
///
/// File: for each chunk, its raw and compressed sizes (UInt32 little-endian each), then the
/// compressed bytes. A record: id, age, manager (Int64, -1 for none), score, created (Float64),
/// then name and email, each as a UInt32 length and UTF-8 bytes.
public enum RawLZ4Peer {
    static let chunkSize = 4 << 20

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Workload 1's save: serialises, compresses, writes and `fsync`s.
    public static func save(_ records: [PersonRecord], to url: URL) throws {
        var output: [UInt8] = []
        var chunk: [UInt8] = []
        chunk.reserveCapacity(chunkSize + 256)
        func flush() throws {
            guard !chunk.isEmpty else { return }
            let bound = Int(LZ4_compressBound(Int32(chunk.count)))
            let header = output.count
            output.append(contentsOf: repeatElement(0, count: 8 + bound))
            let written = chunk.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    LZ4_compress_default(
                        UnsafeRawPointer(source.baseAddress!).assumingMemoryBound(to: CChar.self),
                        UnsafeMutableRawPointer(target.baseAddress! + header + 8).assumingMemoryBound(to: CChar.self),
                        Int32(chunk.count), Int32(bound))
                }
            }
            guard written > 0 else { throw Failure(description: "LZ4 refused a chunk") }
            output.removeLast(bound - Int(written))
            put32(UInt32(chunk.count), into: &output, at: header)
            put32(UInt32(written), into: &output, at: header + 4)
            chunk.removeAll(keepingCapacity: true)
        }
        for record in records {
            append64(UInt64(bitPattern: Int64(record.id)), to: &chunk)
            append64(UInt64(bitPattern: Int64(record.age)), to: &chunk)
            append64(UInt64(bitPattern: Int64(record.managerID ?? -1)), to: &chunk)
            append64(record.score.bitPattern, to: &chunk)
            append64(record.created.timeIntervalSinceReferenceDate.bitPattern, to: &chunk)
            appendString(record.name, to: &chunk)
            appendString(record.email, to: &chunk)
            if chunk.count >= chunkSize { try flush() }
        }
        try flush()
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw Failure(description: "cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: output)
        try handle.synchronize()
    }

    /// Workload 2's counterpart: reads, decompresses and decodes every record.
    public static func load(_ url: URL) throws -> [PersonRecord] {
        let file = try [UInt8](Data(contentsOf: url))
        var records: [PersonRecord] = []
        var offset = 0
        var chunk: [UInt8] = []
        while offset < file.count {
            guard offset + 8 <= file.count else { throw Failure(description: "truncated chunk header") }
            let rawSize = Int(get32(file, at: offset)), compressedSize = Int(get32(file, at: offset + 4))
            guard offset + 8 + compressedSize <= file.count else { throw Failure(description: "truncated chunk") }
            chunk = [UInt8](repeating: 0, count: rawSize)
            let read = file.withUnsafeBufferPointer { source in
                chunk.withUnsafeMutableBufferPointer { target in
                    LZ4_decompress_safe(
                        UnsafeRawPointer(source.baseAddress! + offset + 8).assumingMemoryBound(to: CChar.self),
                        UnsafeMutableRawPointer(target.baseAddress!).assumingMemoryBound(to: CChar.self),
                        Int32(compressedSize), Int32(rawSize))
                }
            }
            guard Int(read) == rawSize else { throw Failure(description: "corrupt chunk") }
            var cursor = 0
            while cursor < rawSize {
                let id = Int(Int64(bitPattern: get64(chunk, at: cursor)))
                let age = Int(Int64(bitPattern: get64(chunk, at: cursor + 8)))
                let manager = Int(Int64(bitPattern: get64(chunk, at: cursor + 16)))
                let score = Double(bitPattern: get64(chunk, at: cursor + 24))
                let created = Double(bitPattern: get64(chunk, at: cursor + 32))
                cursor += 40
                let name = getString(chunk, at: &cursor)
                let email = getString(chunk, at: &cursor)
                records.append(PersonRecord(
                    id: id, name: name, email: email, age: age, score: score,
                    created: Date(timeIntervalSinceReferenceDate: created), managerID: manager < 0 ? nil : manager))
            }
            offset += 8 + compressedSize
        }
        return records
    }

    /// A file of `count` people, made once per size (see ``Fixtures``).
    public static func fixture(count: Int) async throws -> URL {
        try await Fixtures.file("people.lz4", count: count) { url in
            try save(PersonRecord.generate(count: count), to: url)
        }
    }

    private static func append64(_ value: UInt64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    private static func appendString(_ string: String, to buffer: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: bytes)
        }
    }

    private static func put32(_ value: UInt32, into buffer: inout [UInt8], at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { bytes in
            for index in 0..<4 { buffer[offset + index] = bytes[index] }
        }
    }

    private static func get32(_ buffer: [UInt8], at offset: Int) -> UInt32 {
        buffer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    private static func get64(_ buffer: [UInt8], at offset: Int) -> UInt64 {
        buffer.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    }

    private static func getString(_ buffer: [UInt8], at cursor: inout Int) -> String {
        let length = Int(get32(buffer, at: cursor))
        defer { cursor += 4 + length }
        return String(decoding: buffer[(cursor + 4)..<(cursor + 4 + length)], as: UTF8.self)
    }
}
