import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Forgetting: physical erasure, retention, forgetting a user, pausing.
@Suite("Privacy: erasure, retention, forget, pause")
struct PrivacyTests {
    /// A file store with its privacy operations.
    struct Fixture {
        let directory: TemporaryDirectory
        let path: String
        let database: ProactiveDatabase
        var donations: SQLiteDonationStore { SQLiteDonationStore(database: database) }
        var privacy: SQLitePrivacyStore { SQLitePrivacyStore(database: database) }

        init() throws {
            directory = try TemporaryDirectory()
            path = directory.file("store.sqlite")
            database = try ProactiveDatabase(path: path)
        }

        /// Whether `needle` occurs in the store file or its write-ahead log.
        func filesContain(_ needle: String) throws -> (file: Bool, wal: Bool) {
            func contains(_ file: String) throws -> Bool {
                guard FileManager.default.fileExists(atPath: file) else { return false }
                return try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data(needle.utf8)) != nil
            }
            return (try contains(path), try contains(path + "-wal"))
        }
    }

    /// 300 donations around one with a unique value, so pages are shared.
    static func neighbourhood(secret: String) -> [Donation] {
        (0..<300).map { (index: Int) -> Donation in
            let app = index % 2 == 0 ? "com.example.weather" : "com.example.mail"
            let note: String = index == 150 ? secret : "ordinary value \(index)"
            return sample(app: app, minutes: Double(index), identifier: "n\(index)", parameters: ["note": .string(note)])
        }
    }

    // MARK: Physical erasure

    @Test func everyConnectionRunsWithSecureDelete() throws {
        let fixture = try Fixture()
        #expect(try fixture.database.writer.read { try Int.fetchOne($0, sql: "PRAGMA secure_delete") } == 1)
        #expect(try fixture.database.writer.write { try Int.fetchOne($0, sql: "PRAGMA secure_delete") } == 1)
    }

    @Test func aDeletedValueIsGoneFromTheFileAndTheLog() throws {
        let fixture = try Fixture()
        let secret = "unique-parameter-7f3a9c"
        try fixture.donations.append(Self.neighbourhood(secret: secret), duplicates: .fail)
        let before = try fixture.filesContain(secret)
        #expect(before.file || before.wal)  // the check can fail: the value is on disk first

        #expect(try fixture.donations.delete(.identifiers(["n150"], app: "com.example.weather")) == 1)
        // secure_delete zeroes the row in the new page version, but the log still
        // holds the page as it was before the deletion ...
        #expect(try fixture.filesContain(secret).wal)
        // ... until the log is copied back and truncated.
        #expect(try fixture.privacy.eraseTraces())
        #expect(try fixture.filesContain(secret) == (false, false))
        #expect(try fixture.donations.count() == 299)
        #expect(try fixture.filesContain("ordinary value 151").file)  // neighbours survive
    }

    @Test func compactionLeavesNoTraceAndEmptiesTheLog() throws {
        let fixture = try Fixture()
        let secret = "compacted-secret-5521"
        try fixture.donations.append(Self.neighbourhood(secret: secret), duplicates: .fail)
        try fixture.donations.delete(.matching(DonationFilter(app: "com.example.weather")))
        let report = try fixture.privacy.compact()
        #expect(report.logTruncated)
        #expect(report.walBytesAfter == 0)
        #expect(report.fileBytesAfter + report.walBytesAfter < report.fileBytesBefore + report.walBytesBefore)
        #expect(try fixture.filesContain(secret) == (false, false))
        #expect(try fixture.donations.count() == 150)
        #expect(try fixture.database.integrityProblems().isEmpty)
    }

    // MARK: Forgetting a user

    @Test func forgetErasesEveryPerUserTableAndNothingElse() throws {
        let fixture = try Fixture()
        let secret = "forget-me-value-88"
        try fixture.donations.append(Self.neighbourhood(secret: secret).map { var copy = $0; copy.user = "gone"; return copy }
            + [sample(user: "kept", identifier: "k1")], duplicates: .fail)
        try fixture.donations.setTimeZone("Europe/Paris", forUser: "gone")
        let declarations = SQLiteDeclarationStore(database: fixture.database)
        let day = Date(timeIntervalSince1970: sampleDay)
        for user in ["gone", "kept"] {
            try declarations.replaceShortcutSet(StoredShortcutSet(user: user, app: "com.example.bank", declaredAt: day, shortcutsJSON: #"[{"widgetKind":"k"}]"#))
            try declarations.replaceTimeline(StoredTimeline(user: user, widget: "com.example.bank/w", app: "com.example.bank", timelineJSON: #"{"entries":[{"x":1}]}"#))
            try declarations.appendFeedback([StoredFeedback(user: user, date: day, kind: "tap", scope: "target:x",
                                                            app: "com.example.bank", eventJSON: #"{"note":"\#(user == "gone" ? secret : "ok")"}"#)])
        }
        let models = SQLiteModelStateStore(database: fixture.database)
        for user in ["gone", "kept"] {
            try models.save(SavedModelState(user: user, name: "profile", bytes: Array("model of \(user == "gone" ? secret : "ok")".utf8),
                                            heavy: Array("rows and log of \(user == "gone" ? "heavy-" + secret : "ok")".utf8),
                                            catalogue: "targets of \(user == "gone" ? secret : "ok")", key: ModelStateKey(
                                                highWater: 1, erasureMark: 0, donationCount: 1, definitionsDigest: "", focusDigest: "", options: ""),
                                            trainedAt: day, savedAt: day))
        }
        let erased = try fixture.privacy.forget(user: "gone")
        #expect(erased == ["model_state": 1, "model_state_heavy": 1, "donation": 300, "feedback": 1, "relevant_shortcut_set": 1, "widget_timeline": 1, "user_setting": 1])
        #expect(try models.list().map(\.user) == ["kept"])
        #expect(try fixture.donations.users() == ["kept"])
        #expect(try declarations.shortcutSets(user: "gone").isEmpty && declarations.timelines(user: "gone").isEmpty)
        #expect(try declarations.feedback(user: "gone").isEmpty)
        #expect(try declarations.feedback(user: "kept").count == 1)
        #expect(try fixture.donations.timeZone(forUser: "gone") == nil)
        #expect(try fixture.filesContain(secret) == (false, false))
        #expect(try fixture.filesContain("heavy-" + secret) == (false, false))
        #expect(try models.load(user: "kept", name: "profile")?.heavy == Array("rows and log of ok".utf8))
    }

    /// Guard for later schema changes: a new table with a `user` column must be
    /// added to `SQLitePrivacyStore.userTables`, or `forget` would leave it behind.
    @Test func forgetCoversEveryTableWithAUserColumn() throws {
        let database = try ProactiveDatabase.inMemory()
        let tables = try database.writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c
                WHERE m.type = 'table' AND c.name = 'user' ORDER BY m.name
                """)
        }
        #expect(tables.count >= 5)
        #expect(Set(tables) == Set(SQLitePrivacyStore.userTables))
    }

    // MARK: Retention

    @Test func newStoresKeepEverythingUntilTheOwnerSetsAWindow() throws {
        let privacy = SQLitePrivacyStore(database: try ProactiveDatabase.inMemory())
        #expect(try privacy.retentionPolicy() == RetentionPolicy(defaultWindow: .keepAll, byApp: [:]))
        try privacy.setRetention(.days(28))
        #expect(try privacy.retentionPolicy() == RetentionPolicy(defaultWindow: .days(28), byApp: [:]))
    }

    /// v8 clears v7's implicit 28 days only in a store that never held anything; a store in use keeps its window.
    @Test(arguments: [false, true])
    func migratingToV8KeepsTheWindowOfAStoreInUse(inUse: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v7.sqlite")
        try migrated(path, upTo: "v7_privacy") { db in
            if inUse {
                try db.execute(sql: """
                    INSERT INTO donation (user, app, intent, parameters, date_ms, context, count)
                    VALUES ('u1', 'com.example.weather', 'CheckWeatherIntent', '{}', 1795651200000, '{}', 1)
                    """)
            }
        }
        let policy = try SQLitePrivacyStore(database: try ProactiveDatabase(path: path)).retentionPolicy()
        #expect(policy.defaultWindow == (inUse ? .days(28) : .keepAll))
    }

    @Test func retentionErasesWhatIsOlderThanEachAppsWindow() throws {
        let store = SQLiteDonationStore(database: try ProactiveDatabase.inMemory())
        let privacy = SQLitePrivacyStore(database: store.database)
        let day = 24.0 * 60
        // Donations 0...40 days before `now`, for three apps.
        let now = Date(timeIntervalSince1970: sampleDay + 40 * day * 60)
        var all: [Donation] = []
        for age in stride(from: 0.0, through: 40, by: 1) {
            for app in ["com.example.weather", "com.example.health", "com.example.notes"] {
                all.append(sample(app: app, minutes: (40 - age) * day))
            }
        }
        try store.append(all, duplicates: .fail)
        try privacy.setRetention(.days(28))
        try privacy.setRetention(.days(7), app: "com.example.health")
        try privacy.setRetention(.keepAll, app: "com.example.notes")
        let report = try privacy.applyRetention(now: now)
        // Kept: age <= window (a donation exactly at the cutoff stays).
        #expect(report.donationsByApp == ["com.example.weather": 12, "com.example.health": 33])
        let left = try store.statistics(matching: .everything).byApp.map { ($0.name, $0.rows) }
        #expect(left.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" } == ["com.example.health=8", "com.example.notes=41", "com.example.weather=29"])
        #expect(try privacy.applyRetention(now: now).isEmpty)  // idempotent
        #expect(try privacy.clearRetention(app: "com.example.notes"))
        #expect(try privacy.applyRetention(now: now).donationsByApp == ["com.example.notes": 12])
    }

    @Test func retentionAlsoErasesOldFeedback() throws {
        let database = try ProactiveDatabase.inMemory()
        let declarations = SQLiteDeclarationStore(database: database)
        let now = Date(timeIntervalSince1970: sampleDay)
        try declarations.appendFeedback([30.0, 1].map { days in
            StoredFeedback(user: "u1", date: now.addingTimeInterval(-days * 86_400), kind: "tap", scope: "target:x", app: "com.example.bank", eventJSON: "{}")
        })
        let privacy = SQLitePrivacyStore(database: database)
        try privacy.setRetention(.days(28))
        let report = try privacy.applyRetention(now: now)
        #expect(report.feedback == 1)
        #expect(try declarations.feedback(user: "u1").count == 1)
    }

    @Test func retentionWindowsAreValidated() throws {
        let privacy = SQLitePrivacyStore(database: try ProactiveDatabase.inMemory())
        #expect(throws: StoreError(.invalidRequest, "a retention window is 1 to 36500 days, found 0")) { try privacy.setRetention(.days(0)) }
        #expect(throws: StoreError(.invalidRequest, "a retention window needs a non-empty app")) { try privacy.setRetention(.days(3), app: "") }
        try privacy.setRetention(.keepAll)
        #expect(try privacy.retentionPolicy().defaultWindow == .keepAll)
    }

    // MARK: Pause

    @Test func pausingRefusesDonationsAndDeletesNothing() throws {
        let fixture = try Fixture()
        try fixture.donations.append([sample(identifier: "before")], duplicates: .fail)
        let pausedAt = Date(timeIntervalSince1970: sampleDay)
        try fixture.privacy.setRecordingPaused(true, at: pausedAt)
        #expect(try fixture.privacy.isRecordingPaused())
        #expect(try fixture.privacy.pausedSince() == pausedAt)
        let refusal = StoreError(.recordingPaused, "recording is paused: donations and feedback are refused and nothing was stored")
        #expect(throws: refusal) { try fixture.donations.append([sample(identifier: "during")], duplicates: .fail) }
        // Another connection (another process) is refused too, and so is an import.
        let other = try SQLiteDonationStore(path: fixture.path)
        #expect(throws: refusal) { try other.append([sample(identifier: "elsewhere")], duplicates: .skip) }
        let log = try fixture.directory.write("log.jsonl", DonationLineCodec.encode(sample(identifier: "imported")) + "\n")
        #expect(throws: refusal) { try DonationImporter(store: other).importJSONLines(path: log) }
        #expect(try fixture.donations.count() == 1)
        // Issue 16, item 8: feedback is refused the same way, so "nothing was stored" is true.
        let declarations = SQLiteDeclarationStore(database: try ProactiveDatabase(path: fixture.path))
        let tap = StoredFeedback(user: "u1", date: pausedAt, kind: "tap", scope: "target:x", app: "com.a", eventJSON: "{}")
        #expect(throws: refusal) { try declarations.appendFeedback([tap]) }
        #expect(try declarations.feedback(user: "u1").isEmpty)

        try fixture.privacy.setRecordingPaused(false, at: pausedAt)
        #expect(try fixture.privacy.pausedSince() == nil)
        try other.append([sample(identifier: "after")], duplicates: .fail)
        #expect(try fixture.donations.count() == 2)
        try declarations.appendFeedback([tap])
        #expect(try declarations.feedback(user: "u1").count == 1)
    }
}
