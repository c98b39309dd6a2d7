import Foundation
import StrataFileFormats
import OrderedCollections

/// Reads a binary store file: its header and metadata record alone (for the tools and the
/// compatibility checks), or all of it, chunk by chunk, in memory bounded by the chunk size.
/// Every problem is a ``StoreError`` that says where it is.
struct BinaryStoreReader {
    let url: URL
    private let handle: FileHandle
    private var offset = 0
    /// The file's format version, once its header is read.
    private(set) var formatVersion = BinaryStoreFormat.version
    /// The persistent history the file holds (format version 2), once its records are read.
    private(set) var history: [PersistentHistoryTransaction] = []

    init(url: URL) throws {
        self.url = url
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw StoreError(.unreadable, file: url, "cannot open the store: \(error.localizedDescription)")
        }
    }

    func close() {
        try? handle.close()
    }

    /// Reads the fixed header and the metadata record.
    mutating func readHeader() throws -> BinaryStoreHeader {
        let start: [UInt8]
        do {
            start = [UInt8](try handle.read(upToCount: BinaryStoreFormat.magic.count) ?? Data())
        } catch {
            throw StoreError(.unreadable, file: url, offset: 0, "cannot read the store: \(error.localizedDescription)")
        }
        offset = start.count
        // A short file that starts like a store is a truncated store; anything else is foreign.
        guard !start.isEmpty, start == Array(BinaryStoreFormat.magic.prefix(start.count)) else {
            throw StoreError(.notAStore, file: url, offset: 0, "this is not a Strata binary store (its first bytes are wrong)")
        }
        guard start.count == BinaryStoreFormat.magic.count else {
            throw StoreError(.truncated, file: url, offset: start.count, "the file ends inside the file header (after \(start.count) bytes)")
        }
        let fixed = start + (try read(BinaryStoreFormat.headerSize - start.count, what: "the file header"))
        var reader = ByteReader(fixed)
        _ = try? reader.rawBytes(8)
        let version = (try? reader.fixed(UInt16.self)) ?? 0
        let flags = (try? reader.fixed(UInt16.self)) ?? 0
        let reserved = (try? reader.fixed(UInt32.self)) ?? 0
        guard version <= BinaryStoreFormat.version else {
            throw StoreError(
                .newerFormat, file: url, offset: 8,
                "the store is in format version \(version); this Strata reads versions up to \(BinaryStoreFormat.version)")
        }
        guard version >= 1, flags == 0, reserved == 0 else {
            throw StoreError(.corruptFile, file: url, offset: 8, "the file header is damaged (version \(version), flags \(flags))")
        }
        formatVersion = version
        var record = try readRecord(expecting: .metadata, chunk: nil)
        do {
            let metadata = try record.metadataValue()
            guard case .dictionary(let dictionary) = metadata else { throw record.fail("the metadata is not a dictionary") }
            let schema = try record.schema()
            guard record.isAtEnd else { throw record.fail("the metadata record has trailing bytes") }
            return BinaryStoreHeader(metadata: dictionary, schema: schema)
        } catch let failure as ByteReader.Failure {
            throw StoreError(.corruptFile, file: url, offset: recordStart, "the metadata record is damaged: \(failure.message)")
        }
    }

    /// Reads every object chunk after the header, calling `visit` with the entity (by schema
    /// index) and its rows, then checks the end record. The first damaged chunk throws.
    mutating func readObjects(
        schema: StoreSchema, storeIdentifier: String, visit: (Int, [(Int64, Row)]) throws -> Void
    ) throws {
        try readChunks(schema: schema, storeIdentifier: storeIdentifier) { _, _, _, result in
            let (entityIndex, rows) = try result.get()
            try visit(entityIndex, rows)
        }
    }

    /// Reads every object after the header into columns, one ``RowColumns`` per entity of the
    /// schema (in its order and its slots), and the reference numbers beside them; then checks
    /// the end record. Makes no ``Row``: what opening a store calls. The first damaged chunk throws.
    mutating func readColumns(schema: StoreSchema, storeIdentifier: String) throws -> [([Int64], RowColumns)] {
        var references = [[Int64]](repeating: [], count: schema.entities.count)
        var columns = schema.entities.map { RowColumns(attributeCount: $0.attributes.count, relationshipCount: $0.relationships.count) }
        try readChunks(schema: schema, storeIdentifier: storeIdentifier) { record, entityIndex, count, spaces in
            let entity = schema.entities[entityIndex]
            for _ in 0..<count {
                try record.appendRow(entity, to: &columns[entityIndex], references: &references[entityIndex], spaces: spaces)
            }
        } visit: { _, _, _, result in
            _ = try result.get()
        }
        return Array(zip(references, columns))
    }

    /// Reads every record after the metadata, handing `visit` each chunk's position, size and
    /// rows, or why it is damaged; reading goes on with the next record (the tools report every
    /// damaged chunk). Throws when the file ends early or its end record is missing or wrong.
    mutating func readChunks(
        schema: StoreSchema, storeIdentifier: String,
        visit: (Int, Int, Int, Result<(Int, [(Int64, Row)]), StoreError>) throws -> Void
    ) throws {
        try readChunks(schema: schema, storeIdentifier: storeIdentifier) { record, entityIndex, count, spaces in
            var rows: [(Int64, Row)] = []
            rows.reserveCapacity(count)
            for _ in 0..<count { rows.append(try record.row(schema.entities[entityIndex], schema: schema, spaces: spaces)) }
            return rows
        } visit: { chunk, offset, size, result in
            try visit(chunk, offset, size, result)
        }
    }

    /// The loop under both: frames, decompresses and checks each record, and lets `decode` read
    /// a chunk's `count` objects of one entity (by schema index) from it.
    private mutating func readChunks<Decoded>(
        schema: StoreSchema, storeIdentifier: String,
        decode: (inout ByteReader, _ entityIndex: Int, _ count: Int, _ spaces: [ObjectIDSpace]) throws -> Decoded,
        visit: (Int, Int, Int, Result<(Int, Decoded), StoreError>) throws -> Void
    ) throws {
        var chunks = 0
        var objects = 0
        var historyRecords = 0
        let spaces = schema.entities.map { ObjectIDSpace.make(store: storeIdentifier, entityName: $0.name) }
        while true {
            let start = offset
            let lengthBytes = try read(4, what: "a record length", chunk: chunks)
            var lengthReader = ByteReader(lengthBytes)
            let length = Int((try? lengthReader.fixed(UInt32.self)) ?? 0)
            guard length > 0, length <= BinaryStoreFormat.maximumRecordSize else {
                throw StoreError(.corruptFile, file: url, offset: start, chunk: chunks, "a record claims \(length) bytes")
            }
            let frame = try read(length, what: "a record", chunk: chunks)
            let decoded: Result<(Int, Decoded), StoreError>
            do {
                let content = try frame.withUnsafeBytes { try LZ4Frame.decompress($0, maximumSize: BinaryStoreFormat.maximumRecordSize) }
                var record = ByteReader(content)
                let kind = try record.byte()
                if kind == BinaryStoreFormat.RecordKind.end.rawValue {
                    let recordedChunks = try record.varint()
                    let recordedObjects = try record.varint()
                    guard recordedChunks == chunks, recordedObjects == objects else {
                        throw StoreError(
                            .corruptFile, file: url, offset: start,
                            "the end record counts \(recordedChunks) chunks and \(recordedObjects) objects, but the file holds \(chunks) and \(objects)")
                    }
                    if formatVersion >= BinaryStoreFormat.historyVersion {
                        let recordedHistory = try record.varint()
                        let recordedTransactions = try record.varint()
                        guard recordedHistory == historyRecords, recordedTransactions == history.count else {
                            throw StoreError(
                                .corruptFile, file: url, offset: start,
                                "the end record counts \(recordedHistory) history records of \(recordedTransactions) transactions, "
                                    + "but the file holds \(historyRecords) of \(history.count)")
                        }
                    }
                    guard record.isAtEnd else { throw StoreError(.corruptFile, file: url, offset: start, "the end record has trailing bytes") }
                    break
                }
                if kind == BinaryStoreFormat.RecordKind.history.rawValue, formatVersion >= BinaryStoreFormat.historyVersion {
                    // History is not a chunk of objects: read whole here, a damaged record throws.
                    do {
                        let count = try record.count(minimumSize: 13)
                        for _ in 0..<count { history.append(try record.historyTransaction(schema: schema, spaces: spaces, store: storeIdentifier)) }
                        guard record.isAtEnd else { throw record.fail("the history record has trailing bytes") }
                    } catch let failure as ByteReader.Failure {
                        throw StoreError(
                            .corruptFile, file: url, offset: start, "a history record is damaged at its byte \(failure.offset): \(failure.message)")
                    }
                    historyRecords += 1
                    continue
                }
                guard kind == BinaryStoreFormat.RecordKind.objects.rawValue else { throw record.fail("a record of unknown kind \(kind)") }
                let entityIndex = try record.index(below: schema.entities.count, "entity number")
                let entity = schema.entities[entityIndex]
                let count = try record.count(minimumSize: 2 + entity.attributes.count + entity.relationships.count)
                let objectsOfChunk = try decode(&record, entityIndex, count, spaces)
                guard record.isAtEnd else { throw record.fail("the chunk has trailing bytes") }
                decoded = .success((entityIndex, objectsOfChunk))
                objects += count
            } catch let error as StoreError {
                throw error
            } catch let failure as LZ4Frame.Failure {
                decoded = .failure(StoreError(.corruptFile, file: url, offset: start, chunk: chunks, failure.description))
            } catch let failure as ByteReader.Failure {
                decoded = .failure(
                    StoreError(.corruptFile, file: url, offset: start, chunk: chunks, "the chunk is damaged at its byte \(failure.offset): \(failure.message)"))
            }
            try visit(chunks, start, 4 + length, decoded)
            chunks += 1
        }
        guard try handle.read(upToCount: 1)?.isEmpty ?? true else {
            throw StoreError(.corruptFile, file: url, offset: offset, "bytes follow the end record")
        }
    }

    /// Hands what follows the metadata record to `body`, a megabyte at a time, unread.
    mutating func forEachRemainingBlock(_ body: ([UInt8]) throws -> Void) throws {
        while true {
            let data: Data
            do {
                data = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw StoreError(.unreadable, file: url, offset: offset, "cannot read the store: \(error.localizedDescription)")
            }
            guard !data.isEmpty else { return }
            offset += data.count
            try body([UInt8](data))
        }
    }

    /// Where the record being read starts.
    private var recordStart = 0

    /// Reads one length-prefixed LZ4 record and returns its content.
    private mutating func readRecord(expecting kind: BinaryStoreFormat.RecordKind?, chunk: Int?) throws -> ByteReader {
        recordStart = offset
        let lengthBytes = try read(4, what: "a record length", chunk: chunk)
        var lengthReader = ByteReader(lengthBytes)
        let length = Int((try? lengthReader.fixed(UInt32.self)) ?? 0)
        guard length > 0, length <= BinaryStoreFormat.maximumRecordSize else {
            throw StoreError(.corruptFile, file: url, offset: recordStart, chunk: chunk, "a record claims \(length) bytes")
        }
        let frame = try read(length, what: "a record", chunk: chunk)
        let content: [UInt8]
        do {
            content = try frame.withUnsafeBytes { try LZ4Frame.decompress($0, maximumSize: BinaryStoreFormat.maximumRecordSize) }
        } catch let failure as LZ4Frame.Failure {
            throw StoreError(.corruptFile, file: url, offset: recordStart, chunk: chunk, failure.description)
        }
        var reader = ByteReader(content)
        if let kind {
            guard (try? reader.byte()) == kind.rawValue else {
                throw StoreError(.corruptFile, file: url, offset: recordStart, chunk: chunk, "expected the \(kind) record here")
            }
        }
        return reader
    }

    private mutating func read(_ count: Int, what: String, chunk: Int? = nil) throws -> [UInt8] {
        let data: Data
        do {
            data = try handle.read(upToCount: count) ?? Data()
        } catch {
            throw StoreError(.unreadable, file: url, offset: offset, "cannot read the store: \(error.localizedDescription)")
        }
        guard data.count == count else {
            throw StoreError(
                .truncated, file: url, offset: offset + data.count, chunk: chunk,
                "the file ends inside \(what) (after \(offset + data.count) bytes)")
        }
        offset += count
        return [UInt8](data)
    }
}

extension ByteReader {
    /// One object of `entity`: its reference, version, attribute values and relationship targets.
    mutating func row(_ entity: StoreSchema.Entity, schema: StoreSchema, spaces: [ObjectIDSpace]) throws -> (Int64, Row) {
        let reference = try signed()
        guard reference > 0 else { throw fail("an object has the reference number \(reference)") }
        let version = try signed()
        var attributes: [AttributeValue?] = []
        attributes.reserveCapacity(entity.attributes.count)
        for attribute in entity.attributes {
            let value = try attributeValue()
            if let value, value.type != attribute.type.valueType {
                throw fail("'\(entity.name).\(attribute.name)' holds a \(value.type.rawValue) value")
            }
            attributes.append(value)
        }
        var relationships: [RelationshipTargets] = []
        relationships.reserveCapacity(entity.relationships.count)
        for relationship in entity.relationships {
            relationships.append(try targets(isToMany: relationship.isToMany, spaces: spaces))
        }
        return (reference, Row(attributes: attributes, relationships: relationships, version: version))
    }

    /// One object of `entity`, appended to `columns` (in the file's slots) and its reference
    /// number to `references`: ``row(_:schema:spaces:)`` without the row, and strings copied
    /// into their column's bytes without a `String` made.
    mutating func appendRow(
        _ entity: StoreSchema.Entity, to columns: inout RowColumns, references: inout [Int64], spaces: [ObjectIDSpace]
    ) throws {
        let reference = try signed()
        guard reference > 0 else { throw fail("an object has the reference number \(reference)") }
        let version = try signed()
        try columns.appendRow(version: version) { attributes, relationships in
            for (slot, attribute) in entity.attributes.enumerated() {
                if attribute.type.valueType == .string, skip(ifNext: AttributeType.string.binaryTag) {
                    guard attributes[slot].appendString(utf8: try rawBytes(try count())) else { throw fail("a string is not valid UTF-8") }
                    continue
                }
                let value = try attributeValue()
                if let value, value.type != attribute.type.valueType {
                    throw fail("'\(entity.name).\(attribute.name)' holds a \(value.type.rawValue) value")
                }
                attributes[slot].append(value)
            }
            for (slot, relationship) in entity.relationships.enumerated() {
                relationships[slot].append(try targets(isToMany: relationship.isToMany, spaces: spaces))
            }
        }
        references.append(reference)
    }

    private mutating func targets(isToMany: Bool, spaces: [ObjectIDSpace]) throws -> RelationshipTargets {
        if isToMany {
            let count = try count(minimumSize: 2)
            var targets: [ManagedObjectID] = []
            targets.reserveCapacity(count)
            for _ in 0..<count { targets.append(try target(spaces: spaces)) }
            return .toMany(.init(targets))
        }
        let present = try byte()
        guard present <= 1 else { throw fail("a to-one relationship has the marker \(present)") }
        return .toOne(present == 1 ? try target(spaces: spaces) : nil)
    }

    /// A varint that indexes a table of `count` entries.
    mutating func index(below count: Int, _ what: String) throws -> Int {
        let value = try varint()
        guard value < UInt64(count) else { throw fail("\(what) \(value) is out of range") }
        return Int(value)
    }

    /// - Parameter spaces: the ID space of each of the file's entities in the store, by number.
    private mutating func target(spaces: [ObjectIDSpace]) throws -> ManagedObjectID {
        let entityIndex = try index(below: spaces.count, "relationship target's entity number")
        let reference = try signed()
        guard reference > 0 else { throw fail("a relationship points at reference number \(reference)") }
        return ManagedObjectID(space: spaces[entityIndex], number: reference)
    }
}
