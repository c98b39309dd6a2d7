import Foundation

/// Migrates a binary store from one model to another with a mapping model, as Core Data's
/// `NSMigrationManager`, by rewriting the file a chunk at a time.
///
/// Memory does not grow with the store: each chunk is read, mapped and written before the next
/// (custom policies that keep objects across the migration are the exception). The store's UUID
/// and every object's reference number are kept, so object URIs taken before resolve after,
/// also through entity renames (recorded in the metadata). The original is untouched until the
/// new file is whole and durable; then it is swapped in atomically. An interruption at any
/// moment — a crash, SIGKILL, an error, cancellation — leaves the original store, and the next
/// open removes the partial file.
public struct MigrationManager: Sendable {
    public let sourceModel: ManagedObjectModel
    public let destinationModel: ManagedObjectModel
    /// A name for progress events: the stage of a staged migration.
    public var stageName: String
    /// Whether an object that lacks a value the step makes required gets the attribute's default
    /// or its type's zero value (`strata migrate --fill-defaults`) instead of failing the
    /// migration; the ``MigrationReport`` says what was filled. Off by default, as in Core Data.
    public var fillsMissingValues = false

    /// The most failing objects an error lists (it counts them all).
    static let listedFailures = 1_000

    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel, stageName: String = "migration") {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.stageName = stageName
    }

    /// Migrates the store at `url` in place. Cancelling the task stops it (between chunks) and
    /// leaves the store as it was.
    ///
    /// Every object is checked against what the step makes required (see
    /// ``fillsMissingValues``); when any object fails, the migration writes nothing and its
    /// error lists each one's URI with the rule it breaks.
    ///
    /// - Parameters:
    ///   - url: The store file to migrate.
    ///   - mapping: How the source model's objects become the destination model's.
    ///   - backup: Where to keep a copy of the original, if anywhere.
    ///   - progress: Called after every chunk.
    /// - Returns: What the migration filled in, if anything.
    /// - Throws: ``MigrationError`` (`.unknownSourceVersion` when the store was not written by
    ///   the source model, `.missingValues`, `.dataLoss`, `.cancelled`), or a `StoreError`.
    @discardableResult
    public func migrateStore(
        at url: URL, mapping: MappingModel, backup: URL? = nil, progress: @escaping @Sendable (MigrationProgress) -> Void = { _ in }
    ) async throws -> MigrationReport {
        let cancelled = ThreadLocked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MigrationReport, any Error>) in
                // The rewrite blocks on I/O and CPU for its whole length: a thread of its own keeps
                // it off the cooperative pool.
                Thread.detachNewThread {
                    continuation.resume(with: Result {
                        try run(url: url, mapping: mapping, backup: backup, isCancelled: { cancelled.withLock { $0 } }, progress: progress)
                    })
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }

    /// The progress events of a migration, as it runs: iterating the sequence runs it; it ends
    /// when the migration does, throwing its error. Cancelling the iterating task cancels it.
    public func progressEvents(storeAt url: URL, mapping: MappingModel, backup: URL? = nil) -> AsyncThrowingStream<MigrationProgress, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await migrateStore(at: url, mapping: mapping, backup: backup) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func run(
        url: URL, mapping: MappingModel, backup: URL?, isCancelled: () -> Bool, progress: (MigrationProgress) -> Void
    ) throws -> MigrationReport {
        let rewriter = try BinaryStoreRewriter(url: url)
        let metadata = rewriter.header.metadata
        try sourceModel.checkWroteStore(withMetadata: metadata)
        let store = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? ""
        let renames = mapping.entityRenames
        let rows = try RowMigration(
            manager: self, mapping: mapping, store: store, nextReferences: destinationCounters(from: metadata, renames: renames),
            total: totalObjects(in: metadata))
        let header = BinaryStoreHeader(
            metadata: destinationMetadata(from: metadata, renames: renames, counters: rows.session.nextReferences),
            schema: StoreSchema(model: destinationModel, configuration: nil))
        try rewriter.rewrite(to: header, backup: backup) { entity, chunk in
            if isCancelled() { throw MigrationError(.cancelled, "the migration was cancelled; the store is unchanged") }
            return try rows.map(entity, chunk, progress: progress)
        } finish: {
            // Thrown before the new file is swapped in: the store is left as it was.
            try rows.finish()
        } history: { transactions in
            HistoryLog.migrated(transactions, renames: renames)
        }
        return rows.report
    }

    /// Reference counters per destination hierarchy: the highest of the source hierarchies that
    /// end in it, so that numbers are never handed out twice.
    private func destinationCounters(from metadata: [String: MetadataValue], renames: [String: String]) -> [String: Int64] {
        guard case .dictionary(let counters)? = metadata[PersistentStore.nextReferencesKey] else { return [:] }
        return Self.destinationCounters(
            from: counters.compactMapValues { value in
                guard case .integer(let next) = value else { return nil }
                return next
            }, renames: renames, source: sourceModel, destination: destinationModel)
    }

    /// Next reference numbers per destination hierarchy root, from the source's per source
    /// hierarchy root: the highest of the source hierarchies that end in each.
    static func destinationCounters(
        from counters: [String: Int64], renames: [String: String], source: ManagedObjectModel, destination: ManagedObjectModel
    ) -> [String: Int64] {
        var result: [String: Int64] = [:]
        for (root, next) in counters {
            for entity in MappingModel.destinationHierarchy(of: root, in: source) {
                guard let target = renames[entity] else { continue }
                let destinationRoot = MappingModel.root(of: target, in: destination)
                result[destinationRoot] = max(result[destinationRoot] ?? 1, next)
            }
        }
        return result
    }

    private func destinationMetadata(
        from metadata: [String: MetadataValue], renames: [String: String], counters: [String: Int64]
    ) -> [String: MetadataValue] {
        var result = Self.migratedMetadata(from: metadata, to: destinationModel, renames: renames)
        result[PersistentStore.nextReferencesKey] = .dictionary(counters.mapValues(MetadataValue.integer))
        return result
    }

    /// A store's metadata after a migration to `destination`: the new model's hashes, the
    /// entity renames of every migration so far (so that an object URI taken under an old name
    /// keeps resolving), object counts under the new names. Every store type's migration
    /// writes it.
    package static func migratedMetadata(
        from metadata: [String: MetadataValue], to destination: ManagedObjectModel, renames: [String: String]
    ) -> [String: MetadataValue] {
        var result = metadata
        for (key, value) in destination.storeMetadata(forConfigurationName: nil) { result[key] = value }
        if destination.versionHistory.isEmpty { result[PersistentStore.modelVersionHistoryKey] = nil }
        // Renames accumulate across migrations: an old name keeps resolving to the current one.
        var recorded: [String: String] = [:]
        if case .dictionary(let previous)? = metadata[PersistentStore.entityRenamesKey] {
            for (old, value) in previous {
                if let current = value.stringValue, let now = renames[current] { recorded[old] = now }
            }
        }
        for (old, new) in renames where old != new { recorded[old] = new }
        result[PersistentStore.entityRenamesKey] = recorded.isEmpty ? nil : .dictionary(recorded.mapValues(MetadataValue.string))
        if case .dictionary(let counts)? = metadata["StoreObjectCounts"] {
            var mapped: [String: MetadataValue] = [:]
            for (entity, count) in counts { if let target = renames[entity] { mapped[target] = count } }
            result["StoreObjectCounts"] = .dictionary(mapped)
        }
        return result
    }

    private func totalObjects(in metadata: [String: MetadataValue]) -> Int? {
        guard case .dictionary(let counts)? = metadata["StoreObjectCounts"] else { return nil }
        return counts.values.reduce(0) { total, value in if case .integer(let n) = value { total + Int(n) } else { total } }
    }
}
