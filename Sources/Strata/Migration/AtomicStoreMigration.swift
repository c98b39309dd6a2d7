#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Migrates the file of an atomic store other than the binary store (the XML store), as Core
/// Data migrates an atomic store: every object loaded with the step's source model, mapped by
/// ``RowMigration`` (so inferred mappings, Core Data's mapping models and custom policies alike),
/// and written whole with the destination model, keeping the store's UUID and every object's
/// reference number. Each step writes a new file beside the store; the store is replaced, by
/// one `rename`, only when the last step's file is whole, so a failure or a crash at any moment
/// leaves it as it was.
enum AtomicStoreMigration {
    static func migrate(
        storeAt url: URL, type: StoreType, storeClass: AtomicStore.Type, steps: [MigrationStep], fillsMissingValues: Bool, backup: URL?,
        isCancelled: () -> Bool, progress: (MigrationProgress) -> Void
    ) throws -> [MigrationReport] {
        if let backup {
            try? FileManager.default.removeItem(at: backup)
            do {
                try FileManager.default.copyItem(at: url, to: backup)
            } catch {
                throw StoreError(.writeFailed, file: backup, "cannot keep a copy of the store: \(error.localizedDescription)")
            }
        }
        var current = url
        var written: [URL] = []
        defer { for file in written where file != url { try? FileManager.default.removeItem(at: file) } }
        var reports: [MigrationReport] = []
        for step in steps {
            let next = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).strata-migrating-\(UUID().uuidString)")
            written.append(next)
            reports.append(
                try migrate(
                    current, to: next, type: type, storeClass: storeClass, step: step, fillsMissingValues: fillsMissingValues, isCancelled: isCancelled,
                    progress: progress))
            current = next
        }
        if current != url {
            guard rename(current.path, url.path) == 0 else {
                throw StoreError(.writeFailed, file: url, "cannot move the migrated store into place: \(String(cString: strerror(errno)))")
            }
        }
        return reports
    }

    /// One step: the store at `source` read with the step's source model, its objects mapped and
    /// written to `destination` (a new file) with the destination model.
    private static func migrate(
        _ source: URL, to destination: URL, type: StoreType, storeClass: AtomicStore.Type, step: MigrationStep, fillsMissingValues: Bool,
        isCancelled: () -> Bool, progress: (MigrationProgress) -> Void
    ) throws -> MigrationReport {
        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: step.source)
        let reader = try AtomicStore.$creatingType.withValue(type) {
            try storeClass.init(coordinator: sourceCoordinator, configurationName: nil, url: source, options: [PersistentStoreOption.readOnly: true])
        }
        let metadata = reader.metadata
        try step.source.checkWroteStore(withMetadata: metadata)
        let tables = try reader.loadTables(model: step.source)
        let store = reader.identifier
        let storeWide = storeClass.numbersObjectsStoreWide
        withExtendedLifetime(reader) {}

        var manager = MigrationManager(sourceModel: step.source, destinationModel: step.destination, stageName: step.name)
        manager.fillsMissingValues = fillsMissingValues
        let renames = step.mapping.entityRenames
        var highest: Int64 = 0
        var counters: [String: Int64] = [:]
        for (entity, table) in tables {
            let root = MappingModel.root(of: entity, in: step.source)
            for (reference, _) in table {
                counters[root] = max(counters[root] ?? 1, reference + 1)
                highest = max(highest, reference)
            }
        }
        let rows = try RowMigration(
            manager: manager, mapping: step.mapping, store: store,
            nextReferences: MigrationManager.destinationCounters(from: counters, renames: renames, source: step.source, destination: step.destination),
            total: tables.values.reduce(0) { $0 + $1.count })
        if storeWide { rows.session.storeWideNextReference = highest + 1 }

        var mapped: [String: [(Int64, Row)]] = [:]
        for entity in StoreSchema(model: step.source, configuration: nil).entities {
            if isCancelled() { throw MigrationError(.cancelled, "the migration was cancelled; the store is unchanged") }
            guard let table = tables[entity.name] else { continue }
            let chunk = table.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
            for (name, made) in try rows.map(entity, chunk, progress: progress) { mapped[name, default: []] += made }
        }
        for (name, made) in try rows.finish() { mapped[name, default: []] += made }

        // The new file starts as a copy of the old, so that the store opens with its UUID.
        do {
            try FileManager.default.copyItem(at: source, to: destination)
        } catch {
            throw StoreError(.writeFailed, file: destination, "cannot write the migrated store: \(error.localizedDescription)")
        }
        let destinationCoordinator = PersistentStoreCoordinator(managedObjectModel: step.destination)
        let writer = try AtomicStore.$creatingType.withValue(type) {
            try storeClass.init(coordinator: destinationCoordinator, configurationName: nil, url: destination, options: [:])
        }
        var tablesOut: [String: Generation.Table] = [:]
        for (entity, chunk) in mapped {
            do {
                tablesOut[entity] = try RowTable(rows: chunk.map { (reference: $0.0, row: $0.1) })
            } catch {
                throw MigrationError(.dataLoss, "\(step.name): two \(entity) objects would have the reference number \(error.reference)")
            }
        }
        writer.replaceMetadata(MigrationManager.migratedMetadata(from: metadata, to: step.destination, renames: renames))
        writer.addCacheNodes(Set(AtomicStore.nodes(from: tablesOut, store: writer.identifier, model: step.destination)))
        try writer.save()
        withExtendedLifetime(destinationCoordinator) {}
        return rows.report
    }
}
