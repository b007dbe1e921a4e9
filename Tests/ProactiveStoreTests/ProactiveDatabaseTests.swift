import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import Testing

/// The store file: migrations, identity checks, pragmas and SQL constraints.
@Suite("ProactiveDatabase")
struct ProactiveDatabaseTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    // MARK: Read-only opening (issue 16)

    @Test func readOnlyOpeningReadsAndNeverWrites() throws {
        let path = directory.file("read.sqlite")
        try SQLiteDonationStore(database: try ProactiveDatabase(path: path)).append(sample(identifier: "kept"))
        let reader = try ProactiveDatabase(path: path, mode: .readOnly)
        let store = SQLiteDonationStore(database: reader)
        #expect(try store.all().map(\.identifier) == ["kept"])
        let refusal = storeError { try store.append(sample(identifier: "written")) }
        #expect(refusal?.message.contains("readonly") == true, "\(String(describing: refusal))")
        #expect(throws: StoreError.self) { try ProactiveDatabase(path: directory.file("missing.sqlite"), mode: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing.sqlite")))
    }

    // MARK: Migrations

    @Test func migratesAnEmptyFileAndReopensIt() throws {
        let path = directory.file("new.sqlite")
        let database = try ProactiveDatabase(path: path)
        #expect(try database.appliedMigrations() == ProactiveDatabase.migrations.map(\.name))
        #expect(ProactiveDatabase.migrations.first?.name == "v1_donations")
        try database.writer.read { db in
            #expect(try Int32.fetchOne(db, sql: "PRAGMA application_id") == ProactiveDatabase.applicationID)
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try Int.fetchOne(db, sql: "PRAGMA secure_delete") == 1)
            #expect(try Int.fetchOne(db, sql: "PRAGMA foreign_keys") == 1)
            #expect(try Int.fetchOne(db, sql: "PRAGMA synchronous") == 1, "NORMAL")
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'donation' ORDER BY name")
            #expect(indexes == ["donation_app_group", "donation_app_identifier", "donation_user_date"])
        }
        try SQLiteDonationStore(database: database).append(sample(identifier: "kept"))
        let reopened = try SQLiteDonationStore(path: path, mode: .mustExist)
        #expect(try reopened.identifiers() == ["kept"])
        #expect(try reopened.database.integrityProblems().isEmpty)
    }

    @Test func aMissingStoreIsAnErrorWhenItMustExist() throws {
        let path = directory.file("absent.sqlite")
        let error = storeError { _ = try ProactiveDatabase(path: path, mode: .mustExist) }
        #expect(error?.code == .missingStore)
        #expect(error?.message.contains(path) == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // MARK: Foreign and newer files

    @Test func refusesAnotherProgramsDatabaseWithoutTouchingIt() throws {
        let path = directory.file("foreign.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x')") }
        try queue.close()
        let error = storeError { _ = try ProactiveDatabase(path: path) }
        #expect(error?.code == .notAProactiveStore)
        #expect(error?.message.contains("songs") == true)
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables == ["songs"])
    }

    @Test func refusesAFileThatIsNotSQLite() throws {
        let path = try directory.write("notes.sqlite", String(repeating: "not a database at all\n", count: 200))
        let error = storeError { _ = try ProactiveDatabase(path: path) }
        #expect(error?.code == .notAProactiveStore)
        #expect(error?.message.contains("not a SQLite database") == true)
    }

    @Test func refusesAStoreFromANewerVersion() throws {
        let path = directory.file("future.sqlite")
        let database = try ProactiveDatabase(path: path)
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99_holograms')")
        }
        let error = storeError { _ = try ProactiveDatabase(path: path) }
        #expect(error?.code == .newerSchema)
        #expect(error?.message.contains("v99_holograms") == true)
    }

    // MARK: Constraints in SQLite itself

    /// Raw inserts that bypass `DonationRecord` validation still fail in SQLite.
    @Test func schemaConstraintsRejectBadRowsWrittenBehindTheStoresBack() throws {
        let database = try ProactiveDatabase.inMemory()
        let good = "'u', 'a', 'i', '{}', 1795651200000, NULL, NULL, NULL, '{}', 1"
        let bad = [
            "'', 'a', 'i', '{}', 1795651200000, NULL, NULL, NULL, '{}', 1",
            "'u', '', 'i', '{}', 1795651200000, NULL, NULL, NULL, '{}', 1",
            "'u', 'a', NULL, '{}', 1795651200000, NULL, NULL, NULL, '{}', 1",
            "'u', 'a', 'i', 'not json', 1795651200000, NULL, NULL, NULL, '{}', 1",
            "'u', 'a', 'i', '[1]', 1795651200000, NULL, NULL, NULL, '{}', 1",
            "'u', 'a', 'i', '{}', -1, NULL, NULL, NULL, '{}', 1",
            "'u', 'a', 'i', '{}', 'yesterday', NULL, NULL, NULL, '{}', 1",
            "'u', 'a', 'i', '{}', 7289654400000, NULL, NULL, NULL, '{}', 1",
            "'u', 'a', 'i', '{}', 1795651200000, 90000, NULL, NULL, '{}', 1",
            "'u', 'a', 'i', '{}', 1795651200000, NULL, '', NULL, '{}', 1",
            "'u', 'a', 'i', '{}', 1795651200000, NULL, NULL, '', '{}', 1",
            "'u', 'a', 'i', '{}', 1795651200000, NULL, NULL, NULL, '{', 1",
            "'u', 'a', 'i', '{}', 1795651200000, NULL, NULL, NULL, '{}', 0",
        ]
        try database.writer.write { db in
            let insert = "INSERT INTO donation (\(DonationRecord.columns)) VALUES "
            try db.execute(sql: insert + "(\(good))")
            for values in bad {
                #expect(throws: DatabaseError.self, "\(values)") { try db.execute(sql: insert + "(\(values))") }
            }
            // (app, identifier) is unique only when an identifier is set.
            try db.execute(sql: insert + "('u', 'a', 'i', '{}', 1, NULL, 'id', NULL, '{}', 1)")
            try db.execute(sql: insert + "('u', 'b', 'i', '{}', 1, NULL, 'id', NULL, '{}', 1)")
            #expect(throws: DatabaseError.self) { try db.execute(sql: insert + "('v', 'a', 'i', '{}', 2, NULL, 'id', NULL, '{}', 1)") }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM donation") == 3)
        }
    }

    @Test func corruptedJSONColumnsAreReportedNotTrapped() throws {
        let database = try ProactiveDatabase.inMemory()
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO donation (\(DonationRecord.columns))
                VALUES ('u', 'a', 'i', '{"p":[1,2]}', 1795651200000, NULL, NULL, NULL, '{"focus":3}', 1)
                """)
        }
        let error = storeError { _ = try SQLiteDonationStore(database: database).donations(forUser: "u", in: .all) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("parameters.p") == true)
    }
}
