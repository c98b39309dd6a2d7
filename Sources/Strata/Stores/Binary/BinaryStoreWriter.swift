#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import StrataFileFormats

/// Writes a binary store file: header, metadata record, object chunks of about
/// ``BinaryStoreFormat/chunkSize`` bytes each, end record; then `fsync`s it.
struct BinaryStoreWriter {
    let url: URL
    let descriptor: Int32
    private var entityIndexes: [String: Int] = [:]
    private var buffer = ByteWriter(capacity: BinaryStoreFormat.chunkSize + 4096)
    private var chunks = 0
    private var objects = 0
    private var formatVersion = UInt16(1)
    private var historyRecords = 0
    private var transactions = 0

    /// Creates (or empties) the file at `url` for writing.
    init(url: URL) throws {
        self.url = url
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(url, "cannot create the file") }
    }

    /// Writes the fixed header and the metadata record; objects written next follow its schema.
    mutating func writeHeader(_ header: BinaryStoreHeader) throws {
        entityIndexes = Dictionary(uniqueKeysWithValues: header.schema.entities.enumerated().map { ($1.name, $0) })
        formatVersion = header.metadata[BinaryStoreFormat.historyCountersKey] == nil ? 1 : BinaryStoreFormat.historyVersion
        var fixed = ByteWriter()
        fixed.raw(BinaryStoreFormat.magic)
        fixed.fixed(formatVersion)
        fixed.fixed(UInt16(0))
        fixed.fixed(UInt32(0))
        try write(fixed.bytes)

        var record = ByteWriter()
        record.byte(BinaryStoreFormat.RecordKind.metadata.rawValue)
        record.metadataValue(.dictionary(header.metadata))
        record.schema(header.schema)
        try writeRecord(record.bytes)
    }

    /// Writes the objects of one entity, in chunks.
    mutating func writeObjects(entity: String, rows: some Sequence<(key: Int64, value: Row)>) throws {
        guard let index = entityIndexes[entity] else { return }
        var chunk = Chunk(entityIndex: index)
        for (reference, row) in rows {
            chunk.body.signed(reference)
            try encode(row, into: &chunk.body)
            try objectWritten(in: &chunk)
        }
        try flush(&chunk)
    }

    /// Writes the objects of one entity's table, in chunks: the rows in its columns straight
    /// from them (strings copied as bytes), without a ``Row`` made for each.
    mutating func writeObjects(entity: String, table: RowTable) throws {
        guard let index = entityIndexes[entity] else { return }
        var chunk = Chunk(entityIndex: index)
        let stored = table.stored
        // Every position is in the one base: its columns are read in place, slot by slot.
        let base = stored.base, columns = base.columns
        for (reference, row) in stored {
            chunk.body.signed(reference)
            switch row {
            case .row(let row):
                try encode(row, into: &chunk.body)
            case .column(_, let position):
                chunk.body.signed(columns.versions[position])
                for box in base.attributes { try chunk.body.attributeValue(box.column, at: position) }
                for slot in columns.relationships.indices { encode(columns.relationships[slot][position], into: &chunk.body) }
            }
            try objectWritten(in: &chunk)
        }
        try flush(&chunk)
    }

    /// The objects of one entity being gathered into the next chunk.
    private struct Chunk {
        let entityIndex: Int
        var count = 0
        var body = ByteWriter(capacity: BinaryStoreFormat.chunkSize + 4096)
    }

    private func encode(_ row: Row, into body: inout ByteWriter) throws {
        body.signed(row.version)
        for value in row.attributes { try body.attributeValue(value) }
        for targets in row.relationships { encode(targets, into: &body) }
    }

    private func encode(_ targets: RelationshipTargets, into body: inout ByteWriter) {
        switch targets.read {
        case .one(let id):
            if let id, let target = targetIndex(id) {
                body.byte(1)
                body.varint(target.0)
                body.signed(target.1)
            } else {
                body.byte(0)
            }
        case .many(let ids):
            let targets = ids.compactMap(targetIndex)
            body.varint(targets.count)
            for (entityIndex, reference) in targets {
                body.varint(entityIndex)
                body.signed(reference)
            }
        }
    }

    /// Counts the object just encoded, and writes the chunk once it is full.
    private mutating func objectWritten(in chunk: inout Chunk) throws {
        chunk.count += 1
        if chunk.body.count >= BinaryStoreFormat.chunkSize { try flush(&chunk) }
    }

    private mutating func flush(_ chunk: inout Chunk) throws {
        guard chunk.count > 0 else { return }
        try flushChunk(entityIndex: chunk.entityIndex, count: chunk.count, body: &chunk.body)
        chunk.count = 0
    }

    private func targetIndex(_ id: ManagedObjectID) -> (Int, Int64)? {
        guard let index = entityIndexes[id.entityName], let reference = id.referenceNumber else { return nil }
        return (index, reference)
    }

    private mutating func flushChunk(entityIndex: Int, count: Int, body: inout ByteWriter) throws {
        buffer.removeAll()
        buffer.byte(BinaryStoreFormat.RecordKind.objects.rawValue)
        buffer.varint(entityIndex)
        buffer.varint(count)
        buffer.raw(body.bytes)
        body.removeAll()
        try writeRecord(buffer.bytes)
        chunks += 1
        objects += count
    }

    /// Writes persistent history after the objects, in records of about a chunk's size. Only
    /// in a file whose header says it has history (version 2).
    mutating func writeHistory(_ history: [PersistentHistoryTransaction]) throws {
        guard formatVersion >= BinaryStoreFormat.historyVersion else { return }
        var body = ByteWriter(capacity: BinaryStoreFormat.chunkSize + 4096)
        var count = 0
        func flush(_ writer: inout BinaryStoreWriter) throws {
            guard count > 0 else { return }
            var record = ByteWriter(capacity: body.count + 16)
            record.byte(BinaryStoreFormat.RecordKind.history.rawValue)
            record.varint(count)
            record.raw(body.bytes)
            try writer.writeRecord(record.bytes)
            writer.historyRecords += 1
            writer.transactions += count
            body.removeAll()
            count = 0
        }
        for transaction in history {
            try body.historyTransaction(transaction, entityIndexes: entityIndexes)
            count += 1
            if body.count >= BinaryStoreFormat.chunkSize { try flush(&self) }
        }
        try flush(&self)
    }

    /// Copies records written elsewhere (another file's object records and end record) as they are.
    mutating func writeRaw(_ bytes: [UInt8]) throws {
        try write(bytes)
    }

    /// Makes the file durable, after ``writeRaw(_:)`` copied its end record.
    func sync() throws {
        guard fsync(descriptor) == 0 else { throw Self.failure(url, "cannot flush the file to disk") }
    }

    /// Writes the end record and makes the file durable.
    mutating func finish() throws {
        var record = ByteWriter()
        record.byte(BinaryStoreFormat.RecordKind.end.rawValue)
        record.varint(chunks)
        record.varint(objects)
        if formatVersion >= BinaryStoreFormat.historyVersion {
            record.varint(historyRecords)
            record.varint(transactions)
        }
        try writeRecord(record.bytes)
        guard fsync(descriptor) == 0 else { throw Self.failure(url, "cannot flush the file to disk") }
    }

    func closeFile() {
        _ = close(descriptor)
    }

    private mutating func writeRecord(_ content: [UInt8]) throws {
        let frame: [UInt8]
        do {
            frame = try content.withUnsafeBytes { try LZ4Frame.compress($0) }
        } catch {
            throw StoreError(.writeFailed, file: url, "\(error)")
        }
        var length = ByteWriter()
        length.fixed(UInt32(frame.count))
        try write(length.bytes)
        try write(frame)
    }

    private func write(_ bytes: [UInt8]) throws {
        let write = { (fd: Int32, buffer: UnsafeRawPointer, count: Int) in systemWrite(fd, buffer, count) }
        try bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                // The buffer is not empty here: written < raw.count.
                let result = write(descriptor, raw.baseAddress! + written, raw.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw Self.failure(url, "cannot write the file")
                }
                written += result
            }
        }
    }

    static func failure(_ url: URL, _ what: String) -> StoreError {
        StoreError(.writeFailed, file: url, "\(what): \(String(cString: strerror(errno)))")
    }
}

/// The C library's write(2), which the writer's own `write` method hides.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
