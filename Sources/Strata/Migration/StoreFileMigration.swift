import Foundation

/// One model step of a migration: a stage of a staged plan, or the whole way for a migration
/// on open (Core Data infers one mapping from the store's version to the current one).
struct MigrationStep: Sendable {
    let source: ManagedObjectModel
    let destination: ManagedObjectModel
    let mapping: MappingModel
    /// For progress, reports and errors: "From → To".
    let name: String
}

/// Runs model steps on a store file of either built-in type: the binary store's streaming
/// rewrite (``MigrationManager``), one step at a time, or the SQLite store's migration in SQL,
/// every step in one transaction. What migration on open and ``MigrationPlan`` share.
package enum StoreFileMigration {
    /// The store types Strata migrates files of.
    static let migratableTypes: Set<StoreType> = [.binary, .sqlite]

    /// The type of the store file at `url`: SQLite when it starts with SQLite's header (or,
    /// for an empty or missing file, ends in `.sqlite`), else binary.
    package static func storeType(ofFileAt url: URL) -> StoreType {
        let magic = Data("SQLite format 3\u{0}".utf8)
        if let handle = try? FileHandle(forReadingFrom: url) {
            defer { try? handle.close() }
            let head = (try? handle.read(upToCount: magic.count)) ?? Data()
            if !head.isEmpty { return head == magic ? .sqlite : .binary }
        }
        return ["sqlite", "sqlite3", "db"].contains(url.pathExtension.lowercased()) ? .sqlite : .binary
    }

    /// Migrates the store at `url` through `steps`.
    ///
    /// - Parameter backup: Where to keep a copy of the store as it was before the first step.
    static func migrate(
        storeAt url: URL, type: StoreType, steps: [MigrationStep], fillsMissingValues: Bool, backup: URL?,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) async throws -> [MigrationReport] {
        switch type {
        case .binary:
            var reports: [MigrationReport] = []
            for (number, step) in steps.enumerated() {
                var manager = MigrationManager(sourceModel: step.source, destinationModel: step.destination, stageName: step.name)
                manager.fillsMissingValues = fillsMissingValues
                reports.append(try await manager.migrateStore(at: url, mapping: step.mapping, backup: number == 0 ? backup : nil, progress: progress))
            }
            return reports
        case .sqlite:
            let cancelled = ThreadLocked(false)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[MigrationReport], any Error>) in
                    // Blocking SQL for the whole migration: a thread of its own keeps it off the cooperative pool.
                    Thread.detachNewThread {
                        var migration = SQLiteStoreMigration(steps: steps)
                        migration.fillsMissingValues = fillsMissingValues
                        migration.isCancelled = { cancelled.withLock { $0 } }
                        migration.progress = progress
                        continuation.resume(with: Result { try migration.migrateStore(at: url, backup: backup) })
                    }
                }
            } onCancel: {
                cancelled.withLock { $0 = true }
            }
        default:
            throw PersistenceError(
                .incompatibleStore,
                "Strata migrates binary and SQLite store files; a store of type \(type) needs a migrator of its own (PersistentStoreOption.migrator)")
        }
    }
}
