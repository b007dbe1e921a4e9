import Foundation
@testable import ProactivePostgres
import ProactiveStore
import StoreConformance
import Testing

/// When the server goes away and comes back: a connection the server closed is made again, a call
/// on a paused server gives up within the URL's `timeout`, and the pool lets calls overlap.
@Suite("PostgreSQL: reconnection, deadlines, the pool", PostgresTestServer.available)
struct PostgresResilienceTests {
    /// A connection terminated while idle (as a server restart does) is dropped before it is lent:
    /// the next call connects again and succeeds.
    @Test func aConnectionClosedWhileIdleIsMadeAgainByTheNextCall() throws {
        let database = try TestDatabase()
        let store = try database.open()
        let before = try store.backendPID()
        try database.terminate(before)
        #expect(try PostgresDonationStore(database: store).count() == 0)
        #expect(try store.backendPID() != before)
        #expect(store.openConnections == 1)
    }

    /// A connection lost during a writing transaction: the call throws `.unavailable` naming the URL,
    /// its write is not stored (the server rolled it back, nothing retried it), and the next call
    /// connects again.
    @Test func aCallWhoseConnectionIsLostThrowsUnavailableAndTheNextConnects() throws {
        let database = try TestDatabase()
        let store = try database.open()
        let privacy = PostgresPrivacyStore(database: store)
        let call = OnThread {
            try PostgresErrors.wrap("pausing slowly") {
                try store.inTransaction(writing: true) { session in
                    try session.execute("UPDATE privacy_setting SET recording_paused = true, paused_at_ms = 0 WHERE id = 1")
                    try session.execute("SELECT pg_sleep(30)")
                }
            }
        }
        let sleeping = try waitFor { try database.backends(sleeping: true).first }
        try database.terminate(sleeping)
        let error = try #require(call.wait(seconds: 10).error as? StoreError)
        #expect(error.code == .unavailable)
        #expect(error.message.hasPrefix("pausing slowly: \(store.displayURL) cannot be reached now ("), "\(error.message)")
        #expect(error.message.hasSuffix("the connection is made again on the next call"), "\(error.message)")
        #expect(try privacy.isRecordingPaused() == false)
        #expect(store.openConnections == 1)
    }

    /// A paused server process (SIGSTOP) does not hold a call for ever: it throws `.unavailable`
    /// once the URL's `timeout` has passed, and after SIGCONT the next call succeeds on a new connection.
    @Test func aCallOnAPausedServerGivesUpAtTheDeadline() throws {
        let database = try TestDatabase()
        let store = try database.open(options: "timeout=1")
        let donations = PostgresDonationStore(database: store)
        let paused = try store.backendPID()
        #expect(kill(pid_t(paused), SIGSTOP) == 0)
        var resumed = false
        defer { if !resumed { kill(pid_t(paused), SIGCONT) } }
        let clock = ContinuousClock()
        var error: StoreError?
        let waited = clock.measure { error = storeError { _ = try donations.count() } }
        #expect(kill(pid_t(paused), SIGCONT) == 0)
        resumed = true
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("no answer within 1 s") == true, "\(error?.message ?? "no error")")
        #expect(waited >= .milliseconds(990) && waited < .seconds(3), "\(waited)")
        #expect(try donations.count() == 0)
        #expect(try store.backendPID() != paused)
    }

    /// The change watch on a paused server answers "cannot tell" (a holder drops its models) within the
    /// deadline, and real marks again once the server answers, on a new connection.
    @Test func theChangeWatchCannotTellWhilePausedAndTellsAgainAfter() throws {
        let database = try TestDatabase()
        let watch = try PostgresChangeWatch(url: database.url + "&timeout=1")
        let seen = watch.marks()
        #expect(seen.erasures == 0 && seen.donations == 0)
        let paused = try #require(try database.backends().first)  // the watch's only connection
        #expect(kill(pid_t(paused), SIGSTOP) == 0)
        let blind = watch.marks()
        let version = watch.version()  // the next call: a new connection, to a new server process
        #expect(kill(pid_t(paused), SIGCONT) == 0)
        #expect(blind.erasures == .max && blind.donations == nil)
        #expect(version != nil)
        let again = watch.marks()
        #expect(again.erasures == seen.erasures && again.donations == seen.donations)
        #expect(try !database.backends().contains(paused))
    }

    /// A parameter far larger than the socket's buffer is sent whole on the non-blocking connection
    /// (flushed as `poll` allows), and a large result read whole.
    @Test func largeParametersAndResultsPassTheNonBlockingSocket() throws {
        let database = try TestDatabase()
        let store = try database.open()
        let bytes = PostgresBytes(bytes: (0 ..< 8 << 20).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let echoed = try store.withSession { session in
            try session.query("""
                SELECT length(b), get_byte(b, 5000000), get_byte(b, 8388607), repeat('x', 4000000) FROM (SELECT \(bytes) AS b) AS sent
                """).rows[0]
        }
        #expect(try echoed.decode(0, as: Int.self) == 8 << 20)
        #expect(try echoed.decode(1, as: Int.self) == Int(UInt8(truncatingIfNeeded: 5_000_000 &* 31)))
        #expect(try echoed.decode(2, as: Int.self) == Int(UInt8(truncatingIfNeeded: 8_388_607 &* 31)))
        #expect(try echoed.decode(3, as: String.self).count == 4_000_000)
    }

    /// Two calls at once run on two connections: a quick one completes while a slow one sleeps (2 s). With
    /// `pool=1` the quick one waits for the slow one.
    @Test func concurrentCallsOverlapUpToThePoolSize() throws {
        let database = try TestDatabase()
        for (pool, overlap) in [(4, true), (1, false)] {
            let store = try database.open(options: "pool=\(pool)")
            let slept = Flag()
            let slow = OnThread {
                try store.withSession { session in
                    try session.execute("SELECT pg_sleep(2)")
                    slept.set()  // before the connection goes back to the pool
                }
            }
            _ = try waitFor { try database.backends(sleeping: true).first }
            _ = try store.withSession { session in try session.query("SELECT 1") }
            #expect(slept.isSet == !overlap, "pool=\(pool)")
            #expect(try slow.wait(seconds: 10).error == nil)
            #expect(store.openConnections == (overlap ? 2 : 1), "pool=\(pool)")
        }
    }
}

// MARK: - Helpers

/// `body` run on a thread of its own (blocking calls on the concurrency pool would starve other tests).
final class OnThread: @unchecked Sendable {  // `outcome` only under `done`'s lock
    private let done = NSCondition()
    private var outcome: (any Error)??

    init(_ body: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            var failure: (any Error)?
            do { try body() } catch { failure = error }
            done.lock()
            outcome = .some(failure)
            done.broadcast()
            done.unlock()
        }
        thread.start()
    }

    struct Outcome { var error: (any Error)? }

    /// Waits for `body` to return, at most `seconds`.
    /// - Throws: `Timeout` when it has not.
    func wait(seconds: Double) throws -> Outcome {
        let deadline = Date().addingTimeInterval(seconds)
        done.lock()
        defer { done.unlock() }
        while outcome == nil { if !done.wait(until: deadline) { throw Timeout(what: "the call on its own thread") } }
        return Outcome(error: outcome!)
    }
}

/// A flag set once, read from any thread.
final class Flag: @unchecked Sendable {  // `value` only under `lock`
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

struct Timeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "\(what) did not finish in time" }
}

/// Asks `probe` every 10 ms until it answers, at most `seconds`.
func waitFor<T>(seconds: Double = 10, _ probe: () throws -> T?) throws -> T {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if let value = try probe() { return value }
        Thread.sleep(forTimeInterval: 0.01)
    }
    throw Timeout(what: "waiting for the server")
}
