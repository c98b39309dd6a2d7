import Foundation
import Logging

/// Keeping the write-ahead log short while snapshots are pinned.
///
/// SQLite starts its log over only when every frame is copied into the database and no read
/// transaction still reads from the log. The store always holds one: the current generation's
/// snapshot, begun right after the save before. Left to SQLite's automatic checkpoint, the log
/// would never start over while the store is open — it grew by every save (19.7 MB after
/// 1,000 one-object saves), and every save past 1,000 frames paid a checkpoint that could not
/// finish (two `fsync`s): one-object saves went from 0.3 ms to 0.55 ms.
///
/// So the writer counts the log's frames in place of the automatic checkpoint
/// (``SQLiteConnection/countLogFrames()``), and a write (a save, a batch request, a
/// deletion of history) that finds the log past its threshold (`wal_autocheckpoint`: 1,000
/// frames unless the store's pragmas say otherwise) first copies the log into the database, then
/// moves each generation's snapshot to a read transaction begun after the copy. That one sees
/// the same database when nothing was committed between (the watcher's `data_version` has not
/// moved), and reads the database file alone; the write then starts the log over. When a
/// context keeps an older generation, or another process commits or reads, the log goes on and
/// the next write tries again, as SQLite's checkpoint would. (The reference numbers a save
/// takes and the metadata it writes alone are small writes that a save follows.)
extension SQLiteStore {
    /// Before a write: when the log is past its threshold, lets the write start it over (above).
    func restartLogIfDue(writer: SQLiteConnection) {
        guard logFramesBeforeRestart > 0, writer.logFrames.withLock({ $0 }) >= logFramesBeforeRestart else { return }
        do {
            guard let before = try dataVersionNow(), writer.checkpointWithoutWaiting() else { return }
            let snapshots = generationSnapshots.withLock { $0.compactMap(\.snapshot) }
            for snapshot in snapshots {
                guard try snapshot.renew(unless: { try dataVersionNow() != before }) else { return }
            }
        } catch {
            // The write goes on: the log stays as it is until a later write restarts it.
            Logger(label: "strata.sqlite-store").warning(
                "cannot checkpoint the write-ahead log", metadata: ["store": "\(identifier)", "error": "\(error)"])
        }
    }
}

/// A generation's snapshot, held weakly: the store renews it while it lasts, and does not make
/// it last.
struct WeakReadSnapshot: Sendable {
    weak var snapshot: SQLiteReadSnapshot?
}
