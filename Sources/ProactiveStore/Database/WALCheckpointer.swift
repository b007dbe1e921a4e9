import Foundation
import GRDB
import Synchronization

// MARK: - WAL checkpoints off the commit path

/// Checkpoints the store's WAL from a thread and a connection of its own, for
/// a long-running writer (`proactive serve`).
///
/// SQLite checkpoints automatically inside the commit that takes the WAL past
/// `wal_autocheckpoint` pages: that commit copies the WAL into the file and
/// syncs it, and every writer waiting behind it waits too (the service's
/// slowest donation answers were those). While a checkpointer runs, the write
/// connection's automatic checkpoints are off (`wal_autocheckpoint = 0`) and
/// this thread runs a `PASSIVE` checkpoint every `interval` instead: it takes
/// no write lock, so commits go on while it copies and syncs. When a sustained
/// flood keeps the WAL from ever being wholly copied (it then grows, since a
/// WAL starts over only once everything in it is in the file), a WAL past
/// `restartPages` is checkpointed with `RESTART`, which holds writers back
/// for that one checkpoint and lets the next commit start the WAL over.
///
/// Durability is unchanged: a commit is in the WAL (`synchronous = NORMAL`)
/// whether or not it was checkpointed, and a store reopened after a crash
/// replays the WAL. `stop` restores the writer's automatic checkpoints and
/// checkpoints once more.
public final class WALCheckpointer: Sendable {
    public let interval: Duration
    public let restartPages: Int
    private let database: ProactiveDatabase
    private let connection: DatabaseQueue
    private let condition = NSCondition()
    private struct State: Sendable {
        var stopping = false
        var finished = false
        var checkpoints = 0
        var restarts = 0
        var failure: String?
    }
    private let state: Mutex<State>
    private let savedAutocheckpoint: Int

    /// Starts checkpointing `database` (a file store) in the background.
    /// - Throws: `StoreError` when the store is in memory or its file cannot be opened.
    public init(database: ProactiveDatabase, interval: Duration = .milliseconds(500), restartPages: Int = 50_000) throws(StoreError) {
        guard let path = database.path else { throw StoreError(.invalidRequest, "an in-memory store has no WAL to checkpoint") }
        self.database = database
        self.interval = interval
        self.restartPages = restartPages
        state = Mutex(State())
        connection = try StoreError.wrap("opening \(path) for checkpoints") {
            try BusyRetry.run { try DatabaseQueue(path: path, configuration: ProactiveDatabase.configuration()) }
        }
        savedAutocheckpoint = try StoreError.wrap("turning the write connection's automatic checkpoints off") {
            try database.writer.writeWithoutTransaction { db in
                let saved = try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? 1000
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                return saved
            }
        }
        let thread = Thread { [self] in run() }
        thread.name = "proactive.checkpoint"
        thread.start()
    }

    /// Checkpoints run so far (`PASSIVE` and `RESTART`), the `RESTART`s among them, and the last
    /// failure (a checkpoint that failed is tried again at the next interval).
    public var counts: (checkpoints: Int, restarts: Int, failure: String?) {
        state.withLock { ($0.checkpoints, $0.restarts, $0.failure) }
    }

    /// Stops the thread (waiting for a checkpoint under way), turns the write connection's
    /// automatic checkpoints back on and checkpoints once more (`PASSIVE`). Idempotent.
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        condition.lock()
        condition.broadcast()
        while !state.withLock({ $0.finished }) { condition.wait() }
        condition.unlock()
        guard first else { return }
        let saved = savedAutocheckpoint
        try? database.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = \(saved)") }
        _ = try? checkpoint("PASSIVE")
    }

    /// Runs a checkpoint of `mode`: the WAL's pages, and those of them now in the file.
    @discardableResult
    func checkpoint(_ mode: String) throws -> (log: Int, copied: Int) {
        let row = try connection.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(\(mode))") }
        state.withLock { $0.checkpoints += 1 }
        return (row?[1] ?? 0, row?[2] ?? 0)
    }

    private func run() {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        condition.lock()
        while !state.withLock({ $0.stopping }) {
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            if state.withLock({ $0.stopping }) { break }
            condition.unlock()
            do {
                let pages = try checkpoint("PASSIVE")
                if pages.log > restartPages, pages.copied < pages.log {
                    try checkpoint("RESTART")
                    state.withLock { $0.restarts += 1 }
                }
                state.withLock { $0.failure = nil }
            } catch {
                state.withLock { $0.failure = "\(error)" }
            }
            condition.lock()
        }
        state.withLock { $0.finished = true }
        condition.broadcast()
        condition.unlock()
    }
}
