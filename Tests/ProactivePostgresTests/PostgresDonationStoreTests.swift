import Foundation
import ProactiveCore
@testable import ProactivePostgres
import ProactiveStore
import StoreConformance
import Testing

/// The donation store on PostgreSQL: the contract every store meets, idempotent re-import, the
/// constraints in the database itself, and the versioned migrations.
@Suite("PostgreSQL donation store", PostgresTestServer.available)
struct PostgresDonationStoreTests {
    @Test(arguments: DonationStoreConformance.checks)
    func conformance(check: DonationStoreConformance.Check) throws {
        let database = try TestDatabase()
        try check.run(PostgresDonationStore(database: try database.open()))
    }

    /// Appending what the store exports, again, through another connection (another instance)
    /// stores nothing new: by identifier, and by content for donations without one.
    @Test func reimportingAnExportStoresNothingNew() throws {
        let database = try TestDatabase()
        let first = PostgresDonationStore(database: try database.open())
        let donations = [sample(identifier: "a"), sample(minutes: 1), sample(user: "u2", minutes: 2, count: 3),
                         sample(minutes: 3, utcOffset: nil), sample(minutes: 4, parameters: ["n": .int(1)], context: ["focus": "work"])]
        #expect(try first.append(donations, duplicates: .skip) == AppendResult(inserted: 5, duplicates: 0))
        let exported = try first.all()
        let second = PostgresDonationStore(database: try database.open())
        #expect(try second.append(exported, duplicates: .skip) == AppendResult(inserted: 0, duplicates: 5))
        #expect(try second.append(donations, duplicates: .skip) == AppendResult(inserted: 0, duplicates: 5))
        #expect(try second.all() == exported)
    }

    /// A batch is written in a few statements, not one per donation: 500 donations committed as the
    /// service's group commit does (`appendEach(batches:)`) cost the transaction's statements and one
    /// insert, and answer per line as one statement a donation would.
    @Test func aBatchIsWrittenInOneStatement() throws {
        let database = try TestDatabase()
        let connection = try database.open()
        let store = PostgresDonationStore(database: connection)
        try store.append([sample(minutes: 0, identifier: "d0")], duplicates: .skip)
        let batch = (0 ..< 500).map { sample(minutes: Double($0), identifier: "d\($0)") }
        let before = connection.statementsSent
        let outcomes = try store.appendEach(batches: [PreparedDonations(batch)])
        // BEGIN, the writer lock, the recording check, the insert, COMMIT.
        #expect(connection.statementsSent - before == 5)
        #expect(try outcomes.map { try $0.get().map { try $0.get() } } == [[false] + Array(repeating: true, count: 499)])
        #expect(try store.count() == 500)
        let second = connection.statementsSent
        #expect(try store.append(batch + [sample(minutes: 600)], duplicates: .skip) == AppendResult(inserted: 1, duplicates: 500))
        #expect(connection.statementsSent - second == 5)
    }

    /// A batch whose insert fails (a constraint the encoding does not check, here one added behind the
    /// store's back) is written again one donation a statement, each batch in a savepoint: that batch
    /// fails with the error of its first refused donation, the others are stored.
    @Test func aFailingBatchIsAnsweredAsOneDonationAStatementWould() throws {
        let database = try TestDatabase()
        let connection = try database.open()
        try connection.executeRaw("ALTER TABLE donation ADD CONSTRAINT donation_no_vetoed CHECK (identifier IS DISTINCT FROM 'vetoed')")
        let store = PostgresDonationStore(database: connection)
        let good = [sample(minutes: 1, identifier: "g1"), sample(minutes: 2, identifier: "g2")]
        let bad = [sample(minutes: 3, identifier: "b1"), sample(minutes: 4, identifier: "vetoed"), sample(minutes: 5, identifier: "b3")]
        let outcomes = try store.appendEach(batches: [PreparedDonations(good), PreparedDonations(bad), PreparedDonations([sample(minutes: 6)])])
        #expect(try outcomes[0].get().map { try $0.get() } == [true, true])
        guard case let .failure(error) = outcomes[1] else { Issue.record("the batch with a refused donation was stored"); return }
        #expect(error.code == .database)
        #expect(error.message.contains("appending 1 donations") && error.message.contains("donation_no_vetoed"))
        #expect(try outcomes[2].get().map { try $0.get() } == [true])
        #expect(try store.all().compactMap(\.identifier) == ["g1", "g2"])
        #expect(try store.count() == 3)
    }

    /// The constraints live in PostgreSQL: a row written behind the store's back that breaks one is refused,
    /// with the constraint named, and nothing is stored.
    @Test func theDatabaseEnforcesTheConstraints() throws {
        let database = try TestDatabase()
        let connection = try database.open()
        let columns = "\"user\", app, intent, parameters, date_ms, context, count, content_hash"
        let refused: [(String, String)] = [
            ("'', 'a', 'i', '{}', 0, '{}', 1, 1", "donation_user_not_empty"),
            ("'u', 'a', 'i', '[1]', 0, '{}', 1, 1", "donation_parameters_object"),
            ("'u', 'a', 'i', '{}', -1, '{}', 1, 1", "donation_date_supported"),
            ("'u', 'a', 'i', '{}', 0, '{}', 0, 1", "donation_count_positive"),
        ]
        for (values, constraint) in refused {
            let error = storeError {
                try PostgresErrors.wrap("inserting") { try connection.executeRaw("INSERT INTO donation (\(columns)) VALUES (\(values))") }
            }
            #expect(error?.message.contains(constraint) == true, "\(error?.message ?? "no error") should name \(constraint)")
        }
        try connection.executeRaw("INSERT INTO donation (\(columns)) VALUES ('u', 'a', 'i', '{}', 0, '{}', 1, 7)")
        let again = storeError {
            try PostgresErrors.wrap("inserting") {
                try connection.executeRaw("INSERT INTO donation (\(columns)) VALUES ('u', 'a', 'i', '{\"x\":1}', 0, '{}', 1, 7)")
            }
        }
        #expect(again?.message.contains("donation_user_date_content") == true, "\(again?.message ?? "no error")")
        #expect(try PostgresDonationStore(database: connection).count() == 1)
    }

    /// Opening again applies nothing twice; a database migrated by a newer version is refused, not changed.
    @Test func migrationsAreVersioned() throws {
        let database = try TestDatabase()
        let first = try database.open()
        try PostgresDonationStore(database: first).append(sample(identifier: "kept"))
        #expect(try PostgresDonationStore(database: try database.open()).identifiers() == ["kept"])
        try first.executeRaw("INSERT INTO proactive_migration (name) VALUES ('v99_from_the_future')")
        let error = storeError { _ = try database.open() }
        #expect(error?.code == .newerSchema)
        #expect(error?.message.contains("v99_from_the_future") == true)
    }

    /// Texts that need quoting in a PostgreSQL array literal (quotes, backslashes, commas, braces, NULL,
    /// non-ASCII) are stored, read back and deleted by identifier exactly.
    @Test func identifiersNeedingQuotesAreDeletedExactly() throws {
        let database = try TestDatabase()
        let store = PostgresDonationStore(database: try database.open())
        let awkward = ["a\"b", "c\\d", "e,f", "{g}", "NULL", " h ", "é ü 中"]
        let kept = ["a", "b", "c"]
        let donations = (awkward + kept).enumerated().map { sample(minutes: Double($0), identifier: $1) }
        #expect(try store.append(donations, duplicates: .fail) == AppendResult(inserted: 10, duplicates: 0))
        #expect(try store.all() == donations)
        #expect(try store.delete(.identifiers(awkward, app: "com.example.weather")) == awkward.count)
        #expect(try store.identifiers() == kept)
    }

    /// Recording paused (the privacy setting) refuses donations, as in SQLite.
    @Test func pausedRecordingRefusesDonations() throws {
        let database = try TestDatabase()
        let connection = try database.open()
        try connection.executeRaw("UPDATE privacy_setting SET recording_paused = true, paused_at_ms = 0 WHERE id = 1")
        #expect(storeError { try PostgresDonationStore(database: connection).append(sample()) }?.code == .recordingPaused)
        #expect(try PostgresDonationStore(database: connection).count() == 0)
    }
}

/// Reading database URLs: what errors name.
@Suite("PostgreSQL URLs")
struct PostgresLocationTests {
    @Test func socketFolderAndTCP() throws {
        let socket = try PostgresLocation(url: "postgres://proactive@/proactive?host=/tmp/cluster")
        #expect(socket.socketPath == "/tmp/cluster/.s.PGSQL.5432")
        #expect(socket.database == "proactive" && socket.username == "proactive")
        let tcp = try PostgresLocation(url: "postgresql://app:s%40cret@db.example.com:5433/store?sslmode=disable")
        #expect(tcp.host == "db.example.com" && tcp.port == 5433 && tcp.password == "s@cret" && tcp.socketPath == nil)
    }

    /// `timeout` and `pool`, Proactive's own options: defaults, and values as given.
    @Test func timeoutAndPoolOptions() throws {
        let plain = try PostgresLocation(url: "postgres://proactive@/proactive?host=/tmp/cluster")
        #expect(plain.timeout == .seconds(5) && plain.poolSize == 4)
        let given = try PostgresLocation(url: "postgres://proactive@/proactive?host=/tmp/cluster&timeout=2.5&pool=8")
        #expect(given.timeout == .milliseconds(2500) && given.poolSize == 8)
        #expect(given.socketFolder == "/tmp/cluster")
    }

    /// A server that cannot be reached is an `.unavailable` error naming the URL, its password hidden.
    @Test func anUnreachableServerIsNamedWithoutThePassword() {
        let error = storeError { _ = try PostgresStoreDatabase(url: "postgres://u:secret@/db?host=/nonexistent/proactive-test") }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("postgres://u:***@/db?host=/nonexistent/proactive-test") == true, "\(error?.message ?? "no error")")
        #expect(error?.message.contains("/nonexistent/proactive-test/.s.PGSQL.5432") == true, "\(error?.message ?? "no error")")
        #expect(error?.message.contains("secret") == false)
    }

    @Test func badURLsAreRefusedWithTheReasonAndNoPassword() {
        let cases: [(String, String)] = [
            ("mysql://u@h/db", "scheme"),
            ("postgres://h/db", "no user"),
            ("postgres://u:secret@db.example.com/db", "sslmode=disable"),
            ("postgres://u@/db?host=/tmp&sslmode=require", "sslmode=require"),
            ("postgres://u@/db", "no host"),
            ("postgres://u:secret@/db?host=/tmp&timeout=0", "timeout=0 is not a number of seconds above 0"),
            ("postgres://u:secret@/db?host=/tmp&timeout=soon", "timeout=soon is not a number of seconds"),
            ("postgres://u:secret@/db?host=/tmp&pool=0", "pool=0 is not a number of connections from 1 to 1000"),
        ]
        for (url, reason) in cases {
            let error = storeError { _ = try PostgresLocation(url: url) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error") should say \(reason)")
            #expect(error?.message.contains("secret") == false)
        }
    }
}
