import Foundation

/// One model step of a migration: a stage of a staged plan, or the whole way for a migration
/// on open (Core Data infers one mapping from the store's version to the current one).
package struct MigrationStep: Sendable {
    package let source: ManagedObjectModel
    package let destination: ManagedObjectModel
    package let mapping: MappingModel
    /// For progress, reports and errors: "From → To".
    package let name: String
}

/// Runs model steps on a store of a type Strata migrates: the binary store's streaming rewrite
/// (``MigrationManager``), one step at a time; an atomic store's by loading it whole; a SQL
/// store (SQLite, PostgreSQL) by its own
/// ``PackageIncrementalStore/migrateStore(at:through:fillsMissingValues:backup:isCancelled:progress:)``.
/// What migration on open and ``MigrationPlan`` share.
package enum StoreFileMigration {
    /// Whether Strata migrates stores of `type`.
    static func canMigrate(_ type: StoreType) -> Bool {
        type == .binary || inPlaceStoreClass(type) != nil || atomicStoreClass(type) != nil
    }

    /// The class of an atomic store type other than the binary store's (the XML store), which
    /// migrates by loading its file whole (`AtomicStoreMigration`).
    static func atomicStoreClass(_ type: StoreType) -> AtomicStore.Type? {
        guard type != .binary, type != .sqlite, type != .inMemory else { return nil }
        return PersistentStoreCoordinator.storeClass(forStoreType: type)
    }

    /// The class of a store type that migrates itself in place, if `type` is one.
    static func inPlaceStoreClass(_ type: StoreType) -> (any PackageIncrementalStore.Type)? {
        PersistentStoreCoordinator.incrementalStoreClass(forStoreType: type) as? any PackageIncrementalStore.Type
    }

    /// Whether there is no store file at `url` yet: no file, or an empty one (which a store
    /// opens as a new store).
    static func hasNoStoreFile(at url: URL) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) == 0
    }

    /// The type of the store file at `url`: SQLite when it starts with SQLite's header, XML when
    /// it starts with an XML declaration (or, for an empty or missing file, when it ends in
    /// `.sqlite` or `.xml`), else binary.
    package static func storeType(ofFileAt url: URL) -> StoreType {
        let magic = Data("SQLite format 3\u{0}".utf8)
        if let handle = try? FileHandle(forReadingFrom: url) {
            defer { try? handle.close() }
            let head = (try? handle.read(upToCount: magic.count)) ?? Data()
            if head.starts(with: Data("<?xml".utf8)) { return .xml }
            if !head.isEmpty { return head == magic ? .sqlite : .binary }
        }
        if url.pathExtension.lowercased() == "xml" { return .xml }
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
        case _ where atomicStoreClass(type) != nil:
            guard let storeClass = atomicStoreClass(type) else { return [] }
            return try await onThreadOfItsOwn { isCancelled in
                try AtomicStoreMigration.migrate(
                    storeAt: url, type: type, storeClass: storeClass, steps: steps, fillsMissingValues: fillsMissingValues, backup: backup,
                    isCancelled: isCancelled, progress: progress)
            }
        default:
            guard let storeClass = inPlaceStoreClass(type) else {
                throw PersistenceError(
                    .incompatibleStore,
                    "Strata migrates binary, SQLite and atomic (XML) store files; a store of type \(type) needs a migrator of its own (PersistentStoreOption.migrator)")
            }
            return try await onThreadOfItsOwn { isCancelled in
                try storeClass.migrateStore(
                    at: url, through: steps, fillsMissingValues: fillsMissingValues, backup: backup, isCancelled: isCancelled, progress: progress)
            }
        }
    }

    /// Runs a blocking migration on a thread of its own, off the cooperative pool; cancelling
    /// the task makes `isCancelled` true.
    private static func onThreadOfItsOwn<T: Sendable>(
        _ work: @escaping @Sendable (_ isCancelled: @escaping @Sendable () -> Bool) throws -> T
    ) async throws -> T {
        let cancelled = ThreadLocked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try work { cancelled.withLock { $0 } } })
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }
}
