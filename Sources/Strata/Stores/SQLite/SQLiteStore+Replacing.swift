import CSQLite
import Foundation

extension SQLiteStore {
    /// Core Data's replace, for a SQLite store (see ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:)``).
    static func replaceStoreFile(at destination: URL, destinationOptions: [String: any Sendable], withStoreFrom source: URL) throws {
        guard !StoreFileMigration.hasNoStoreFile(at: source) else {
            throw StoreError(.notAStore, file: source, "there is no store here to copy")
        }
        _ = try metadataForPersistentStore(at: source)
        try checkHeader(of: destination)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let timeout = (destinationOptions[PersistentStoreOption.timeout] as? Double).map { Duration.milliseconds(Int64($0 * 1000)) }
            ?? defaultTimeout
        let externalData = try ExternalDataSwap(from: externalDataFolder(of: source), to: externalDataFolder(of: destination))
        do {
            let reader = try SQLiteConnection(url: source, readOnly: true, create: false, busyTimeout: timeout)
            let writer = try SQLiteConnection(url: destination, readOnly: false, create: true, busyTimeout: timeout)
            try writer.replaceContent(with: reader)
            // Not TRUNCATE: it would wait for the readers of coordinators that still hold the store.
            _ = try? writer.scalar("PRAGMA wal_checkpoint(PASSIVE)")
        } catch let error as SQLiteError {
            externalData.undo()
            throw error.storeError(file: destination)
        } catch {
            externalData.undo()
            throw error
        }
        externalData.finish()
    }

    /// Where a store file keeps the values of its attributes stored outside it.
    static func externalDataFolder(of store: URL) -> URL {
        store.deletingLastPathComponent().appendingPathComponent(".\(store.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA")
    }
}

/// The externally stored values of a store being replaced: the source's files are copied into
/// the destination's folder before the database (they are named by UUID, so the old database
/// never sees them), and the destination's files the source does not have are deleted after
/// it, or the copied ones when the replace fails. A file both have is kept: Core Data never
/// rewrites one (a new value gets a new UUID), so the same name is the same bytes — a backup
/// of the same store.
private struct ExternalDataSwap {
    let folder: URL
    let added: [String]
    let stale: [String]

    init(from source: URL, to destination: URL) throws {
        let manager = FileManager.default
        let incoming = Set((try? manager.contentsOfDirectory(atPath: source.path)) ?? [])
        let present = Set((try? manager.contentsOfDirectory(atPath: destination.path)) ?? [])
        folder = destination
        stale = present.subtracting(incoming).sorted()
        var added: [String] = []
        do {
            if !incoming.isEmpty { try manager.createDirectory(at: destination, withIntermediateDirectories: true) }
            for name in incoming.subtracting(present).sorted() {
                try manager.copyItem(at: source.appendingPathComponent(name), to: destination.appendingPathComponent(name))
                added.append(name)
            }
        } catch {
            for name in added { try? manager.removeItem(at: destination.appendingPathComponent(name)) }
            throw StoreError(.writeFailed, file: destination, "cannot copy the store's externally stored values: \(error)")
        }
        self.added = added
    }

    func undo() {
        for name in added { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
    }

    func finish() {
        for name in stale { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
    }
}
