import Foundation

extension SQLiteStoreMigration {
    /// How many rows a copy-based step reads, maps and writes at a time.
    static let rowChunk = 1_000

    /// A step whose mapping needs objects (custom policies, expressions, closures), as Core
    /// Data's copy-based migration does it: the source's rows are read a chunk at a time, mapped
    /// by ``RowMigration`` (the binary store's own mapping code), and written into a new store
    /// file beside the old one, which replaces it only when whole. Memory stays bounded by the
    /// chunk (and what custom code keeps). An error or a crash before the swap leaves the store
    /// as it was; the partial file is removed.
    ///
    /// The store must not be in use meanwhile: another process's save between the read and the
    /// swap would be lost, as with Core Data's copy-based migration.
    func migrateByRows(_ step: MigrationStep, at url: URL) throws -> MigrationReport {
        let folder = url.deletingLastPathComponent()
        let partial = folder.appendingPathComponent(".\(url.lastPathComponent).migrationdestination-\(UUID().uuidString)")
        func removePartial() {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial.path + suffix) }
        }
        do {
            let report = try copy(step, from: url, to: partial)
            try swap(partial, into: url)
            return report
        } catch {
            removePartial()
            throw error
        }
    }

    private func copy(_ step: MigrationStep, from url: URL, to partial: URL) throws -> MigrationReport {
        // The stores hold their coordinators weakly: these must live as long as the stores do.
        let coordinators = (PersistentStoreCoordinator(managedObjectModel: step.source), PersistentStoreCoordinator(managedObjectModel: step.destination))
        defer { withExtendedLifetime(coordinators) {} }
        let source = try SQLiteStore(
            coordinator: coordinators.0, configurationName: nil, url: url, options: [PersistentStoreOption.readOnly: true])
        defer { source.didRemove() }
        try source.loadMetadata()
        let metadata = source.metadata
        try step.source.checkWroteStore(withMetadata: metadata)
        let store = source.identifier
        var manager = MigrationManager(sourceModel: step.source, destinationModel: step.destination, stageName: step.name)
        manager.fillsMissingValues = fillsMissingValues
        let rows = try RowMigration(
            manager: manager, mapping: step.mapping, store: store, nextReferences: try nextReferences(of: source, for: step),
            total: nil)

        let destination = try SQLiteStore(coordinator: coordinators.1, configurationName: nil, url: partial, options: [:])
        defer { destination.didRemove() }
        try destination.loadMetadata()
        destination.replaceMetadata(MigrationManager.migratedMetadata(from: metadata, to: step.destination, renames: step.mapping.entityRenames))
        try destination.didAdd()

        var owners = OrderedOwners(destination: step.destination)
        func save(_ changes: ChangeSet) throws -> [ManagedObjectID: Int64] {
            do {
                return try destination.save(changes.rowChanges, recording: nil)
            } catch let error as PersistenceError where error.code == .constraintConflict {
                throw MigrationError(.dataLoss, "\(step.name): constraint violation during attempted migration: \(error.message)")
            }
        }
        func write(_ chunks: [(String, [(Int64, Row)])]) throws {
            var changes = ChangeSet()
            for (entity, chunk) in chunks {
                for (reference, row) in chunk { changes.inserted[ManagedObjectID.make(store: store, entity: entity, reference: reference)] = row }
            }
            guard !changes.isEmpty else { return }
            owners.note(changes, versions: try save(changes))
        }
        let snapshot = try source.newSnapshot()
        let schema = StoreSchema(model: step.source, configuration: nil)
        for entity in schema.entities {
            guard let mapped = source.mapping.entities[entity.name] else { continue }
            var last = Int64.min
            while true {
                if isCancelled() { throw MigrationError(.cancelled, "the migration was cancelled; the store is unchanged") }
                let chunk = try source.readRows(
                    of: mapped, where: SQLFetchCondition("t.Z_PK > \(bound: .integer(last))", isExact: true),
                    ordering: "t.Z_PK", window: (0, Self.rowChunk), in: snapshot)
                guard let end = chunk.last?.reference else { break }
                try write(try rows.map(entity, chunk, progress: progress))
                last = end
            }
        }
        try write(try rows.finish())
        for changes in owners.saves(of: Self.rowChunk) { _ = try save(changes) }
        // Every hierarchy's counter above what its sources handed out and what custom code inserted.
        guard let writer = destination.writer else { throw StoreError(.writeFailed, file: partial, "the new store has no writer") }
        try destination.sqlite {
            try writer.writeTransaction {
                for entity in destination.mapping.schema.entities where entity.superNumber == 0 {
                    let next = rows.session.nextReferences[entity.name] ?? 1
                    try writer.statement("UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?, (SELECT coalesce(max(Z_PK), 0) FROM \(entity.table))) WHERE Z_ENT = ?")
                        .run([.integer(next - 1), .integer(Int64(entity.number))])
                }
            }
            try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return rows.report
    }

    /// Destination hierarchy root → the next reference number: above the `Z_MAX` of every
    /// source hierarchy that ends in it, so that a number is never handed out twice.
    private func nextReferences(of source: SQLiteStore, for step: MigrationStep) throws -> [String: Int64] {
        let connection = try source.pool.take()
        defer { source.pool.giveBack(connection) }
        var result: [String: Int64] = [:]
        let renames = step.mapping.entityRenames
        try connection.statement("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY").forEachRow { row in
            guard let name = source.mapping.entityNames[Int(row.int64(0))], let target = renames[name] else { return }
            let root = MappingModel.root(of: target, in: step.destination)
            result[root] = max(result[root] ?? 1, row.int64(1) + 1)
        }
        return result
    }

    /// Puts the new file in the old one's place: the old store's log emptied into it first (so
    /// that no stale log is ever beside the new file), then one `rename(2)`.
    private func swap(_ partial: URL, into url: URL) throws {
        var busy: Int64 = 0
        do {
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: SQLiteStore.defaultTimeout)
            try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)").forEachRow { busy = $0.int64(0) }
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
        // A log that could not be emptied (another connection still reads) must not end up beside the new file.
        guard busy == 0 else {
            throw StoreError(
                .writeFailed, file: url, "another connection is reading the store, so its log cannot be emptied: the migrated copy was not put in place")
        }
        guard rename(partial.path, url.path) == 0 else {
            throw StoreError(.writeFailed, file: url, "cannot put the migrated store in place: \(String(cString: strerror(errno)))")
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }
}
