import Foundation
import GRDB

// MARK: - Retrying what SQLite refuses without waiting

/// Retries an operation that SQLite refused with `SQLITE_BUSY` although a
/// busy timeout is set.
///
/// The busy timeout makes a connection wait for another process's lock in
/// ordinary reads and writes, but not everywhere: switching a brand-new file
/// to WAL mode (`PRAGMA journal_mode = WAL`, run when a `DatabasePool`
/// opens) fails at once while another process is doing the same. Those
/// operations are retried here with a short, growing pause until
/// `ProactiveDatabase.busyTimeout` has passed, so concurrent first opens of a
/// store succeed instead of reporting "database is locked".
enum BusyRetry {
    /// Runs `body`, retrying it while it throws `SQLITE_BUSY` / `SQLITE_LOCKED`
    /// and `timeout` seconds have not passed; other errors pass through at once.
    static func run<T>(timeout: TimeInterval = ProactiveDatabase.busyTimeout, _ body: () throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(timeout * 1000))
        var pause = Duration.milliseconds(5)
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where isBusy(error) && clock.now < deadline {
                Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
                pause = min(pause * 2, .milliseconds(200))
            }
        }
    }

    static func isBusy(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }
}
