import Foundation
import ProactiveStore

// MARK: - Commits, deletions and donations by any instance

/// `StoreChangeWatch` on a PostgreSQL database: how an instance holding live models learns,
/// before its next answer, what any other instance or the CLI committed.
///
/// It keeps a database handle of its own (`PostgresStoreDatabase`: one connection in use, made
/// again after the server went away) and asks the server each time (one round trip for `marks()`):
/// - `mark()`: the erasure journal's last sequence number (`proactive_sequence`'s
///   `model_erasure` row), which every deletion of a donation of a user with a saved state
///   advances in the deleting transaction and which is never given again;
/// - `donationMark()`: the largest donation id ever given (`proactive_sequence`'s `donation`
///   row, or the largest held);
/// - `version()`: the server's write-ahead log position, which moves with every commit (of
///   any database of the cluster: a move with nothing of ours changed only costs a re-read).
///
/// When the server cannot be asked (down, paused past the URL's `timeout`, the connection
/// lost), the answers are "cannot tell": `nil`, or `Int64.max` for `mark()`, which a holder
/// treats as changed (the runtime drops every held model, so no answer comes from a model that
/// may hold a donation erased meanwhile) and asks again next time, on a new connection.
///
/// ```swift
/// let watch = try PostgresChangeWatch(url: "postgres://proactive@/proactive?host=/tmp/cluster")
/// let seen = watch.marks()
/// // ... another instance deletes a donation of a user with a saved state ...
/// if watch.mark() > seen.erasures { /* drop held models; their next read unlearns */ }
/// ```
public final class PostgresChangeWatch: StoreChangeWatch, @unchecked Sendable {  // the database has its own lock
    private let database: PostgresStoreDatabase

    /// Opens a connection of its own to the database at `url`.
    /// - Throws: what `PostgresStoreDatabase.init(url:)` throws.
    public init(url: String) throws(StoreError) {
        database = try PostgresStoreDatabase(url: url)
    }

    private func ask(_ query: PostgresQuery) -> PostgresRow? {
        try? database.withSession { session in try session.query(query).rows.first }
    }

    public func version() -> Int64? {
        guard let row = ask("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint") else { return nil }
        return try? row.decode(Int64.self)
    }

    public func mark() -> Int64 { marks().erasures }

    public func donationMark() -> Int64? { marks().donations }

    public func marks() -> (erasures: Int64, donations: Int64?) {
        guard let row = ask("""
            SELECT (SELECT value FROM proactive_sequence WHERE name = 'model_erasure'),
                   GREATEST((SELECT value FROM proactive_sequence WHERE name = 'donation'), (SELECT coalesce(max(id), 0) FROM donation))
            """), let erasures = try? row.decode(0, as: Int64.self), let donations = try? row.decode(1, as: Int64.self)
        else { return (.max, nil) }
        return (erasures, donations)
    }

    public func donors(after: Int64, through: Int64) -> Set<String>? {
        guard let rows = try? database.withSession({ session in
            try session.query("SELECT DISTINCT \"user\" FROM donation WHERE id > \(after) AND id <= \(through)").rows
        }) else { return nil }
        var users = Set<String>()
        for row in rows {
            guard let user = try? row.decode(String.self) else { return nil }
            users.insert(user)
        }
        return users
    }
}
