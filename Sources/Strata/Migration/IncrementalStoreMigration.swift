import Foundation

/// One migration step run between two incremental stores of one database: every object of
/// the source (a store opened with the step's source model) read, mapped by ``RowMigration``
/// (the code every store type's copy-based migration shares, so custom policies, expressions
/// and closures work too) and saved into the destination (opened with the step's destination
/// model), keeping each object's reference number. The PostgreSQL store migrates in place
/// with it, both stores working in the one transaction the migration commits or rolls back.
package enum IncrementalStoreMigration {
    /// How many objects go in one save of the destination.
    static let chunkSize = 1_000

    /// Copies the source's objects into the destination through `step`.
    ///
    /// - Parameters:
    ///   - sourceNextReferences: The source's next reference number per hierarchy root: objects
    ///     custom code inserts are numbered above every number the source handed out.
    /// - Returns: What the step filled in, and the destination's next reference number per
    ///   hierarchy root (above the copied objects' and those custom code inserted).
    /// - Throws: ``MigrationError`` (objects lack what the step makes required, a uniqueness
    ///   constraint the copy breaks, cancellation), or the stores' errors.
    package static func copy(
        _ step: MigrationStep, from source: IncrementalStore, to destination: IncrementalStore, sourceNextReferences: [String: Int64],
        fillsMissingValues: Bool, isCancelled: () -> Bool, progress: (MigrationProgress) -> Void
    ) throws -> (report: MigrationReport, nextReferences: [String: Int64]) {
        var manager = MigrationManager(sourceModel: step.source, destinationModel: step.destination, stageName: step.name)
        manager.fillsMissingValues = fillsMissingValues
        let store = source.identifier
        let counters = MigrationManager.destinationCounters(
            from: sourceNextReferences, renames: step.mapping.entityRenames, source: step.source, destination: step.destination)
        let rows = try RowMigration(manager: manager, mapping: step.mapping, store: store, nextReferences: counters, total: nil)

        var highest: [String: Int64] = [:]  // destination root → the highest reference copied into it
        var owners = OrderedOwners(destination: step.destination)
        func write(_ mapped: [(String, [(Int64, Row)])]) throws {
            var changes = ChangeSet()
            for (entity, chunk) in mapped {
                let root = MappingModel.root(of: entity, in: step.destination)
                for (reference, row) in chunk {
                    changes.inserted[ManagedObjectID.make(store: store, entity: entity, reference: reference)] = row
                    highest[root] = max(highest[root] ?? 0, reference)
                }
            }
            guard !changes.isEmpty else { return }
            owners.note(changes, versions: try commit(changes))
        }
        func commit(_ changes: ChangeSet) throws -> [ManagedObjectID: Int64] {
            do {
                return try destination.commit(changes)
            } catch let error as PersistenceError where error.code == .constraintConflict {
                throw MigrationError(.dataLoss, "\(step.name): constraint violation during attempted migration: \(error.message)")
            }
        }

        let snapshot = try source.newSnapshot()
        for entity in StoreSchema(model: step.source, configuration: nil).entities {
            guard let layout = step.source.layout(for: entity.name) else { continue }
            let all = try source.rows(of: layout, matching: nil, in: snapshot)
            for start in stride(from: 0, to: all.count, by: chunkSize) {
                if isCancelled() { throw MigrationError(.cancelled, "the migration was cancelled; the store is unchanged") }
                let chunk = all[start..<min(start + chunkSize, all.count)].map { ($0.reference, $0.row) }
                try write(try rows.map(entity, chunk, progress: progress))
            }
        }
        try write(try rows.finish())
        for changes in owners.saves(of: chunkSize) { _ = try commit(changes) }
        var next = rows.session.nextReferences
        for (root, reference) in highest { next[root] = max(next[root] ?? 1, reference + 1) }
        return (rows.report, next)
    }
}
