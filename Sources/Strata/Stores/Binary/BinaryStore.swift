#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HashTreeCollections
import Logging

/// Strata's own atomic store: one file, LZ4-compressed, crash-safe (store type ``StoreType/binary``).
///
/// The file starts with a small header and a metadata record that can be read without
/// decompressing the objects (so tools and compatibility checks are fast), then the objects
/// as LZ4 frames in chunks of about a megabyte, entity by entity, each frame checksummed.
/// `docs/FileFormat.md` describes it byte by byte.
///
/// Saving writes a new file beside the store, `fsync`s it, renames it over the store and
/// `fsync`s the folder: an interrupted save leaves the previous store whole. While a
/// coordinator has the store, the file is locked (`flock`); another writer is refused with
/// ``StoreError/Code/storeInUse``. A damaged, truncated or foreign file is a ``StoreError``
/// that says where, and the file is left as it was.
public final class BinaryStore: AtomicStore, @unchecked Sendable {
    // Sendable for the reason given on AtomicStore: `tables` and `lock` are touched only from
    // the coordinator's serial queue.

    /// The objects as last loaded or saved.
    private var tables: [String: Generation.Table] = [:]
    private var lock: StoreFileLock?
    private let logger = Logger(label: "strata.binary-store")

    public required init(
        coordinator: PersistentStoreCoordinator?, configurationName: String?, url: URL, options: [String: any Sendable]
    ) throws {
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
        lock = try StoreFileLock(url: url, exclusive: !isReadOnly)
        if !isReadOnly { removeLeftoverTemporaryFiles() }
    }

    // MARK: Metadata without the objects

    public override class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        return try reader.readHeader().metadata
    }

    /// Whether the store at `url` records persistent history: then it must be added with
    /// ``PersistentStoreOption/persistentHistoryTracking`` to be written.
    package static func recordsPersistentHistory(at url: URL) throws -> Bool {
        try metadataForPersistentStore(at: url)[BinaryStoreFormat.historyCountersKey] != nil
    }

    /// Rewrites the store's metadata record, copying the object records as they are.
    ///
    /// - Throws: ``StoreError``: `.storeInUse` when a coordinator has the store open for writing.
    public override class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {
        let lock = try StoreFileLock(url: url, exclusive: true)
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        let header = try reader.readHeader()
        var merged = metadata
        for key in [PersistentStore.storeUUIDKey, PersistentStore.storeTypeKey, nextReferencesKey, BinaryStoreFormat.historyCountersKey] {
            merged[key] = header.metadata[key]
        }
        try replaceFile(at: url, lock: lock, finish: { try $0.sync() }) { writer in
            try writer.writeHeader(BinaryStoreHeader(metadata: merged, schema: header.schema))
            try reader.forEachRemainingBlock { try writer.writeRaw($0) }
        }
    }

    // MARK: The atomic store contract

    /// Reads the file's objects (a zero-length file is a new, empty store).
    public override func load() throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        tables = try readTables(model: model)
    }

    /// Writes every object and the metadata, crash-safely.
    public override func save() throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        try write(tables, model: model)
    }

    public override func cacheNodes() -> Set<AtomicStoreCacheNode> {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return [] }
        return Set(Self.nodes(from: tables, store: identifier, model: model))
    }

    // MARK: Called by the coordinator

    override func loadTables(model: ManagedObjectModel) throws -> [String: Generation.Table] {
        tables = try readTables(model: model)
        return tables
    }

    override func commit(
        _ changes: ChangeSet, tables: [String: Generation.Table], previous: [String: Generation.Table],
        model: ManagedObjectModel
    ) throws {
        try write(tables, model: model)
        self.tables = tables
    }

    override func didRemove() {
        lock = nil
        super.didRemove()
    }

    // MARK: Reading

    private func readTables(model: ManagedObjectModel) throws -> [String: Generation.Table] {
        guard !isNewStore else { return [:] }
        var reader = try BinaryStoreReader(url: fileURL)
        defer { reader.close() }
        let header = try reader.readHeader()
        var metadata = header.metadata
        if case .dictionary(let counters)? = metadata.removeValue(forKey: Self.nextReferencesKey) {
            nextReferences = counters.compactMapValues { if case .integer(let n) = $0 { n } else { nil } }
        }
        let historyCounters = metadata.removeValue(forKey: BinaryStoreFormat.historyCountersKey)
        replaceMetadata(metadata)
        let mappings = try header.schema.entities.map { try SlotMapping(file: $0, model: model, url: fileURL) }
        var references: [String: [Int64]] = [:]
        var tables: [String: Generation.Table] = [:]
        for (mapping, (numbers, columns)) in zip(mappings, try reader.readColumns(schema: header.schema, storeIdentifier: identifier))
        where !numbers.isEmpty {
            references[mapping.entity] = numbers
            do {
                tables[mapping.entity] = try RowTable(references: numbers, columns: mapping.map(columns))
            } catch {
                throw StoreError(
                    .corruptFile, file: fileURL, "the store holds two \(mapping.entity) objects with the reference number \(error.reference)")
            }
        }
        try checkReferences(in: tables, references: references.mapValues(ReferenceMembership.init))
        raiseCounters(above: references, model: model)
        loadHistory(reader.history, counters: historyCounters)
        return tables
    }

    /// Takes the file's persistent history into the store's log. A file that has history,
    /// added without tracking it, is read-only (as in Core Data: a save would go missing from
    /// its history).
    private func loadHistory(_ transactions: [PersistentHistoryTransaction], counters: MetadataValue?) {
        guard case .dictionary(let numbers)? = counters else { return }
        guard tracksPersistentHistory else {
            let reason =
                "the store records persistent history, and was added without the option persistentHistoryTracking: it is "
                + "read-only, as in Core Data, so that no save goes missing from its history"
            forceReadOnly(because: reason)
            logger.warning("opened read-only: \(reason)", metadata: ["store": "\(fileURL.path)"])
            return
        }
        func number(_ key: String) -> Int64 { if case .integer(let n)? = numbers[key] { n } else { 0 } }
        historyLog.current = HistoryLog.State(
            transactions: transactions,
            lastTransaction: max(number("transaction"), transactions.last?.transactionNumber ?? 0),
            lastChange: max(number("change"), transactions.flatMap { $0.changes.map(\.changeID) }.max() ?? 0))
    }

    /// Makes every hierarchy's next reference number larger than any the store holds: the
    /// counters in the metadata are a lower bound (a migration that created objects writes its
    /// header before it knows how many).
    private func raiseCounters(above references: [String: [Int64]], model: ManagedObjectModel) {
        var counters = nextReferences
        for (entity, numbers) in references {
            guard let root = model.layout(for: entity)?.rootEntityName, let highest = numbers.max() else { continue }
            if highest >= counters[root, default: 1] { counters[root] = highest + 1 }
        }
        nextReferences = counters
    }

    /// Every relationship target must be an object of the store.
    private func checkReferences(in tables: [String: Generation.Table], references: [String: ReferenceMembership]) throws {
        for (entity, table) in tables {
            // Targets are mostly of one entity: the last one's set is kept at hand.
            var last: (entity: String, members: ReferenceMembership?)?
            try table.forEachTargets { reference, targets in
                try targets.forEachTarget { target in
                    if last?.entity != target.entityName { last = (target.entityName, references[target.entityName]) }
                    guard let number = target.referenceNumber, last?.members?.contains(number) == true else {
                        throw StoreError(
                            .danglingReference, file: fileURL,
                            "\(entity) p\(reference) points at \(target.entityName) p\(target.referenceNumber ?? 0), which the store does not hold")
                    }
                }
            }
        }
    }

    // MARK: Writing

    private func write(_ tables: [String: Generation.Table], model: ManagedObjectModel) throws {
        guard !isReadOnly else {
            throw StoreError(.writeFailed, file: fileURL, "the store was opened read-only")
        }
        guard let lock else { throw StoreError(.writeFailed, file: fileURL, "the store is not locked for writing") }
        let schema = StoreSchema(model: model, configuration: configurationName)
        var metadata = metadataForSaving
        // Object counts let tools (migration progress, inspect) know totals before reading.
        metadata[Self.objectCountsKey] = .dictionary(tables.mapValues { .integer(Int64($0.count)) })
        let history = tracksPersistentHistory ? historyLog.current : nil
        if let history {
            metadata[BinaryStoreFormat.historyCountersKey] = .dictionary([
                "transaction": .integer(history.lastTransaction), "change": .integer(history.lastChange),
            ])
        }
        let header = BinaryStoreHeader(metadata: metadata, schema: schema)
        try Self.replaceFile(at: fileURL, lock: lock) { writer in
            try writer.writeHeader(header)
            for entity in schema.entities {
                if let table = tables[entity.name] { try writer.writeObjects(entity: entity.name, table: table) }
            }
            if let history { try writer.writeHistory(history.transactions) }
        }
    }

    override func historyDidShrink() throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        try write(tables, model: model)
    }

    /// Writes a new file beside `url` with `body`, `fsync`s it, locks it, renames it over `url`
    /// and `fsync`s the folder. Until the rename, `url` is untouched; a failure removes the new file.
    static func replaceFile(
        at url: URL, lock: StoreFileLock, finish: (inout BinaryStoreWriter) throws -> Void = { try $0.finish() },
        body: (inout BinaryStoreWriter) throws -> Void
    ) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent)\(temporarySuffix)\(UUID().uuidString)")
        var writer = try BinaryStoreWriter(url: temporary)
        do {
            try body(&writer)
            try finish(&writer)
            guard flock(writer.descriptor, LOCK_EX | LOCK_NB) == 0 else {
                throw BinaryStoreWriter.failure(temporary, "cannot lock the new store file")
            }
            guard rename(temporary.path, url.path) == 0 else {
                throw BinaryStoreWriter.failure(url, "cannot move the new store file into place")
            }
        } catch {
            writer.closeFile()
            unlink(temporary.path)
            throw error
        }
        lock.replace(with: writer.descriptor)
        syncDirectory(of: url)
    }

    /// Makes a rename durable: `fsync` of the folder that holds the file.
    private static func syncDirectory(of url: URL) {
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        guard directory >= 0 else { return }
        fsync(directory)
        close(directory)
    }

    static let temporarySuffix = ".strata-tmp-"

    /// The metadata key of the number of objects of each entity, written with every save.
    package static let objectCountsKey = "StoreObjectCounts"

    /// Removes the new files of saves that were interrupted (we hold the lock: no save is running).
    private func removeLeftoverTemporaryFiles() {
        let directory = fileURL.deletingLastPathComponent()
        let prefix = ".\(fileURL.lastPathComponent)\(Self.temporarySuffix)"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            logger.info("removing the file of an interrupted save", metadata: ["file": "\(name)"])
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}

extension StoreType {
    /// Strata's LZ4-compressed binary atomic store (``BinaryStore``).
    public static let binary = StoreType(rawValue: "Binary")
}
