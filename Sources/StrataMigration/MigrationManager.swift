import Foundation
import Strata
import Synchronization

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

    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel, stageName: String = "migration") {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.stageName = stageName
    }

    /// Migrates the store at `url` in place. Cancelling the task stops it (between chunks) and
    /// leaves the store as it was.
    ///
    /// - Parameters:
    ///   - backup: Where to keep a copy of the original, if anywhere.
    ///   - progress: Called after every chunk.
    /// - Throws: ``MigrationError`` (`.unknownSourceVersion` when the store was not written by
    ///   the source model, `.dataLoss`, `.cancelled`), or a `StoreError`.
    public func migrateStore(
        at url: URL, mapping: MappingModel, backup: URL? = nil, progress: @escaping @Sendable (MigrationProgress) -> Void = { _ in }
    ) async throws {
        let cancelled = Mutex(false)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
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
    ) throws {
        let rewriter = try BinaryStoreRewriter(url: url)
        let metadata = rewriter.header.metadata
        let differences = sourceModel.incompatibleEntities(inConfiguration: nil, storeMetadata: metadata)
        guard differences.isEmpty else {
            throw MigrationError(
                .unknownSourceVersion, "the store was not written by the source model (it differs in \(differences.joined(separator: ", ")))")
        }
        let store = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? ""
        let renames = Dictionary(
            mapping.entityMappings.compactMap { m in m.sourceEntityName.flatMap { s in m.destinationEntityName.map { (s, $0) } } },
            uniquingKeysWith: { a, _ in a })
        let session = MigrationSession(
            source: sourceModel, destination: destinationModel, mapping: mapping, storeIdentifier: store,
            nextReferences: destinationCounters(from: metadata, renames: renames))
        let header = BinaryStoreHeader(
            metadata: destinationMetadata(from: metadata, renames: renames, counters: session.nextReferences),
            schema: StoreSchema(model: destinationModel, configuration: nil))
        let total = totalObjects(in: metadata)
        var done = 0
        var mappers: [String: RowMapper?] = [:]
        for entityMapping in mapping.entityMappings {
            try entityMapping.policy?.beginEntityMapping(entityMapping, in: session)
        }
        try rewriter.rewrite(to: header, backup: backup) { entity, rows in
            if isCancelled() { throw MigrationError(.cancelled, "the migration was cancelled; the store is unchanged") }
            defer {
                done += rows.count
                progress(MigrationProgress(stage: stageName, entity: entity.name, objectsDone: done, totalObjects: total))
            }
            guard let entityMapping = mapping.mapping(forSource: entity.name), entityMapping.kind != .remove,
                let destinationName = entityMapping.destinationEntityName, let layout = destinationModel.layout(for: destinationName)
            else { return [] }
            if mappers[entity.name] == nil {
                mappers[entity.name] = RowMapper(mapping: entityMapping, source: entity, destination: layout, renames: renames, store: store)
            }
            if let mapper = mappers[entity.name] ?? nil {
                return [(destinationName, try rows.map { ($0.0, try mapper.map($0.1, reference: $0.0)) })]
            }
            var mapped: [(Int64, Row)] = []
            for (reference, row) in rows {
                let source = MigrationObject(row: row, reference: reference, entity: entity, store: store)
                let made = try entityMapping.policy?.createDestinationInstance(for: source, mapping: entityMapping, in: session)
                    ?? (entityMapping.policy == nil ? try session.standardDestination(for: source, mapping: entityMapping) : nil)
                guard let destination = made, let number = destination.objectID.referenceNumber else { continue }
                guard destination.entityName == destinationName else {
                    throw MigrationError(.invalidMapping, "the mapping \(entityMapping.name) made a \(destination.entityName) object")
                }
                mapped.append((number, try destination.row(for: layout, version: row.version)))
            }
            return [(destinationName, mapped)]
        } finish: {
            for entityMapping in mapping.entityMappings {
                try entityMapping.policy?.endEntityMapping(entityMapping, in: session)
            }
            var extra: [String: [(Int64, Row)]] = [:]
            for id in session.insertionOrder {
                guard let object = session[inserted: id], let layout = destinationModel.layout(for: object.entityName),
                    let reference = id.referenceNumber
                else { continue }
                extra[object.entityName, default: []].append((reference, try object.row(for: layout, version: 1)))
            }
            return extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    /// Reference counters per destination hierarchy: the highest of the source hierarchies that
    /// end in it, so that numbers are never handed out twice.
    private func destinationCounters(from metadata: [String: MetadataValue], renames: [String: String]) -> [String: Int64] {
        guard case .dictionary(let counters)? = metadata[PersistentStore.nextReferencesKey] else { return [:] }
        var result: [String: Int64] = [:]
        for (root, value) in counters {
            guard case .integer(let next) = value else { continue }
            for entity in MappingModel.destinationHierarchy(of: root, in: sourceModel) {
                guard let target = renames[entity] else { continue }
                let destinationRoot = MappingModel.root(of: target, in: destinationModel)
                result[destinationRoot] = max(result[destinationRoot] ?? 1, next)
            }
        }
        return result
    }

    private func destinationMetadata(
        from metadata: [String: MetadataValue], renames: [String: String], counters: [String: Int64]
    ) -> [String: MetadataValue] {
        var result = metadata
        for (key, value) in destinationModel.storeMetadata(forConfigurationName: nil) { result[key] = value }
        if destinationModel.versionHistory.isEmpty { result[PersistentStore.modelVersionHistoryKey] = nil }
        result[PersistentStore.nextReferencesKey] = .dictionary(counters.mapValues(MetadataValue.integer))
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
