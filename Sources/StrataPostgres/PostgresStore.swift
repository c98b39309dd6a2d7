import Dispatch
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Strata

/// A store in a PostgreSQL database: one object graph for many app servers.
///
/// ```swift
/// PostgresStore.register()
/// try await coordinator.addPersistentStore(
///     type: .postgreSQL, at: URL(string: "postgres://app@db.internal:5432/inventory?schema=strata")!,
///     options: [PersistentStoreOption.remoteChangeNotifications: true])
/// ```
///
/// The URL names the server (or `?host=/socket/folder` for a Unix socket), the database and the
/// schema the store's tables live in (`public` by default); the password comes from
/// `PGPASSWORD` and TLS from `PGSSLMODE`, never from the URL (see `docs/PostgresStore.md`).
///
/// The tables follow the SQLite store's scheme (``PostgresSchema``), so a model has the same
/// tables, columns and entity numbers in both. What the store does, as an ``IncrementalStore``:
/// - Each generation reads through a `REPEATABLE READ` snapshot (``PostgresSnapshot``): a
///   context sees one state of the database for as long as it works.
/// - A save is one transaction, with optimistic locking in each statement (`Z_OPT`), uniqueness
///   constraints checked and enforced by unique indexes, and a bounded retry on serialization
///   failures and deadlocks; then a `NOTIFY` that every other coordinator on the store hears.
/// - Reference numbers come from `Z_PRIMARYKEY`, in a statement of their own: never handed out
///   twice, by any server.
public final class PostgresStore: IncrementalStore, PackageIncrementalStore, @unchecked Sendable {
    // Sendable by proof: every mutable part is in `state`, `selectStatements` or
    // `snapshotIdleTime` (locks) or is a Sendable pool, listener or cache; reads come from
    // contexts' threads, saves one at a time on the coordinator's queue.

    /// Registers the store class with the coordinator, for ``Strata/StoreType/postgreSQL``.
    public static func register() {
        PersistentStoreCoordinator.registerStoreClass(PostgresStore.self, forStoreType: .postgreSQL)
    }

    let location: PostgresLocation
    let pool: PostgresConnectionPool
    let schema: PostgresSchema
    let mapping: CoreDataTableMapping
    /// Each entity's ID space by entity number, for the store's identifier they were made with.
    let spaceCache: ObjectIDSpaceCache
    /// How each column of each of the model's tables stores values (as ``schema`` creates
    /// them): what a save's batched inserts bind their arrays as.
    let columnStorages: [String: [String: PostgresStorage]]
    /// The statements that read objects, by what they read
    /// (``cachedSelectStatement(for:where:targets:)``).
    let selectStatements = ThreadLocked<[SelectStatementKey: (sql: String, positions: [[Int]]?)]>([:])
    /// How many read statements ``selectStatements`` keeps before it starts over.
    static let selectStatementsKept = 256
    /// How fetch predicates compile for this store's tables.
    let dialect: SQLDialect
    let logger = Logger(label: "strata.postgres")
    /// The model's version checksum, which `Z_METADATA`'s `Z_MODEL` holds for the model the
    /// store's tables are at: a save checks it, so that a server still on an older model never
    /// writes to tables another server migrated.
    let modelChecksum: String
    /// How many seconds a generation's snapshot keeps its transaction once no context holds the
    /// generation (``PostgresSnapshot``): long enough that reads following one another share it,
    /// short against a server's `idle_in_transaction_session_timeout`.
    let snapshotIdleTime = ThreadLocked(1.0)
    /// Saves retried after a serialization failure or deadlock, at most.
    static let saveAttempts = 5

    private struct State {
        /// The number of the last save this store saw committed (its own, or another's by
        /// notification), and the one its latest snapshot was made at.
        var latestChange: Int64 = 0
        var snapshotChange: Int64 = 0
        /// The connection to the server was lost and found again: the latest snapshot's
        /// connection may be gone with it, so the next generation takes a new one.
        var reconnected = false
        /// The metadata as last written to `Z_METADATA`.
        var writtenMetadata: [String: MetadataValue] = [:]
        var listener: PostgresChangeListener?
    }
    private let state = ThreadLocked(State())

    public required convenience init(
        coordinator: PersistentStoreCoordinator, configurationName: String?, url: URL?, options: [String: any Sendable]
    ) throws {
        guard let url else {
            throw PostgresStoreError(.invalidURL, "a PostgreSQL store is added with its URL: postgres://user@host:port/database?schema=name")
        }
        let location = try PostgresLocation(url: url)
        let pool = PostgresConnectionPool(configuration: try location.configuration(), logger: Logger(label: "strata.postgres"))
        try self.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options, location: location, pool: pool)
    }

    /// A store at `location` whose statements go through `pool`.
    init(
        coordinator: PersistentStoreCoordinator, configurationName: String?, url: URL?, options: [String: any Sendable],
        location: PostgresLocation, pool: PostgresConnectionPool
    ) throws {
        self.location = location
        self.pool = pool
        mapping = CoreDataTableMapping(model: coordinator.managedObjectModel)
        spaceCache = ObjectIDSpaceCache(entityNames: mapping.entityNames)
        guard mapping.unsupported.isEmpty else {
            throw PersistenceError(
                .incompatibleStore,
                "to-many relationships without an inverse cannot be stored in the SQLite scheme the PostgreSQL store uses: "
                    + mapping.unsupported.joined(separator: ", "))
        }
        schema = PostgresSchema(schema: location.schema, model: mapping.schema)
        columnStorages = Dictionary(
            mapping.schema.tables.map { table in
                (table.name, Dictionary(table.columns.map { ($0.name, PostgresSchema.storage(ofDeclaredType: $0.type)) }, uniquingKeysWith: { a, _ in a }))
            }, uniquingKeysWith: { a, _ in a })
        dialect = .postgreSQL(schema: location.schema)
        modelChecksum = coordinator.managedObjectModel.versionChecksum.base64EncodedString()
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
    }

    // MARK: The contract (the work is in the extensions: +Reading, +Saving)

    public override func execute(_ request: IncrementalStoreRequest, with snapshot: (any IncrementalStoreSnapshot)?) throws -> IncrementalStoreResult {
        switch request {
        case .fetch(let entity, let predicate): .nodes(try fetchNodes(of: entity, matching: predicate, with: snapshot))
        // A save through the contract says nothing of who saved, nor what each update changed.
        case .save(let changes):
            .saved(
                versions: try save(
                    RowChanges(changes, store: self),
                    recording: tracksPersistentHistory ? SaveHistory(author: nil, contextName: nil, updatedProperties: [:]) : nil))
        }
    }

    public override func newValuesForObject(with objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot) throws -> IncrementalStoreNode? {
        try node(for: objectID, with: snapshot)
    }

    public override func newValue(
        forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID, with snapshot: any IncrementalStoreSnapshot
    ) throws -> [ManagedObjectID] {
        try targets(of: relationship, for: objectID, with: snapshot)
    }

    public override func obtainPermanentIDs(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID] {
        try takeReferenceNumbers(for: objectIDs)
    }

    // MARK: Metadata

    /// Creates the store's own tables if the schema has none (under a lock, so that servers
    /// starting at once create them once) and reads its UUID, metadata and last save's number.
    public override func loadMetadata() throws {
        let (loaded, change) = try withTransaction { connection in
            try lockSchema(connection)
            try connection.run("CREATE SCHEMA IF NOT EXISTS \(PostgresSQL.quoted(location.schema))", logger: logger)
            if try !tableExists("Z_METADATA", connection) {
                guard try tables(connection).isEmpty else {
                    throw PostgresStoreError(
                        .notAStore, "the schema \(location.schema) of \(location.database) holds tables, but not a Strata store's; give the store a schema of its own")
                }
                for statement in schema.storeTables { try connection.run(statement, logger: logger) }
                try connection.run(
                    "INSERT INTO \(schema.table("Z_METADATA")) (\"Z_VERSION\", \"Z_UUID\", \"Z_METADATA\", \"Z_CHANGE\") VALUES (1, $1, '{}', 0)",
                    [.text(identifier)], logger: logger)
            }
            guard let stored = try Self.storedMetadata(connection, location, logger: logger) else {
                throw PostgresStoreError(.notAStore, "the store's metadata row is missing from \(location.schema).Z_METADATA")
            }
            return stored
        }
        replaceMetadata(loaded)
        state.withLock { state in
            state.writtenMetadata = self.metadata
            state.latestChange = change
            state.snapshotChange = change
        }
    }

    /// Reads a store's metadata without adding it.
    public override class func metadataForPersistentStore(at url: URL) throws -> [String: MetadataValue] {
        try withOneOffConnection(to: url) { connection, location, logger in
            guard let (metadata, _) = try storedMetadata(connection, location, logger: logger) else {
                throw PostgresStoreError(.notAStore, "\(location) holds no store")
            }
            return metadata
        }
    }

    /// The metadata of the store at `url`, or `nil` when its schema holds none yet.
    package static func existingMetadata(at url: URL) throws -> [String: MetadataValue]? {
        try withOneOffConnection(to: url) { connection, location, logger in try storedMetadata(connection, location, logger: logger)?.metadata }
    }

    /// The metadata in `Z_METADATA` (with the store's UUID) and the number of the last save, or
    /// `nil` when the schema has no such table.
    static func storedMetadata(
        _ connection: PostgresConnection, _ location: PostgresLocation, logger: Logger
    ) throws -> (metadata: [String: MetadataValue], change: Int64)? {
        guard
            !(try connection.rows(
                "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'Z_METADATA'", [.text(location.schema)], logger: logger)
            ).isEmpty
        else { return nil }
        guard
            let row = try connection.rows(
                "SELECT \"Z_UUID\", \"Z_METADATA\", \"Z_CHANGE\" FROM \(PostgresSQL.qualified(location.schema, "Z_METADATA"))", logger: logger
            ).first?.makeRandomAccess(),
            case .text(let uuid) = try row[0].value(as: .text), case .text(let json) = try row[1].value(as: .text)
        else { throw PostgresStoreError(.notAStore, "the store's metadata row in \(location.schema).Z_METADATA is missing or empty") }
        var metadata: [String: MetadataValue]
        do {
            metadata = try JSONDecoder().decode([String: MetadataValue].self, from: Data(json.utf8))
        } catch {
            throw PostgresStoreError(.notAStore, "the store's metadata is not what Strata writes: \(error)")
        }
        metadata[PersistentStore.storeUUIDKey] = .string(uuid)
        return (metadata, try row[2].int64() ?? 0)
    }

    /// Writes a store's metadata without adding it; its UUID stays what it is.
    public override class func setMetadata(_ metadata: [String: MetadataValue], forPersistentStoreAt url: URL) throws {
        var stored = metadata
        stored[PersistentStore.storeUUIDKey] = nil
        try withOneOffConnection(to: url) { connection, location, logger in
            let changed = try connection.run(
                "UPDATE \(PostgresSQL.qualified(location.schema, "Z_METADATA")) SET \"Z_METADATA\" = $1", [.text(try metadataJSON(stored))],
                logger: logger)
            guard changed == 1 else { throw PostgresStoreError(.notAStore, "\(location) holds no store") }
        }
    }

    /// Core Data's destroy, for a PostgreSQL store: ``destroyStore(at:)``; a schema that holds
    /// no store (none yet, or not Strata's tables) is left as it is.
    public override class func destroyPersistentStore(at url: URL, options: [String: any Sendable]) throws {
        guard try existingMetadata(at: url) != nil else { return }
        try destroyStore(at: url)
    }

    /// Core Data's replace, for a PostgreSQL store: the source schema's store tables (every
    /// `Z…` table and persistent history's) are copied into the destination's schema, whose own
    /// are dropped first, in one transaction: other servers see the old store or the new one.
    /// Both stores are in the same database (the copy is SQL on one connection); across
    /// databases or servers, ``PersistentStoreCoordinator/migratePersistentStore(_:to:options:type:)``
    /// copies the objects. A destination schema with `Z…` tables that are not a store's is
    /// refused, and left as it is.
    public override class func replacePersistentStore(
        at destination: URL, destinationOptions: [String: any Sendable], withPersistentStoreFrom source: URL,
        sourceOptions: [String: any Sendable]
    ) throws {
        let from = try PostgresLocation(url: source)
        try withOneOffConnection(to: destination) { connection, location, logger in
            guard from.user == location.user, from.database == location.database, from.host == location.host, from.port == location.port,
                from.socketPath == location.socketPath
            else {
                throw PersistenceError(
                    .unsupportedRequest,
                    "\(from) and \(location) are not in the same database: copy the store with migratePersistentStore(_:to:options:type:)")
            }
            if from.schema == location.schema { return }
            try connection.transaction(logger: logger) {
                guard try storedMetadata(connection, from, logger: logger) != nil else {
                    throw PostgresStoreError(.notAStore, "\(from) holds no store")
                }
                let incoming = try storeTables(in: from.schema, connection, logger: logger)
                let present = try storeTables(in: location.schema, connection, logger: logger)
                if !present.isEmpty, try storedMetadata(connection, location, logger: logger) == nil {
                    throw PostgresStoreError(.notAStore, "\(location) has tables of its own that are not a store's: it is left as it is")
                }
                try connection.run("CREATE SCHEMA IF NOT EXISTS \(PostgresSQL.quoted(location.schema))", logger: logger)
                for name in present {
                    try connection.run("DROP TABLE \(PostgresSQL.qualified(location.schema, name)) CASCADE", logger: logger)
                }
                for name in incoming {
                    let copy = PostgresSQL.qualified(location.schema, name), original = PostgresSQL.qualified(from.schema, name)
                    try connection.run("CREATE TABLE \(copy) (LIKE \(original) INCLUDING ALL)", logger: logger)
                    try connection.run("INSERT INTO \(copy) SELECT * FROM \(original)", logger: logger)
                }
            }
        }
    }

    /// The names of a schema's store tables: every `Z…` table, and persistent history's.
    private static func storeTables(in schema: String, _ connection: PostgresConnection, logger: Logger) throws -> [String] {
        try connection.rows(
            "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1 AND (tablename LIKE 'Z%' OR tablename IN ('ATRANSACTION', 'ACHANGE'))",
            [.text(schema)], logger: logger
        ).compactMap { row in
            guard case .text(let name) = try row.makeRandomAccess()[0].value(as: .text) else { return nil }
            return name
        }
    }

    /// Drops a store: its tables (every `Z…` table of its schema, which holds nothing else, and
    /// persistent history's), then the schema itself when it is left empty and is not `public`.
    /// Remove the store from every coordinator first; a server that still has it open fails its
    /// next statement.
    public static func destroyStore(at url: URL) throws {
        try withOneOffConnection(to: url) { connection, location, logger in
            try connection.transaction(logger: logger) {
                let schema = [SQLValue.text(location.schema)]
                guard try storedMetadata(connection, location, logger: logger) != nil else { throw PostgresStoreError(.notAStore, "\(location) holds no store") }
                let tables = try connection.rows(
                    "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1 AND (tablename LIKE 'Z%' OR tablename IN ('ATRANSACTION', 'ACHANGE'))", schema, logger: logger)
                for row in tables {
                    guard case .text(let name) = try row.makeRandomAccess()[0].value(as: .text) else { continue }
                    try connection.run("DROP TABLE \(PostgresSQL.qualified(location.schema, name)) CASCADE", logger: logger)
                }
                let left = try connection.rows("SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1", schema, logger: logger)
                if left.isEmpty, location.schema != "public" {
                    try connection.run("DROP SCHEMA \(PostgresSQL.quoted(location.schema))", logger: logger)
                }
            }
        }
    }

    /// Runs `body` on a connection of its own to the store at `url`, for the work done on a
    /// store that is not added (its metadata, its destruction).
    static func withOneOffConnection<T>(to url: URL, _ body: (PostgresConnection, PostgresLocation, Logger) throws -> T) throws -> T {
        let location = try PostgresLocation(url: url)
        let logger = Logger(label: "strata.postgres")
        let pool = PostgresConnectionPool(configuration: try location.configuration(), logger: logger)
        defer { pool.drain() }
        return try pool.withConnection { connection in try body(connection, location, logger) }
    }

    /// The error of a server whose model the store's tables are no longer at.
    static func migratedElsewhere() -> PersistenceError {
        PersistenceError(
            .incompatibleStore,
            "another server migrated the store to another version of the model: this server's model can no longer read or save it; "
                + "restart it with the new model")
    }

    /// Metadata as `Z_METADATA` holds it: JSON, keys sorted.
    static func metadataJSON(_ metadata: [String: MetadataValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(metadata), as: UTF8.self)
    }

    // MARK: Added and removed

    /// Creates the model's tables where they are missing, records its entities in
    /// `Z_PRIMARYKEY`, writes the metadata the coordinator completed, and starts listening for
    /// other servers' saves.
    package func storeWasAdded() throws {
        try withTransaction { connection in
            try lockSchema(connection)
            // The tables are at this model, or the store is new: another server may have migrated
            // it since this one read its metadata.
            let claimed = try connection.run(
                "UPDATE \(schema.table("Z_METADATA")) SET \"Z_MODEL\" = $1 WHERE \"Z_MODEL\" IS NULL OR \"Z_MODEL\" = $1", [.text(modelChecksum)],
                logger: logger)
            guard claimed == 1 else { throw Self.migratedElsewhere() }
            try dropIndexesOutOfByteOrder(connection)
            for statement in try schema.modelTables() { try connection.run(statement, logger: logger) }
            for entity in schema.entityRows {
                try connection.run(
                    "INSERT INTO \(schema.table("Z_PRIMARYKEY")) (\"Z_ENT\", \"Z_NAME\", \"Z_SUPER\", \"Z_MAX\") VALUES ($1, $2, $3, 0) "
                        + "ON CONFLICT (\"Z_ENT\") DO NOTHING",
                    [.integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber))], logger: logger)
            }
            try prepareHistory(connection)
            try writeMetadataIfChanged(connection)
        }
        let listener = PostgresChangeListener(
            channel: changeChannel, lastChangeSQL: "SELECT \"Z_CHANGE\" FROM \(schema.table("Z_METADATA"))", configuration: try location.configuration(), logger: logger
        ) { [weak self] event in
            self?.heard(event)
        }
        try listener.start()
        state.withLock { $0.listener = listener }
    }

    package func storeWasRemoved() {
        state.withLock { state in
            state.listener?.stop()
            state.listener = nil
        }
        pool.drain()
    }

    // MARK: Snapshots and changes from outside

    public override func newSnapshot() throws -> any IncrementalStoreSnapshot {
        // A migration's store reads in the migration's own transaction.
        if pool.isPinned { return CurrentStateSnapshot() }
        state.withLock { state in
            state.snapshotChange = state.latestChange
            state.reconnected = false
        }
        return PostgresSnapshot(pool: pool, changeTable: schema.table("Z_METADATA"), idleTime: snapshotIdleTime, logger: logger)
    }

    package var hasChangesFromOutside: Bool {
        state.withLock { $0.latestChange > $0.snapshotChange || $0.reconnected }
    }

    /// Who this store is in its saves' notifications (`NUMBER SAVER`): its own are not news.
    let saverID = UUID().uuidString

    /// The channel saves notify: one per store, named by its UUID.
    var changeChannel: String {
        Self.changeChannel(ofStore: identifier)
    }

    static func changeChannel(ofStore uuid: String) -> String {
        "strata_" + uuid.lowercased().filter { $0.isHexDigit }
    }

    /// Another server committed a save, or the listener connected again after losing the
    /// server: the coordinator takes it in and announces it. Every other server's save is
    /// announced, even one this server's own later save already took into a generation (its
    /// number is then below the latest). Called on the listener's queue, never on an event loop.
    private func heard(_ event: PostgresChangeListener.Event) {
        let isNews = state.withLock { state in
            switch event {
            case .notified(let number, let saver):
                guard saver != saverID else { return false }
                // A generation made before this number was known may not hold the save.
                state.snapshotChange = min(state.snapshotChange, number - 1)
                state.latestChange = max(state.latestChange, number)
            case .listening(let number):
                guard number > state.latestChange else { return false }
                state.latestChange = number
            case .reconnected(let number):
                state.latestChange = max(state.latestChange, number)
                state.reconnected = true
            }
            return true
        }
        if isNews { persistentStoreCoordinator?.storeChangedOutsideSynchronously(identifier) }
    }

    /// A save of this store's committed as `number`.
    func committed(change number: Int64) {
        state.withLock { state in state.latestChange = max(state.latestChange, number) }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction on a pooled connection: committed when it returns, rolled
    /// back when it throws. On a pinned pool (a migration's), a savepoint of the owner's
    /// transaction stands for it.
    func withTransaction<T>(isolation: String = "READ COMMITTED", _ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try pool.take()
        let (begin, commit, rollback) = pool.isPinned
            ? ("SAVEPOINT strata_work", "RELEASE SAVEPOINT strata_work", "ROLLBACK TO SAVEPOINT strata_work")
            : ("BEGIN ISOLATION LEVEL \(isolation)", "COMMIT", "ROLLBACK")
        do {
            try connection.run(begin, logger: logger)
            let result = try body(connection)
            try connection.run(commit, logger: logger)
            pool.giveBack(connection)
            return result
        } catch {
            // Only a connection the server answered on can roll back: on a lost one the server
            // has already rolled the transaction back, and a statement sent there may never end.
            if (error as? PostgresStoreError)?.code != .unreachable, (try? connection.run(rollback, logger: logger)) != nil {
                pool.giveBack(connection)
            } else if !pool.isPinned {
                connection.closeSoon()
            }
            throw error
        }
    }

    /// Serialises schema changes across servers for the rest of the transaction.
    private func lockSchema(_ connection: PostgresConnection) throws {
        try Self.lockSchema(location.schema, connection, logger: logger)
    }

    /// Serialises schema changes to `schema` across servers for the rest of the transaction, and
    /// waits for the saves in progress (which hold the same lock shared, ``lockSchemaForSave(_:)``).
    static func lockSchema(_ schema: String, _ connection: PostgresConnection, logger: Logger) throws {
        try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("strata:" + schema)], logger: logger)
    }

    /// Keeps the schema as it is for the rest of a save's transaction: a migration waits for the
    /// save, and a save that starts during a migration waits for it (then finds `Z_MODEL`
    /// changed, and writes nothing). Shared: saves do not wait for one another here.
    func lockSchemaForSave(_ connection: PostgresConnection) throws {
        try connection.run("SELECT pg_advisory_xact_lock_shared(hashtext($1))", [.text("strata:" + location.schema)], logger: logger)
    }

    private func tableExists(_ name: String, _ connection: PostgresConnection) throws -> Bool {
        try !connection.rows(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = $2", [.text(location.schema), .text(name)], logger: logger
        ).isEmpty
    }

    private func tables(_ connection: PostgresConnection) throws -> [PostgresRow] {
        try connection.rows("SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = $1", [.text(location.schema)], logger: logger)
    }

    /// Forgets what `Z_METADATA` holds, after a transaction that may have written it rolled back.
    func forgetWrittenMetadata() {
        state.withLock { $0.writtenMetadata = [:] }
    }

    /// Writes the metadata when it differs from what `Z_METADATA` holds, in the caller's transaction.
    func writeMetadataIfChanged(_ connection: PostgresConnection) throws {
        let current = metadata
        guard state.withLock({ $0.writtenMetadata }) != current else { return }
        var stored = current
        stored[PersistentStore.storeUUIDKey] = nil
        try connection.run("UPDATE \(schema.table("Z_METADATA")) SET \"Z_METADATA\" = $1", [.text(try Self.metadataJSON(stored))], logger: logger)
        state.withLock { $0.writtenMetadata = current }
    }
}

/// What a statement that reads objects is made for: its entities (by number), its condition,
/// and how it reads to-many targets (``PostgresStore/TargetsRead``, by case).
struct SelectStatementKey: Hashable {
    let members: [Int]
    let condition: String
    let targets: Int
}
