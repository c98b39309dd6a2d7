import Foundation
import Logging

/// Core Data's SQLite store, in Core Data's own file format (store type ``StoreType/sqlite``): a
/// program on Linux opens the `.sqlite` file an iOS or macOS app wrote, and the app opens what
/// Strata writes.
///
/// The file has exactly the tables, columns, indexes and metadata Core Data's store has
/// (`docs/SQLiteStore.md`); an object's URI is `x-coredata://<store UUID>/<Entity>/p<Z_PK>`, as
/// Core Data gives it. The coordinator never holds the store's rows: each generation reads
/// through a SQLite read transaction pinned when it began (WAL mode lets writers go on), and
/// faults and fetches read rows as they are asked for. A save is one write transaction with
/// optimistic locking in its statements (`Z_OPT`): a row another save changed meanwhile makes
/// it fail with a conflict, as on every store. Another process may write the same file; its
/// commits show in the next generation.
///
/// A context that keeps one generation for a long time keeps its read transaction: writers are
/// not blocked, but SQLite cannot reuse the write-ahead log's space until it ends.
public final class SQLiteStore: IncrementalStore, RowReadingStore, HistoryKeepingStore, LifecycleAwareStore, BatchExecutingStore,
    @unchecked Sendable
{
    // Sendable by proof: `writer` and `state` are touched only on the coordinator's serial
    // queue (the add, save and ID calls of the IncrementalStore contract); reads from contexts'
    // threads go through a snapshot (its own lock), `watcher` and `referenceSelects` (locks)
    // and `spaceCache` (Sendable); `mapping`, `fileURL` and `pool` are immutable or Sendable;
    // `generationSnapshots` and `snapshotIdleTime` are locks, `logFramesBeforeRestart` immutable.

    /// The connection saves write through; `nil` for a store added read-only, and once removed.
    private(set) var writer: SQLiteConnection?
    let pool: SQLiteConnectionPool
    /// A connection that reads `PRAGMA data_version`, and the value it had when the last
    /// snapshot began: when it moves, another connection has committed since.
    private let watcher: ThreadLocked<(connection: SQLiteConnection?, seen: Int64)>
    let mapping: CoreDataTableMapping
    /// What persistent history records of each entity, in Core Data's tables.
    let historySchema: CoreDataHistorySchema
    let fileURL: URL
    /// Each entity's ID space by entity number, for the store's UUID they were made with.
    let spaceCache: ObjectIDSpaceCache
    /// The statements that read rows by reference, by entity and number of references.
    let referenceSelects = ThreadLocked<[ReferenceSelectKey: String]>([:])
    /// The log's length, in frames, past which a save first restarts it: the writer's
    /// `wal_autocheckpoint` (0 when the store's pragmas turn it off).
    let logFramesBeforeRestart: Int
    /// The snapshots this store began for generations, while they last.
    let generationSnapshots = ThreadLocked<[WeakReadSnapshot]>([])
    /// How many seconds a generation's snapshot keeps its read transaction once no context
    /// holds the generation (``SQLiteReadSnapshot``): long enough that reads following one
    /// another share it.
    let snapshotIdleTime = ThreadLocked(1.0)

    struct State {
        /// The file had no tables when the store was added: `storeWasAdded()` creates them.
        var isNew = false
        /// The metadata as last read from or written to `Z_METADATA`.
        var stored: [String: MetadataValue] = [:]
        /// Per root entity number, reference numbers taken from `Z_PRIMARYKEY` not handed out yet.
        var reserved: [Int: ClosedRange<Int64>] = [:]
        /// What notices other processes' commits, for a store that announces them.
        var changeWatcher: FileChangeWatcher?
    }
    var state = State()

    /// How long a statement waits for another connection's lock (Core Data's
    /// `NSPersistentStoreTimeoutOption`, in seconds): ``PersistentStoreOption/timeout``.
    static let defaultTimeout: Duration = .seconds(10)

    public required init(
        coordinator: PersistentStoreCoordinator, configurationName: String?, url: URL?, options: [String: any Sendable]
    ) throws {
        guard let url else { throw PersistenceError(.missingStoreURL, "a SQLite store needs a file URL") }
        fileURL = url
        let timeout = (options[PersistentStoreOption.timeout] as? Double).map { Duration.milliseconds(Int64($0 * 1000)) } ?? Self.defaultTimeout
        let readOnly = (options[PersistentStoreOption.readOnly] as? Bool) ?? false
        let unsupported = CoreDataTableMapping(model: coordinator.managedObjectModel).unsupported
        guard unsupported.isEmpty else {
            // Refused before any file is opened, so that none is created.
            throw StoreError(
                .unsupportedModel, file: url,
                "the SQLite store cannot store to-many relationships without an inverse yet (Core Data's hidden column for them "
                    + "is not documented): \(unsupported.joined(separator: ", ")). Give them an inverse, or use the binary store")
        }
        // Checked before any file is opened, as the model is.
        let pragmas = try SQLitePragmas(option: options[PersistentStoreOption.sqlitePragmas])
        pool = SQLiteConnectionPool(url: url, busyTimeout: timeout, pragmas: pragmas)
        let existingTables: [String: [String]]
        var triggerNames: [String] = []
        do {
            if readOnly, !FileManager.default.fileExists(atPath: url.path) {
                throw StoreError(.unreadable, file: url, "there is no store to open read-only")
            }
            try Self.checkHeader(of: url)
            let writer = readOnly ? nil : try SQLiteConnection(url: url, readOnly: false, create: true, busyTimeout: timeout)
            let watcher = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: timeout)
            if let writer { try pragmas.apply(to: writer) }
            try pragmas.apply(to: watcher)
            logFramesBeforeRestart = try writer?.automaticCheckpointPages() ?? 0
            writer?.countLogFrames()
            self.writer = writer
            self.watcher = ThreadLocked((watcher, 0))
            // A store that exists is read where its file keeps each join table.
            existingTables = try (writer ?? watcher).tableColumns()
            try (writer ?? watcher).statement("SELECT name FROM sqlite_master WHERE type = 'trigger'").forEachRow { row in
                if case .text(let name) = row.value(0) { triggerNames.append(name) }
            }
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
        // Derived attributes its triggers keep (a new store gets Core Data's count triggers).
        let model = coordinator.managedObjectModel
        let kept = existingTables.isEmpty
            ? Set(CoreDataSQLiteSchema(model: model).triggers.map(\.attribute))
            : CoreDataSQLiteSchema.derivedAttributes(keptByTriggersNamed: triggerNames, in: model)
        mapping = CoreDataTableMapping(model: model, existingTables: existingTables, derivedByTriggers: kept)
        spaceCache = ObjectIDSpaceCache(entityNames: mapping.entityNames)
        historySchema = CoreDataHistorySchema(model: coordinator.managedObjectModel, mapping: mapping)
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
    }

    // MARK: Metadata

    /// Reads `Z_METADATA`; a file with no tables is a new store, keeping the UUID it was given.
    ///
    /// - Throws: ``StoreError``: `.notAStore` for a file that is not SQLite, or SQLite without
    ///   Core Data's tables; `.corruptFile` for metadata that cannot be read.
    public override func loadMetadata() throws {
        try Self.checkHeader(of: fileURL)
        let metadata = try sqlite { try Self.readMetadata(from: writer ?? pool.take(), file: fileURL) }
        guard let metadata else {
            state.isNew = true
            return
        }
        replaceMetadata(metadata)
        state.stored = self.metadata
    }

    public override class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.unreadable, file: url, "there is no store at this path")
        }
        try checkHeader(of: url)
        do {
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: defaultTimeout)
            guard let metadata = try readMetadata(from: connection, file: url) else {
                throw StoreError(.notAStore, file: url, "the SQLite database is empty: it is not a Core Data store yet")
            }
            return metadata
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
    }

    /// Empties the store file in place, as Core Data's SQLite store does
    /// (`emptyStoreFile(at:options:)`, in `SQLiteStore+Destroying.swift`).
    public override class func destroyPersistentStore(at url: URL, options: [String: any Sendable]) throws {
        try emptyStoreFile(at: url, options: options)
    }

    /// Core Data's replace, for a SQLite store
    /// (``PersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``):
    /// the source's pages are copied into the destination file with SQLite's online backup, in
    /// one transaction of the destination, as Core Data copies a SQLite store; the source's
    /// externally stored values are copied into the destination's folder first, and the
    /// destination's own deleted once the copy is in. A destination file that is not a SQLite
    /// database is refused, and left as it is.
    public override class func replacePersistentStore(
        at destination: URL, destinationOptions: [String: any Sendable], withPersistentStoreFrom source: URL,
        sourceOptions: [String: any Sendable]
    ) throws {
        try replaceStoreFile(at: destination, destinationOptions: destinationOptions, withStoreFrom: source)
    }

    public override class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {
        var merged = metadata
        let current = try metadataForPersistentStore(at: url)
        merged[storeUUIDKey] = current[storeUUIDKey]
        do {
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: defaultTimeout)
            try connection.writeTransaction { try writeMetadata(merged, to: connection, file: url) }
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
    }

    /// The model the store at `url` carries: the one Core Data cached in it (its `Z_MODELCACHE`),
    /// or for a store Strata wrote, the one in its metadata. What lets a program open a store
    /// without being handed its model, also when the app no longer has the version that wrote it.
    ///
    /// - Throws: ``StoreError`` when the file is not a Core Data store or carries no model (stores
    ///   from Core Data before about iOS 7 have none: give the model then);
    ///   ``ModelFileError`` with code `.malformedModelCache` when the cache cannot be read.
    public static func cachedModel(ofStoreAt url: URL) throws -> ManagedObjectModel {
        let metadata = try metadataForPersistentStore(at: url)
        let content: SQLValue?
        do {
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: defaultTimeout)
            let hasTable = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'")
            content = hasTable == .integer(1) ? try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1") : nil
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
        guard case .blob(let data)? = content, !data.isEmpty else {
            if let model = try ManagedObjectModel(cachedInStoreMetadata: metadata) { return model }
            throw StoreError(
                .noModel, file: url,
                "the store carries no model (Z_MODELCACHE is empty or missing): open it with the model that wrote it")
        }
        return try CoreDataModelCache.model(fromDeflated: data)
    }

    /// Refuses a file that is neither empty (a new store) nor a whole SQLite header: SQLite itself
    /// would take a file cut short in its first page for an empty database, and the store would
    /// then write a new schema over what is left of it.
    static func checkHeader(of url: URL) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return }  // SQLite says why
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        guard !header.isEmpty else { return }
        guard header.count == 100, header.prefix(16) == Data("SQLite format 3\u{0}".utf8) else {
            throw StoreError(
                .notAStore, file: url, offset: 0,
                header.count < 100 && header.prefix(min(header.count, 16)) == Data("SQLite format 3\u{0}".utf8).prefix(min(header.count, 16))
                    ? "the file is cut short: \(header.count) bytes, less than a SQLite database's header"
                    : "the file is not a SQLite database (its first bytes are not SQLite's)")
        }
        // A database file is whole pages, as many as its header says when that count is valid
        // (its "version valid for" matches the change counter): SQLite reads a page cut short
        // as zeros, so a file cut anywhere past its first page must be caught here. Not while a
        // write-ahead log is beside it: a checkpoint that was interrupted can leave the header
        // ahead of the file, and SQLite completes it from the log.
        let log = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        guard log == 0 else { return }
        func bigEndian(_ range: Range<Int>) -> Int { header[range].reduce(0) { $0 << 8 | Int($1) } }
        let pageSize = bigEndian(16..<18) == 1 ? 65_536 : bigEndian(16..<18)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let pages = bigEndian(28..<32)
        let headerCountIsValid = pages > 0 && bigEndian(92..<96) == bigEndian(24..<28)
        if pageSize >= 512, size % pageSize != 0 || (headerCountIsValid && pages * pageSize > size) {
            throw StoreError(
                .truncated, file: url, offset: size,
                "the file is cut short: \(size) bytes, not the \(headerCountIsValid ? pages : size / pageSize + 1) whole pages of "
                    + "\(pageSize) bytes its header promises; restore it from a backup")
        }
    }

    /// The store's metadata, or `nil` for a database with no tables at all (a new store).
    static func readMetadata(from connection: SQLiteConnection, file: URL) throws -> [String: MetadataValue]? {
        guard case .integer(let tables)? = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'") else {
            return nil
        }
        if tables == 0 { return nil }
        let coreDataTables = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('Z_METADATA', 'Z_PRIMARYKEY')")
        guard coreDataTables == .integer(2) else {
            throw StoreError(
                .notAStore, file: file,
                "the file is a SQLite database, but not a Core Data store (it has no Z_METADATA and Z_PRIMARYKEY tables)")
        }
        var row: (uuid: SQLValue, plist: SQLValue)?
        try connection.statement("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1").forEachRow { statement in
            row = (statement.value(0), statement.value(1))
        }
        guard let row, case .text(let uuid) = row.uuid, case .blob(let plist) = row.plist else {
            throw StoreError(.corruptFile, file: file, "the store's Z_METADATA row is missing or not a UUID and a property list")
        }
        do {
            return try CoreDataSQLiteMetadata.metadata(uuid: uuid, plist: plist)
        } catch let failure as CoreDataSQLiteMetadata.Failure {
            throw StoreError(.corruptFile, file: file, failure.description)
        }
    }

    static func writeMetadata(_ metadata: [String: MetadataValue], to connection: SQLiteConnection, file: URL) throws {
        let row: (uuid: String, plist: Data)
        do {
            row = try CoreDataSQLiteMetadata.row(from: metadata)
        } catch let failure as CoreDataSQLiteMetadata.Failure {
            throw StoreError(.writeFailed, file: file, failure.description)
        }
        try connection.statement("INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
            .run([.text(row.uuid), .blob(row.plist)])
    }

    /// Fills `Z_MODELCACHE` with the model as Core Data caches it, so that Core Data, handed the
    /// store without the model that wrote it (a migration whose source version the app no longer
    /// ships), finds it there. A model that cannot be archived leaves the cache empty, as Core
    /// Data's oldest stores have it, and says so in the log: the store is whole without it.
    static func writeModelCache(of model: ManagedObjectModel, to connection: SQLiteConnection) throws {
        try connection.execute("DELETE FROM Z_MODELCACHE")
        do {
            try connection.statement("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)").run([.blob(try model.coreDataModelCache())])
        } catch let error as SQLiteError {
            throw error
        } catch {
            Logger(label: "strata.sqlite-store").warning("the store's Z_MODELCACHE is left empty", metadata: ["reason": "\(error)"])
        }
    }

    /// Creates a new store's tables, or writes metadata the coordinator brought up to date.
    package func storeWasAdded() throws {
        guard let writer else {
            watchForOutsideChanges()
            return
        }
        try sqlite {
            if state.isNew {
                // Core Data's settings: WAL, and incremental auto-vacuum (set before the first table).
                try writer.execute("PRAGMA journal_mode = WAL")
                metadata[CoreDataSQLiteSchema.autoVacuumKey] = .string("2")
                // Under the write lock, and only if no other process created the store since
                // this one found the file empty: then its metadata is read instead, and checked.
                let created: [String: MetadataValue]? = try writer.writeTransaction {
                    if let existing = try Self.readMetadata(from: writer, file: fileURL) { return existing }
                    try writer.execute("PRAGMA auto_vacuum = 2")
                    for statement in mapping.schema.createStatements { try writer.execute(statement) }
                    let insert = try writer.statement("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
                    for entity in mapping.schema.entities {
                        try insert.run([.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber))])
                    }
                    try Self.writeModelCache(of: managedObjectModel, to: writer)
                    try Self.writeMetadata(metadata, to: writer, file: fileURL)
                    return nil
                }
                state.isNew = false
                if let created {
                    guard managedObjectModel.isConfiguration(configurationName, compatibleWithStoreMetadata: created) else {
                        throw PersistenceError(
                            .incompatibleStore, "another process created the store \(fileURL.path) meanwhile, with another model version")
                    }
                    replaceMetadata(created)
                }
                state.stored = metadata
            } else {
                try writer.execute("PRAGMA journal_mode = WAL")
                try writeMetadataIfChanged()
            }
            // After the tables: a new store has the count triggers of its derived attributes too.
            try registerTriggerFunctions(on: writer)
            try prepareHistory(writer: writer)
            // Core Data's NSSQLiteManualVacuumOption and NSSQLiteAnalyzeOption: at each add.
            if options[PersistentStoreOption.sqliteManualVacuum] as? Bool == true { try writer.execute("VACUUM") }
            if options[PersistentStoreOption.sqliteAnalyze] as? Bool == true { try writer.execute("ANALYZE") }
        }
        watchForOutsideChanges()
    }

    /// Starts the watch on the store's files when it announces remote changes: a write to them
    /// makes the coordinator look at `PRAGMA data_version`, on its own queue.
    private func watchForOutsideChanges() {
        guard postsRemoteChanges, state.changeWatcher == nil else { return }
        let identifier = identifier
        let name = fileURL.lastPathComponent
        state.changeWatcher = FileChangeWatcher(
            directory: fileURL.deletingLastPathComponent(), names: [name, name + "-wal"]
        ) { [weak coordinator = persistentStoreCoordinator] in
            coordinator?.noticeOutsideChangesSynchronously(of: identifier)
        }
    }

    /// Core Data keeps derived attributes with triggers (`Z_DA_…`) that update the derived column
    /// in SQL, then call a function of Core Data's (`NSCoreDataDATrigger…`) to tell it the new
    /// value. The update is all a store needs: the functions are registered as doing nothing, so
    /// that saves into such a store run its triggers. A derived column a trigger keeps is left to
    /// it (saves do not write it; see ``CoreDataTableMapping``); a new store gets Core Data's
    /// count triggers too (`CoreDataSQLiteSchema+Derived.swift`).
    private func registerTriggerFunctions(on connection: SQLiteConnection) throws {
        var names: Set<String> = []
        try connection.statement("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL").forEachRow { row in
            guard case .text(let sql) = row.value(0) else { return }
            for match in sql.matches(of: /(NSCoreData[A-Za-z]+)\s*\(/) { names.insert(String(match.output.1)) }
        }
        for name in names.sorted() { try connection.registerNoOpFunction(named: name) }
    }

    /// Writes the metadata when it differs from what the file has; inside a save's transaction
    /// or on its own.
    func writeMetadataIfChanged() throws {
        guard let writer, metadata != state.stored else { return }
        let metadata = self.metadata
        if writer.isAutocommit {
            try writer.writeTransaction { try Self.writeMetadata(metadata, to: writer, file: fileURL) }
        } else {
            try Self.writeMetadata(metadata, to: writer, file: fileURL)
        }
        state.stored = metadata
    }

    /// Closes the writer and the idle connections: the file is the store's no longer. Contexts
    /// still pinned to a generation of the store keep their snapshots until they move on.
    package func storeWasRemoved() {
        state.changeWatcher?.stop()
        state.changeWatcher = nil
        writer = nil
        watcher.withLock { $0.connection = nil }
        pool.drain()
    }

    // MARK: Snapshots

    public override func newSnapshot() throws -> any IncrementalStoreSnapshot {
        try sqlite {
            // The version is read before the snapshot begins: a commit between the two shows
            // in the snapshot and moves the version again, so it is never missed.
            let version = try watcher.withLock { watcher in
                watcher.seen = try watcher.connection?.dataVersion() ?? watcher.seen
                return watcher.seen
            }
            let snapshot = try SQLiteReadSnapshot(pool: pool, idleTime: snapshotIdleTime) { [weak self] in
                try self?.dataVersionNow() == version
            }
            generationSnapshots.withLock { snapshots in
                snapshots.removeAll { $0.snapshot == nil }
                snapshots.append(WeakReadSnapshot(snapshot: snapshot))
            }
            return snapshot
        }
    }

    /// `PRAGMA data_version` as the watcher reads it now: it moves with every commit of another
    /// connection, the store's writer's included.
    func dataVersionNow() throws -> Int64? {
        try watcher.withLock { try $0.connection?.dataVersion() }
    }

    /// Whether `PRAGMA data_version` moved since the last snapshot began: another connection
    /// (of this process or another) committed.
    package var hasChangesFromOutside: Bool {
        (try? watcher.withLock { watcher in try watcher.connection.map { try $0.dataVersion() != watcher.seen } ?? false }) ?? false
    }

    // MARK: Permanent IDs

    /// Reference numbers from `Z_PRIMARYKEY`'s `Z_MAX` of the hierarchy's root, taken in a
    /// transaction of their own (as Core Data's `obtainPermanentIDs(for:)` does, before the
    /// save that uses them): numbers are never handed out twice, by this process or another,
    /// even when the save then fails.
    func takeReferenceNumbers(rootEntity: String, count: Int) throws -> [Int64] {
        guard let writer else {
            throw PersistenceError(.readOnlyStore, "the store \(identifier) is read-only")
        }
        guard let root = mapping.entities[rootEntity] else {
            throw PersistenceError(.unknownEntity, "the store has no table for the entity '\(rootEntity)'")
        }
        if let block = state.reserved[root.number], block.upperBound - block.lowerBound + 1 >= Int64(count) {
            state.reserved[root.number] = block.lowerBound + Int64(count) <= block.upperBound
                ? (block.lowerBound + Int64(count))...block.upperBound : nil
            return Array(block.lowerBound..<(block.lowerBound + Int64(count)))
        }
        // A block of numbers at a time, so that saving one new object does not cost a write
        // transaction of its own each time; numbers left when the store goes are gaps, which
        // Core Data's stores have too (only a number handed out twice would be wrong).
        let taken = Int64(max(count, Self.reservedBlock))
        let last: Int64 = try sqlite {
            try writer.writeTransaction {
                try writer.statement("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?").run([.integer(taken), .integer(Int64(root.number))])
                guard case .integer(let max)? = try writer.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(root.number))]) else {
                    throw StoreError(.corruptFile, file: fileURL, "Z_PRIMARYKEY has no row for the entity '\(rootEntity)'")
                }
                return max
            }
        }
        let first = last - taken + 1
        state.reserved[root.number] = taken > Int64(count) ? (first + Int64(count))...last : nil
        return Array(first..<(first + Int64(count)))
    }

    /// How many reference numbers a store takes from `Z_PRIMARYKEY` at once.
    static let reservedBlock = 64

    /// The numbers of a save's new objects of one entity, straight from
    /// `takeReferenceNumbers(rootEntity:count:)`: the contract's way, through
    /// ``obtainPermanentIDs(for:)``, made a temporary ID per object, found each one's entity by
    /// name and turned each permanent ID back into its number (2% of inserting and saving
    /// 100,000 people).
    override func makeReferenceNumbers(for entity: EntityDescription, rootEntity: String, count: Int) throws -> [Int64] {
        try takeReferenceNumbers(rootEntity: rootEntity, count: count)
    }

    /// The IDs' permanent IDs, with the numbers of each hierarchy taken at once
    /// (`takeReferenceNumbers(rootEntity:count:)`), for callers of the incremental-store
    /// contract; the coordinator asks ``makeReferenceNumbers(for:rootEntity:count:)``.
    public override func obtainPermanentIDs(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID] {
        var layouts: [EntityLayout] = []
        var positions: [String: [Int]] = [:]
        layouts.reserveCapacity(objectIDs.count)
        for (position, id) in objectIDs.enumerated() {
            guard let layout = managedObjectModel.layout(for: id.entityName) else {
                throw PersistenceError(.unknownEntity, objectIDs: [id], "the model has no entity named '\(id.entityName)'")
            }
            layouts.append(layout)
            positions[layout.rootEntityName, default: []].append(position)
        }
        var result = objectIDs
        for (root, places) in positions {
            for (place, reference) in zip(places, try takeReferenceNumbers(rootEntity: root, count: places.count)) {
                result[place] = newObjectID(for: layouts[place].entity, referenceObject: reference)
            }
        }
        return result
    }

    // MARK: The contract's own reads, for callers of the public API

    public override func newValuesForObject(
        with objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot
    ) throws -> IncrementalStoreNode? {
        guard let layout = managedObjectModel.layout(for: objectID.entityName),
            let row = try readRow(for: objectID, layout: layout, in: snapshot)
        else { return nil }
        return IncrementalStoreNode(objectID: objectID, row: row, layout: layout)
    }

    public override func newValue(
        forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID,
        with snapshot: any IncrementalStoreSnapshot
    ) throws -> [ManagedObjectID] {
        guard let layout = managedObjectModel.layout(for: objectID.entityName), case .relationship(let slot)? = layout.slots[relationship.name],
            let row = try readRow(for: objectID, layout: layout, in: snapshot)
        else { return [] }
        return row.relationships[slot].objectIDs
    }

    public override func execute(_ request: IncrementalStoreRequest, with snapshot: (any IncrementalStoreSnapshot)?) throws -> IncrementalStoreResult {
        switch request {
        case .fetch(let entity, let predicate):
            guard let snapshot, let layout = managedObjectModel.layout(for: entity.name) else { return .nodes([]) }
            return .nodes(try readRows(of: layout, matching: predicate, in: snapshot).map { reference, row in
                IncrementalStoreNode(objectID: newObjectID(for: entity, referenceObject: reference), row: row, layout: layout)
            })
        case .save(let request):
            var changes = ChangeSet()
            func row(from node: IncrementalStoreNode) throws -> Row {
                guard let layout = managedObjectModel.layout(for: node.objectID.entityName) else {
                    throw PersistenceError(.unknownEntity, objectIDs: [node.objectID], "the model has no entity named '\(node.objectID.entityName)'")
                }
                return try self.row(from: node, layout: layout, snapshot: nil)
            }
            for node in request.insertedObjects { changes.inserted[node.objectID] = try row(from: node) }
            for node in request.updatedObjects { changes.updated[node.objectID] = try row(from: node) }
            changes.deleted = request.deletedObjects
            return .saved(versions: try commit(changes))
        }
    }

    // MARK: Errors

    /// Runs `body`, turning SQLite's errors into ``StoreError``s that name the file.
    func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw error.storeError(file: fileURL)
        }
    }
}

/// What a statement that reads rows by reference is made for: an entity (its number) and how
/// many references it binds.
struct ReferenceSelectKey: Hashable {
    let entity: Int
    let count: Int
}
