import CSQLite

/// The write-ahead log as the store's writer keeps it: how long it is, and checkpoints run when
/// the store decides (``SQLiteStore`` restarts the log itself, because its pinned snapshots
/// keep SQLite's automatic checkpoint from ever restarting it).
extension SQLiteConnection {
    /// After each commit of this connection, sets ``logFrames`` to the number of frames in the
    /// write-ahead log. This takes the place of SQLite's automatic checkpoint on this connection
    /// (`sqlite3_wal_hook` replaces it): the caller checkpoints.
    func countLogFrames() {
        // Unretained: the hook is the handle's, which `deinit` closes before the connection goes.
        sqlite3_wal_hook(
            handle,
            { context, _, _, count in
                guard let context else { return SQLITE_OK }
                Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().logFrames.withLock { $0 = Int(count) }
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The automatic checkpoint's threshold in pages (`PRAGMA wal_autocheckpoint`, SQLite's
    /// 1,000 unless the store's pragmas set another); 0 or less when it is off.
    func automaticCheckpointPages() throws -> Int {
        guard case .integer(let pages)? = try scalar("PRAGMA wal_autocheckpoint") else { return 0 }
        return Int(pages)
    }

    /// Copies as much of the write-ahead log into the database as no reader still needs, waiting
    /// for no one (`SQLITE_CHECKPOINT_PASSIVE`). `true` when every frame is copied, so that a
    /// read transaction begun now reads the database file alone and does not keep the log from
    /// restarting; `false` also when another connection is checkpointing.
    func checkpointWithoutWaiting() -> Bool {
        var logged: Int32 = 0
        var copied: Int32 = 0
        let result = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied)
        return result == SQLITE_OK && logged == copied
    }
}
