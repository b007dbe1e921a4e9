import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Several connections (each its own `DatabasePool`, as separate processes
/// would have) donating, one reading everything as training does, and one
/// truncating the log as deletions do, all at once on one file: nothing is
/// lost, nobody sees a half-written batch, and no "database is locked"
/// reaches a caller. `dev/concurrency.sh` does the same with processes.
@Suite("Concurrent connections on one store file")
struct ConcurrencyTests {
    /// Errors and observations from the worker threads.
    final class Log: @unchecked Sendable {
        // @unchecked: every access holds `lock`.
        private let lock = NSLock()
        private var errors: [String] = []
        private var observed: [Int] = []

        func record(_ error: any Error, _ role: String) { lock.withLock { errors.append("\(role): \(error)") } }
        func observe(_ count: Int) { lock.withLock { observed.append(count) } }
        var recordedErrors: [String] { lock.withLock { errors } }
        var observations: [Int] { lock.withLock { observed } }
    }

    static let writers = 4
    static let batches = 40
    static let batchSize = 25

    static func batch(writer: Int, number: Int) -> [Donation] {
        (0..<batchSize).map { index in
            // Every fifth donation has no identifier: it must not be lost either.
            let identifier = index % 5 == 4 ? nil : "w\(writer)-b\(number)-\(index)"
            return sample(user: "u\(writer % 2)", app: "com.example.app\(writer)", minutes: Double(number * batchSize + index), identifier: identifier)
        }
    }

    /// Regression (found by dev/concurrency.sh): processes opening a new
    /// store at the same moment raced through the migrations ("table ...
    /// already exists"). Each opener now finishes the others' work instead.
    @Test(.timeLimit(.minutes(1)))
    func manyConnectionsCreateTheSameStoreAtOnce() throws {
        for round in 0..<20 {
            let directory = try TemporaryDirectory()
            let path = directory.file("new-\(round).sqlite")
            let log = Log()
            DispatchQueue.concurrentPerform(iterations: 8) { opener in
                do {
                    let database = try ProactiveDatabase(path: path)
                    try SQLiteDonationStore(database: database).append(sample(identifier: "o\(opener)"))
                } catch {
                    log.record(error, "opener \(opener)")
                }
            }
            #expect(log.recordedErrors == [], "round \(round)")
            let database = try ProactiveDatabase(path: path)
            #expect(try database.appliedMigrations() == ProactiveDatabase.migrations.map(\.name))
            #expect(try SQLiteDonationStore(database: database).count() == 8)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func writersReaderAndCheckpointsShareOneFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("shared.sqlite")
        _ = try ProactiveDatabase(path: path)  // created once; every worker opens its own connection
        let log = Log()
        let writersDone = Log()
        let roles = Self.writers + 2
        DispatchQueue.concurrentPerform(iterations: roles) { role in
            do {
                let database = try ProactiveDatabase(path: path)
                let store = SQLiteDonationStore(database: database)
                if role < Self.writers {
                    for number in 0..<Self.batches {
                        let result = try store.append(Self.batch(writer: role, number: number), duplicates: .fail)
                        if result.inserted != Self.batchSize { log.record(StoreError(.database, "batch \(number) stored \(result.inserted)"), "writer \(role)") }
                    }
                    writersDone.observe(role)
                } else if role == Self.writers {
                    // The trainer: reads whole histories until every writer is done.
                    repeat {
                        let seen = try store.donations(forUser: "u0", in: .all).count + store.donations(forUser: "u1", in: .all).count
                        log.observe(seen)
                    } while writersDone.observations.count < Self.writers
                } else {
                    // Deletions truncate the log; they must wait for, not break, the others.
                    let privacy = SQLitePrivacyStore(database: database)
                    repeat { _ = try privacy.eraseTraces() } while writersDone.observations.count < Self.writers
                }
            } catch {
                log.record(error, "role \(role)")
                writersDone.observe(-1)
            }
        }
        #expect(log.recordedErrors == [])
        let store = try SQLiteDonationStore(path: path)
        #expect(try store.count() == Self.writers * Self.batches * Self.batchSize)
        // The trainer only ever saw whole batches, and never fewer than before.
        let observations = log.observations
        #expect(!observations.isEmpty)
        #expect(observations.allSatisfy { $0 % Self.batchSize == 0 })
        #expect(observations == observations.sorted())
        #expect(try store.database.integrityProblems() == [])
    }
}
