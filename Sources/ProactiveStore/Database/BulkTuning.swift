import Foundation
import GRDB

// MARK: - Tuning the write connection for bulk work

extension ProactiveDatabase {
    /// Page cache of the write connection during bulk work, in KiB (SQLite's
    /// default is 2 MiB). An import of time-ordered donations inserts into
    /// the `(user, date_ms)` index at one place per user, so the last leaf of
    /// every active user is hot: with the default cache those leaves were
    /// read back from the file over and over (1.4 million `pread`s for
    /// 1,000,000 donations of 1,000 users). 32 MiB holds them for thousands
    /// of users; a mass deletion (retention) gains the same way. The cache
    /// is bounded, so memory stays flat in the file size.
    public static let bulkCacheKiB = 32 * 1024
    /// WAL pages between automatic checkpoints during bulk work (SQLite's
    /// default is 1,000). A batch of 5,000 donations already dirties more pages than
    /// that, so with the default every commit also ran a checkpoint (copy
    /// the WAL into the file, two fsyncs); at 10,000 pages (~40 MB of WAL) a
    /// checkpoint writes a hot page once for several batches.
    public static let bulkCheckpointPages = 10_000

    /// Tunes the write connection for bulk work for as long as it is open
    /// (`bulkCacheKiB`, `bulkCheckpointPages`): for a long-running writer that
    /// stores batches many times a second (`proactive serve`). Durability and
    /// crash safety are as without it.
    public func tuneForSustainedWrites() throws(StoreError) {
        try StoreError.wrap("tuning the write connection") {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = -\(Self.bulkCacheKiB); PRAGMA wal_autocheckpoint = \(Self.bulkCheckpointPages)")
            }
        }
    }

    /// Runs `body` with the write connection tuned for bulk work
    /// (`bulkCacheKiB`, `bulkCheckpointPages`), then restores its settings
    /// and checkpoints what was left in the WAL without waiting for readers
    /// (`PASSIVE`). Transactions, durability (WAL, `synchronous = NORMAL`)
    /// and crash safety are as without it. Best effort: if a pragma fails,
    /// `body` runs untuned. `body` uses the database as usual (it must not
    /// be inside a `writer` access already).
    public func bulkTuned<Result>(_ body: () throws -> Result) rethrows -> Result {
        let saved = try? writer.writeWithoutTransaction { db in
            let settings = (cache: try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000,
                            checkpoint: try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? 1000)
            try db.execute(sql: """
                PRAGMA cache_size = -\(Self.bulkCacheKiB);
                PRAGMA wal_autocheckpoint = \(Self.bulkCheckpointPages)
                """)
            return settings
        }
        defer {
            if let saved {
                try? writer.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA cache_size = \(saved.cache); PRAGMA wal_autocheckpoint = \(saved.checkpoint)")
                    _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
                }
            }
        }
        return try body()
    }
}
