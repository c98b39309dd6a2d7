import Foundation

extension SQLiteStore {
    /// Empties the SQLite store at `url` in place (Core Data's SQLite store truncates rather
    /// than deletes): every table, index, trigger and view is dropped in one write transaction,
    /// so that any connection still open on the file — a store another coordinator or process
    /// has added — reads an empty database from its next transaction, never a file pulled from
    /// under it; the freed pages are then given back (`VACUUM`) and the write-ahead log emptied.
    /// The externally stored values beside it (`.<name>_SUPPORT`) are deleted. The file that
    /// remains opens as a new store. No file at `url`: nothing to do.
    ///
    /// - Throws: ``StoreError`` `.notAStore` for a file that is not a SQLite database (it is
    ///   left as it is); what SQLite reports otherwise (a lock held past the timeout).
    static func emptyStoreFile(at url: URL, options: [String: any Sendable]) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try checkHeader(of: url)
        let timeout = (options[PersistentStoreOption.timeout] as? Double).map { Duration.milliseconds(Int64($0 * 1000)) } ?? defaultTimeout
        do {
            let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: timeout)
            try connection.writeTransaction {
                var objects: [(type: String, name: String)] = []
                try connection.statement("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
                    .forEachRow { row in
                        if case .text(let type) = row.value(0), case .text(let name) = row.value(1) { objects.append((type, name)) }
                    }
                for object in objects {
                    // Dropping a table drops its indexes and triggers with it.
                    try connection.execute("DROP \(object.type == "view" ? "VIEW" : "TABLE") IF EXISTS \"\(object.name.replacingOccurrences(of: "\"", with: "\"\""))\"")
                }
            }
            try connection.execute("VACUUM")
            _ = try connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch let error as SQLiteError {
            throw error.storeError(file: url)
        }
        let support = url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT")
        if FileManager.default.fileExists(atPath: support.path) { try FileManager.default.removeItem(at: support) }
    }
}
