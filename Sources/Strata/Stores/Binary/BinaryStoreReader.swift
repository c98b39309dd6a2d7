import Foundation
import OrderedCollections

/// Reads a binary store file: its header and metadata record alone (for the tools and the
/// compatibility checks), or all of it, chunk by chunk, in memory bounded by the chunk size.
/// Every problem is a ``StoreError`` that says where it is.
struct BinaryStoreReader {
    let url: URL
    private let handle: FileHandle
    private var offset = 0

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

    /// Reads every record after the metadata, handing `visit` each chunk's position, size and
    /// rows, or why it is damaged; reading goes on with the next record (the tools report every
    /// damaged chunk). Throws when the file ends early or its end record is missing or wrong.
    mutating func readChunks(
        schema: StoreSchema, storeIdentifier: String,
        visit: (Int, Int, Int, Result<(Int, [(Int64, Row)]), StoreError>) throws -> Void
    ) throws {
        var chunks = 0
        var objects = 0
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
            let decoded: Result<(Int, [(Int64, Row)]), StoreError>
            do {
                let content = try frame.withUnsafeBytes { try LZ4Frame.decompress($0, maximumSize: BinaryStoreFormat.maximumRecordSize) }
                var record = ByteReader(content)
                if (try? record.byte()) == BinaryStoreFormat.RecordKind.end.rawValue {
                    let recordedChunks = try record.varint()
                    let recordedObjects = try record.varint()
                    guard recordedChunks == chunks, recordedObjects == objects, record.isAtEnd else {
                        throw StoreError(
                            .corruptFile, file: url, offset: start,
                            "the end record counts \(recordedChunks) chunks and \(recordedObjects) objects, but the file holds \(chunks) and \(objects)")
                    }
                    break
                }
                let entityIndex = try record.index(below: schema.entities.count, "entity number")
                let entity = schema.entities[entityIndex]
                let count = try record.count(minimumSize: 2 + entity.attributes.count + entity.relationships.count)
                var rows: [(Int64, Row)] = []
                for _ in 0..<count { rows.append(try record.row(entity, schema: schema, spaces: spaces)) }
                guard record.isAtEnd else { throw record.fail("the chunk has trailing bytes") }
                decoded = .success((entityIndex, rows))
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
            if relationship.isToMany {
                let count = try count(minimumSize: 2)
                var targets: [ManagedObjectID] = []
                targets.reserveCapacity(count)
                for _ in 0..<count { targets.append(try target(spaces: spaces)) }
                relationships.append(.toMany(.init(targets)))
            } else {
                let present = try byte()
                guard present <= 1 else { throw fail("a to-one relationship has the marker \(present)") }
                relationships.append(.toOne(present == 1 ? try target(spaces: spaces) : nil))
            }
        }
        return (reference, Row(attributes: attributes, relationships: relationships, version: version))
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
