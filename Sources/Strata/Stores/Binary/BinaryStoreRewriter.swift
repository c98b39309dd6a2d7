import Foundation

/// Rewrites a binary store file chunk by chunk, for migrations: reads a source chunk, hands its
/// rows to a transform, writes what comes back, and swaps the new file in only when it is
/// whole — the crash-safe save's steps, with memory bounded by a chunk.
///
/// The store is locked for the whole rewrite, so no coordinator can open it meanwhile.
package struct BinaryStoreRewriter {
    /// Rows of one entity, by reference number.
    package typealias Rows = [(Int64, Row)]

    package let url: URL
    /// The source file's header.
    package let header: BinaryStoreHeader
    private let lock: StoreFileLock

    /// Locks the store and reads its header.
    ///
    /// - Throws: ``StoreError``: `.storeInUse` when a coordinator has it open, or a damaged header.
    package init(url: URL) throws {
        self.url = url
        lock = try StoreFileLock(url: url, exclusive: true)
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        header = try reader.readHeader()
    }

    /// Writes the new file: `newHeader`, then for every source chunk what `transform` makes of
    /// it, then what `finish` adds; then swaps it in (after copying the original to `backup`,
    /// when given). Nothing changes at `url` when anything throws.
    /// The source's persistent history goes to the new file (when its header keeps history)
    /// through `history`, which renames or cuts it as the migration requires.
    package func rewrite(
        to newHeader: BinaryStoreHeader, backup: URL?,
        transform: (StoreSchema.Entity, Rows) throws -> [(String, Rows)],
        finish: () throws -> [(String, Rows)],
        history: ([PersistentHistoryTransaction]) -> [PersistentHistoryTransaction] = { $0 }
    ) throws {
        if let backup {
            do {
                if FileManager.default.fileExists(atPath: backup.path) { try FileManager.default.removeItem(at: backup) }
                try FileManager.default.copyItem(at: url, to: backup)
            } catch {
                throw StoreError(.writeFailed, file: backup, "cannot write the backup: \(error.localizedDescription)")
            }
        }
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        let source = try reader.readHeader()
        try BinaryStore.replaceFile(at: url, lock: lock) { writer in
            try writer.writeHeader(newHeader)
            try reader.readObjects(schema: source.schema, storeIdentifier: source.metadata[PersistentStore.storeUUIDKey]?.stringValue ?? "") {
                entityIndex, rows in
                for (entity, mapped) in try transform(source.schema.entities[entityIndex], rows) where !mapped.isEmpty {
                    try writer.writeObjects(entity: entity, rows: mapped.lazy.map { (key: $0.0, value: $0.1) })
                }
            }
            for (entity, rows) in try finish() where !rows.isEmpty {
                try writer.writeObjects(entity: entity, rows: rows.lazy.map { (key: $0.0, value: $0.1) })
            }
            try writer.writeHistory(history(reader.history))
        }
    }
}
