import Foundation
import Logging
import PostgresNIO
import Strata

/// Saving: one transaction per save, retried whole on a serialization failure, a deadlock or a
/// uniqueness race with another server; optimistic locking in each statement.
extension PostgresStore {
    /// The SQLSTATEs after which a save is tried again from the start: serialization failure,
    /// deadlock, and a unique index another server's commit filled after this save checked it
    /// (the check then finds the clash on the next attempt, and reports it as a constraint conflict).
    static let retriedStates: Set<String> = ["40001", "40P01", "23505"]

    package func save(_ changes: RowChanges, recording history: SaveHistory?) throws -> [ManagedObjectID: Int64] {
        let (versions, added) = try saving(Array(changes.inserted.keys) + Array(changes.updated.keys)) { connection, attempt in
            try lockSchemaForSave(connection)
            let tombstones = history == nil ? [:] : try self.tombstones(of: changes.deleted, connection: connection)
            let session = relationalSession(connection, checksWrittenKeys: attempt.checksWrittenKeys)
            let versions = try RelationalSaveWriter(mapping: mapping, connection: session, store: self).write(changes)
            return ((versions, session.rowsAdded), try finishSave(changes, history: history, tombstones: tombstones, connection: connection))
        }
        analyzeGrownTables(added)
        return versions
    }

    /// `connection` as the relational core uses it, binding batched writes by this store's
    /// column storages; the rows of batched writes checked one by one unless `checksWrittenKeys`
    /// is false (``PostgresRelationalConnection/checksWrittenKeys``).
    func relationalSession(_ connection: PostgresConnection, checksWrittenKeys: Bool = true) -> PostgresRelationalConnection {
        PostgresRelationalConnection(
            connection, dialect: dialect, logger: logger, columnStorages: columnStorages, checksWrittenKeys: checksWrittenKeys)
    }

    /// One try of a save, as ``saving(_:_:)`` hands it to its body.
    struct SaveAttempt {
        /// Whether batched writes check their rows one by one: not on the first try, where a
        /// taken key fails an insert (`23505`) and an update or delete that misses a row throws
        /// ``PostgresRelationalConnection/UncheckedWriteMissedRows``; on every try after one, so
        /// that each such object is reported as a conflict of its own.
        let checksWrittenKeys: Bool
    }

    /// Runs `body` as one save: in a transaction, tried again whole on a conflict with another
    /// server (``retriedStates``), and, with its batched writes checked row by row, when an
    /// unchecked first try missed a row (``SaveAttempt``); `body` returns its result and the
    /// save's number (`nil` when it wrote nothing, and took none).
    func saving<T>(
        _ objectIDs: @autoclosure () -> [ManagedObjectID], _ body: (PostgresConnection, SaveAttempt) throws -> (T, Int64?)
    ) throws -> T {
        guard !isReadOnly else {
            throw PersistenceError(.readOnlyStore, objectIDs: objectIDs(), "the store \(identifier) is read-only")
        }
        var attempt = 1
        var checksWrittenKeys = false
        while true {
            do {
                let (result, change) = try withTransaction { try body($0, SaveAttempt(checksWrittenKeys: checksWrittenKeys)) }
                if let change { committed(change: change) }
                return result
            } catch is PostgresRelationalConnection.UncheckedWriteMissedRows where !checksWrittenKeys {
                // Another save changed or deleted an object this one writes: the next try names it.
                forgetWrittenMetadata()
                checksWrittenKeys = true
            } catch let error as PostgresStoreError where error.code == .server && Self.retriedStates.contains(error.sqlState ?? "") {
                forgetWrittenMetadata()
                guard attempt < Self.saveAttempts else {
                    throw PostgresStoreError(
                        .retriesExhausted, sqlState: error.sqlState, "the save failed \(attempt) times on conflicts with other servers' saves: \(error.message)")
                }
                logger.debug("retrying a save", metadata: ["attempt": "\(attempt)", "sqlState": "\(error.sqlState ?? "")"])
                Thread.sleep(forTimeInterval: Double.random(in: 0.002...0.010) * Double(attempt))
                attempt += 1
                checksWrittenKeys = true
            } catch let error as PostgresStoreError where error.code == .server {
                forgetWrittenMetadata()
                // A statement may fail on tables another server migrated before the check of
                // `Z_MODEL` at the end says so: the migration is the cause to report.
                if (try? isAtThisModel()) == false { throw Self.migratedElsewhere() }
                throw error
            } catch {
                forgetWrittenMetadata()
                throw error
            }
        }
    }

    /// Whether the store's tables are at this store's model (`Z_MODEL`).
    private func isAtThisModel() throws -> Bool {
        try pool.withConnection { connection in
            try !connection.rows("SELECT 1 FROM \(schema.table("Z_METADATA")) WHERE \"Z_MODEL\" = $1", [.text(modelChecksum)], logger: logger).isEmpty
        }
    }

    /// Ends a save's writes in its transaction: takes the save's number, records its history
    /// (when there is one), writes changed metadata and tells other servers. Returns the number.
    func finishSave(
        _ changes: RowChanges, history: SaveHistory?, tombstones: [ManagedObjectID: String], connection: PostgresConnection
    ) throws -> Int64 {
        var statements = PipelinedStatements(connection: connection, logger: logger)
        // Taking the next number locks the metadata row until commit, last, so that saves to one
        // store write at once and commit one at a time, in the order of their numbers. After a
        // migration (which this save waited for, if it was running) `Z_MODEL` differs: the save
        // rolls back whatever it wrote.
        guard
            let last = try connection.rows(
                "UPDATE \(schema.table("Z_METADATA")) SET \"Z_CHANGE\" = \"Z_CHANGE\" + 1 WHERE \"Z_MODEL\" = $1 "
                    + "RETURNING \"Z_CHANGE\", to_regclass($2) IS NOT NULL",
                [.text(modelChecksum), .text(schema.table("ACHANGE"))], logger: logger
            ).first?.makeRandomAccess(), let change = try last[0].int64()
        else {
            guard try connection.rows("SELECT 1 FROM \(schema.table("Z_METADATA"))", logger: logger).isEmpty else { throw Self.migratedElsewhere() }
            throw PostgresStoreError(.notAStore, "the store's metadata row is missing from \(location.schema).Z_METADATA")
        }
        if let history {
            try recordHistory(history, of: changes, tombstones: tombstones, statements: &statements)
            _ = try statements.waitForAll()
        } else if try last[1].decode(Bool.self), !pool.isPinned {
            // Another server turned history on after this one added the store: this save would go
            // missing from it. (A migration's copy is no save of the app's, and records none.)
            forceReadOnly(because: Self.historyWithoutTracking)
            throw PersistenceError(
                .readOnlyStore, objectIDs: Array(changes.inserted.keys) + Array(changes.updated.keys),
                "the store \(identifier) is read-only: \(Self.historyWithoutTracking)")
        }
        try writeMetadataIfChanged(connection)
        try connection.run("SELECT pg_notify($1, $2)", [.text(changeChannel), .text("\(change) \(saverID)")], logger: logger)
        return change
    }

    /// Reference numbers from `Z_PRIMARYKEY`'s `Z_MAX` of each hierarchy's root, one statement
    /// per hierarchy outside any save's transaction: never handed out twice, by any server, even
    /// when the save that asked for them fails.
    func takeReferenceNumbers(for objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID] {
        // Each entity is looked up once, by its space, not once per object: a save of many new
        // objects names few entities.
        var permanentSpaces: [ObjectIdentifier: ObjectIDSpace] = [:]
        var byRoot: [Int: [Int]] = [:]  // root entity number → positions in objectIDs
        var rootOfSpace: [ObjectIdentifier: Int] = [:]
        for (position, id) in objectIDs.enumerated() {
            let space = ObjectIdentifier(id.space)
            if let root = rootOfSpace[space] {
                byRoot[root, default: []].append(position)
                continue
            }
            guard let table = mapping.entities[id.entityName] else {
                throw PersistenceError(.unknownEntity, objectIDs: [id], "the store has no table for the entity '\(id.entityName)'")
            }
            let root = mapping.entities[table.layout.rootEntityName]?.number ?? table.number
            rootOfSpace[space] = root
            permanentSpaces[space] = ObjectIDSpace.make(store: identifier, entityName: id.entityName)
            byRoot[root, default: []].append(position)
        }
        var ids = objectIDs
        try pool.withConnection { connection in
            for (root, positions) in byRoot.sorted(by: { $0.key < $1.key }) {
                // Entity numbers are the model's: a store another server migrated numbers its
                // entities anew, and no counter of it is this model's to take.
                guard
                    let last = try connection.rows(
                        "UPDATE \(schema.table("Z_PRIMARYKEY")) SET \"Z_MAX\" = \"Z_MAX\" + $1 WHERE \"Z_ENT\" = $2 "
                            + "AND EXISTS (SELECT 1 FROM \(schema.table("Z_METADATA")) WHERE \"Z_MODEL\" = $3) RETURNING \"Z_MAX\"",
                        [.integer(Int64(positions.count)), .integer(Int64(root)), .text(modelChecksum)], logger: logger
                    ).first?.makeRandomAccess()[0].int64()
                else {
                    guard try !isAtThisModel() else { throw PostgresStoreError(.notAStore, "Z_PRIMARYKEY has no row for entity number \(root)") }
                    throw Self.migratedElsewhere()
                }
                for (offset, position) in positions.enumerated() {
                    guard let space = permanentSpaces[ObjectIdentifier(objectIDs[position].space)] else { continue }
                    ids[position] = ManagedObjectID(space: space, number: last - Int64(positions.count) + 1 + Int64(offset))
                }
            }
        }
        return ids
    }
}
