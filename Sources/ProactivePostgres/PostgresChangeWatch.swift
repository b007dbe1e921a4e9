import Foundation
import ProactiveStore
import Synchronization

// MARK: - Commits, deletions and donations by any instance

/// `StoreChangeWatch` on a PostgreSQL database: how an instance holding live models learns,
/// before its next answer, what any other instance or the CLI committed.
///
/// It asks the server through a `PostgresStoreMarks` (a connection of its own, made again after the
/// server went away; shared with the backend's other watches and its credential store), which reads
/// in one round trip:
/// - `mark()`: the erasure journal's last sequence number (`proactive_sequence`'s
///   `model_erasure` row), which every deletion of a donation of a user with a saved state
///   advances in the deleting transaction and which is never given again;
/// - `donationMark()`: the largest donation id ever given (`proactive_sequence`'s `donation`
///   row, or the largest held);
/// - `version()`: the server's write-ahead log position, which moves with every commit (of
///   any database of the cluster: a move with nothing of ours changed only costs a re-read).
///
/// A reading is shared: within a task whose `StoreFreshness.since` is set (a request, from its
/// arrival), any reading sent at or after that instant answers, so a request's credential check,
/// marks and version cost one round trip, and concurrent requests share theirs. Without it (and
/// after a write through the same backend) each call asks the server.
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
public final class PostgresChangeWatch: StoreChangeWatch, Sendable {
    private let marksReader: PostgresStoreMarks

    /// Opens a connection of its own to the database at `url`.
    /// - Throws: what `PostgresStoreDatabase.init(url:)` throws.
    public convenience init(url: String) throws(StoreError) {
        let reader = PostgresStoreMarks(url: url, writes: nil)
        try reader.connect()
        self.init(reader)
    }

    /// Watches through `reader` (connected or not: until it connects, every answer is "cannot tell").
    init(_ reader: PostgresStoreMarks) {
        marksReader = reader
    }

    public func version() -> Int64? { marksReader.read()?.version }

    public func mark() -> Int64 { marks().erasures }

    public func donationMark() -> Int64? { marks().donations }

    public func marks() -> (erasures: Int64, donations: Int64?) {
        guard let reading = marksReader.read() else { return (.max, nil) }
        return (reading.erasures, reading.donations)
    }

    public func donors(after: Int64, through: Int64) -> Set<String>? {
        guard let rows = try? marksReader.database().withSession({ session in
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

// MARK: - One round trip for every mark

/// The marks an instance looks at before each answer, read together in one round trip on a
/// connection of its own: the credentials' version (`PostgresCredentialStore.version`), the
/// erasure journal's and the donations' marks, and the WAL position (`PostgresChangeWatch`).
///
/// A reading is kept with the instant its query was sent. `read()` answers with the newest one
/// sent at or after `StoreFreshness.since` (or, without it, after the call began) and after the
/// last commit of a writing transaction through `writes`; else it waits for such a query already
/// in flight, or sends one. So every write acknowledged before a request arrived (through any
/// instance or the CLI) is in what the request reads, and its own writes are in what it reads next.
final class PostgresStoreMarks: Sendable {
    struct Reading: Equatable {
        var credentials: Int64
        var erasures: Int64
        var donations: Int64
        var version: Int64
    }

    private let url: String
    /// The backend's own handle, whose commits make an older reading stale (nil: a watch alone).
    private let writes: PostgresStoreDatabase?
    private struct State {
        var database: PostgresStoreDatabase?
        /// The newest reading and when its query was sent.
        var last: (sent: ContinuousClock.Instant, reading: Reading)?
        /// The newest query in flight: when it was sent.
        var inFlight: ContinuousClock.Instant?
    }
    private let state = Mutex(State())
    /// Signalled when a query in flight ends.
    private let ended = NSCondition()

    init(url: String, writes: PostgresStoreDatabase?) {
        self.url = url
        self.writes = writes
    }

    /// Connects now when not connected.
    /// - Throws: what `PostgresStoreDatabase.init(url:)` throws.
    func connect() throws(StoreError) { _ = try database() }

    /// Its connection to the database, made at the first call.
    func database() throws(StoreError) -> PostgresStoreDatabase {
        if let database = state.withLock({ $0.database }) { return database }
        let made = try PostgresStoreDatabase(url: url)
        return state.withLock { state in
            if let database = state.database { return database }
            state.database = made
            return made
        }
    }

    /// A reading fresh enough for the calling task (see the type); nil when the server cannot be asked.
    func read() -> Reading? {
        var since = StoreFreshness.since ?? .now
        if let committed = writes?.lastWriteCommitted, committed > since { since = committed }
        ended.lock()
        while true {
            let (last, inFlight) = state.withLock { ($0.last, $0.inFlight) }
            if let last, last.sent >= since {
                ended.unlock()
                return last.reading
            }
            guard let inFlight, inFlight >= since else { break }
            ended.wait()
        }
        let sent = ContinuousClock.now
        state.withLock { $0.inFlight = sent }
        ended.unlock()
        let reading = ask()
        ended.lock()
        state.withLock { state in
            if let reading, state.last.map({ $0.sent < sent }) ?? true { state.last = (sent, reading) }
            if state.inFlight == sent { state.inFlight = nil }
        }
        ended.broadcast()
        ended.unlock()
        return reading
    }

    private func ask() -> Reading? {
        guard let row = try? database().withSession({ session in
            try session.query("""
                SELECT (SELECT value FROM proactive_sequence WHERE name = 'credential'),
                       (SELECT value FROM proactive_sequence WHERE name = 'model_erasure'),
                       GREATEST((SELECT value FROM proactive_sequence WHERE name = 'donation'), (SELECT coalesce(max(id), 0) FROM donation)),
                       (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint
                """).rows.first
        }), let credentials = try? row.decode(0, as: Int64?.self), let erasures = try? row.decode(1, as: Int64.self),
              let donations = try? row.decode(2, as: Int64.self), let version = try? row.decode(3, as: Int64.self)
        else { return nil }
        // The credential row comes with migration v3; a database read before it has none (never read then: a
        // NULL there leaves no reading).
        return Reading(credentials: credentials, erasures: erasures, donations: donations, version: version)
    }
}
