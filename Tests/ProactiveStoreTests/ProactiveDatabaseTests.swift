import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
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

    /// Read-only connections and a query's one connection map the file (a large model state is copied
    /// once from the map); a pool's writer reads with read(2), as SQLite's default. A query's
    /// connection still writes (through write(2)) and reads back what it wrote.
    @Test func readersMapTheFileAndTheWriterDoesNot() throws {
        let path = directory.file("mapped.sqlite")
        let database = try ProactiveDatabase(path: path)
        try SQLiteDonationStore(database: database).append(sample(identifier: "kept"))
        #expect(try database.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") } == ProactiveDatabase.mappedBytes)
        #expect(try database.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") } == 0)
        let reader = try ProactiveDatabase(path: path, mode: .readOnly)
        #expect(try reader.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") } == ProactiveDatabase.mappedBytes)
        #expect(try SQLiteDonationStore(database: reader).all().map(\.identifier) == ["kept"])
        let query = try ProactiveDatabase(path: path, mode: .oneConnection)
        #expect(try query.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") } == ProactiveDatabase.mappedBytes)
        try SQLiteDonationStore(database: query).append(sample(identifier: "after"))
        #expect(try SQLiteDonationStore(database: query).all().map(\.identifier) == ["kept", "after"])
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
            #expect(indexes == ["donation_app_group", "donation_app_identifier", "donation_user_date_content"])
        }
        try SQLiteDonationStore(database: database).append(sample(identifier: "kept"))
        let reopened = try SQLiteDonationStore(path: path, mode: .mustExist)
        #expect(try reopened.identifiers() == ["kept"])
        #expect(try reopened.database.integrityProblems().isEmpty)
    }

    /// A query's one connection opens, reads and closes without writing to the file (a pool writes to set
    /// up its write-ahead log, each time: closing removes it); it still writes when asked, in WAL mode.
    @Test func oneConnectionOpensWithoutWriting() throws {
        let path = directory.file("one.sqlite")
        do { try SQLiteDonationStore(database: try ProactiveDatabase(path: path)).append(sample(identifier: "kept")) }
        let closed = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        do {
            let one = try ProactiveDatabase(path: path, mode: .oneConnection)
            #expect(try SQLiteDonationStore(database: one).all().map(\.identifier) == ["kept"])
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == closed, "opening and reading wrote to the file")
        do { _ = try SQLiteDonationStore(database: try ProactiveDatabase(path: path)).all() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) != closed, "a pool writes when it opens (the comparison is not vacuous)")
        do {
            let one = try ProactiveDatabase(path: path, mode: .oneConnection)
            try SQLiteDonationStore(database: one).append(sample(identifier: "added"))
            #expect(try one.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        }
        #expect(try SQLiteDonationStore(database: try ProactiveDatabase(path: path, mode: .readOnly)).all().map(\.identifier) == ["kept", "added"])
        #expect(storeError { _ = try ProactiveDatabase(path: directory.file("none.sqlite"), mode: .oneConnection) }?.code == .missingStore)
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

    /// The one-statement check that a store is current answers yes only for this build's full schema:
    /// an older store is still migrated by every way of opening it, a newer one still refused.
    @Test func onlyAStoreWithEveryMigrationIsTakenAsCurrent() throws {
        let names = ProactiveDatabase.migrations.map(\.name)
        let current = try ProactiveDatabase(path: directory.file("current.sqlite"))
        #expect(try current.writer.read { db in ProactiveDatabase.isCurrent(db) })
        #expect(try ProactiveDatabase.inMemory().writer.read { db in ProactiveDatabase.isCurrent(db) })
        let foreign = try DatabaseQueue(path: directory.file("foreign.sqlite"))
        #expect(try foreign.read { db in ProactiveDatabase.isCurrent(db) } == false)
        for (index, mode) in [ProactiveDatabase.OpenMode.oneConnection, .readOnly, .mustExist].enumerated() {
            let path = directory.file("older-\(index).sqlite")
            try migrated(path, upTo: names[names.count - 2]) { _ in }
            #expect(try DatabaseQueue(path: path).read { db in ProactiveDatabase.isCurrent(db) } == false)
            let opened = try ProactiveDatabase(path: path, mode: mode)
            #expect(try opened.appliedMigrations() == names, "\(mode)")
            #expect(try opened.writer.read { db in ProactiveDatabase.isCurrent(db) })
        }
        try current.writer.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99_holograms')") }
        #expect(try current.writer.read { db in ProactiveDatabase.isCurrent(db) } == false)
    }

    // MARK: Content key (v9)

    /// A store from before v9 with rows written twice: the migration computes
    /// each row's key as the store does on insert, keeps the first copy of
    /// each donation, and from then on the same donation is recognised.
    @Test func migratingToV9KeysEveryRowAndKeepsOneCopyOfEachDonation() throws {
        let path = directory.file("v8.sqlite")
        let rows = [
            "'u1', 'a', 'i', '{\"p\":1}', 1795651200000, -28800, NULL, NULL, '{\"focus\":\"work\"}', 1",
            "'u1', 'a', 'i', '{\"p\":1}', 1795651200000, -28800, NULL, NULL, '{\"focus\":\"work\"}', 1",  // the same donation again
            "'u1', 'a', 'i', '{\"p\":1}', 1795651200000, -28800, NULL, NULL, '{\"focus\":\"work\"}', 2",  // count differs
            "'u2', 'a', 'i', '{}', 1795651200000, NULL, 'id-1', 'g', '{}', 1",
            "'u2', 'a', 'i', '{}', 1795651200000, NULL, NULL, 'g', '{}', 1",
            "'u2', 'a', 'i', '{}', 1795651200000, NULL, NULL, 'g', '{}', 1",
        ]
        try migrated(path, upTo: "v8_retention_opt_in") { db in
            for row in rows { try db.execute(sql: "INSERT INTO donation (\(Self.columnsWithoutContentHash)) VALUES (\(row))") }
        }
        let store = try SQLiteDonationStore(path: path)
        #expect(try store.database.appliedMigrations().contains("v9_donation_content_key"))
        let kept = try store.database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, \(DonationRecord.columns) FROM donation ORDER BY id").map { row in
                (row[0] as Int64, row[11] as Int64?)
            }
        }
        #expect(kept.map(\.0) == [1, 3, 4, 5], "the later copies (rows 2 and 6) are gone")
        // Each stored key is the one the store computes for the same donation.
        let donations = try store.all(pageSize: 10)
        let expected = try donations.map { try DonationRecord($0).contentHash }
        #expect(Set(kept.compactMap(\.1)) == Set(expected))
        #expect(Set(expected).count == 4)
        // Appending any stored donation again is recognised.
        #expect(try store.append(donations, duplicates: .skip) == AppendResult(inserted: 0, duplicates: 4))
        #expect(try store.database.integrityProblems().isEmpty)
    }

    /// The content hash is stored in files: its value for a known donation is frozen.
    @Test func theContentHashOfAKnownDonationNeverChanges() throws {
        let record = try DonationRecord(Donation(
            user: "u1", app: "com.example.weather", intent: "CheckWeatherIntent",
            parameters: ["location": .entity(id: "cupertino", display: "Cupertino")],
            date: Date(timeIntervalSince1970: 1_795_651_200), utcOffset: -28_800, context: ["focus": "work"]))
        #expect(record.contentHash == Self.frozenHash)
        // FNV-1a over the documented layout, computed here independently of `ContentHasher`.
        var bytes: [UInt8] = []
        func text(_ value: String?) {
            guard let value else { bytes.append(0); return }
            bytes.append(1)
            integerBytes(UInt64(value.utf8.count))
            bytes += Array(value.utf8)
        }
        func integerBytes(_ value: UInt64) { for index in 0..<8 { bytes.append(UInt8((value >> (8 * UInt64(index))) & 0xFF)) } }
        func integer(_ value: Int64?) {
            guard let value else { bytes.append(0); return }
            bytes.append(1)
            integerBytes(UInt64(bitPattern: value))
        }
        text("u1"); text("com.example.weather"); text("CheckWeatherIntent")
        text(#"{"location":{"id":"cupertino","display":"Cupertino"}}"#)
        integer(1_795_651_200_000); integer(-28_800); text(nil); text(nil); text(#"{"focus":"work"}"#); integer(1)
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        #expect(Int64(bitPattern: hash) == Self.frozenHash)
    }

    static let frozenHash: Int64 = 1_190_331_813_563_153_543

    /// The donation columns of v1 (`content_hash` left NULL, as a row written by hand would).
    static let columnsWithoutContentHash = "user, app, intent, parameters, date_ms, utc_offset, identifier, group_id, context, count"

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
            let insert = "INSERT INTO donation (\(Self.columnsWithoutContentHash)) VALUES "
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
                INSERT INTO donation (\(Self.columnsWithoutContentHash))
                VALUES ('u', 'a', 'i', '{"p":[1,2]}', 1795651200000, NULL, NULL, NULL, '{"focus":3}', 1)
                """)
        }
        let error = storeError { _ = try SQLiteDonationStore(database: database).donations(forUser: "u", in: .all) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("parameters.p") == true)
    }
}
