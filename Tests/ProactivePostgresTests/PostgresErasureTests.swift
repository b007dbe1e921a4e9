import Foundation
@testable import ProactivePostgres
import ProactiveStore
import StoreConformance
import Testing

/// What PostgreSQL's files keep of a forgotten user, read from the server's data directory (the
/// private cluster of the tests runs on this machine as this user).
@Suite("Physical erasure on PostgreSQL", PostgresTestServer.available)
struct PostgresErasureTests {
    /// Every file of the database's own relations (tables, their indexes and TOAST), after a checkpoint
    /// has written the server's buffers out; nil when the data directory cannot be read from here.
    static func relationFiles(_ database: PostgresStoreDatabase) throws -> [String]? {
        try database.withSession { session in
            try session.execute("CHECKPOINT")
            let directory = try session.query("SHOW data_directory").rows[0].decode(String.self)
            guard FileManager.default.isReadableFile(atPath: directory) else { return nil }
            return try session.query("""
                SELECT pg_relation_filepath(c.oid) FROM pg_class c
                WHERE c.relkind IN ('r', 'i', 't') AND pg_relation_filepath(c.oid) IS NOT NULL
                  AND (c.relnamespace = current_schema()::regnamespace
                       OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE relnamespace = current_schema()::regnamespace))
                """).rows.map { directory + "/" + (try $0.decode(String.self)) }
        }
    }

    static func filesHolding(_ marker: String, _ files: [String]) -> [String] {
        files.filter { file in (FileManager.default.contents(atPath: file) ?? Data()).range(of: Data(marker.utf8)) != nil }
    }

    /// After `forget` and `compact`, no byte of the forgotten user (name, parameters) is left in any
    /// table or index file: `VACUUM FULL` wrote them anew. (After `eraseTraces` alone, a plain `VACUUM`,
    /// the newest row of a page can stay in the page's free space: see docs/ARCHITECTURE.md.)
    @Test func compactLeavesNoByteOfAForgottenUserInTheTables() throws {
        let server = try TestDatabase()
        let database = try server.open()
        let parts = database.storeParts()
        let marker = "SECRET_" + UUID().uuidString
        try parts.donations.append((0..<200).map { sample(user: "other", minutes: Double($0), identifier: "o\($0)") }, duplicates: .fail)
        try parts.donations.append([sample(user: "victim-" + marker, minutes: 500, identifier: "v", parameters: ["note": .string(marker)])],
                                   duplicates: .fail)
        try parts.declarations.appendFeedback([StoredFeedback(user: "victim-" + marker, date: Date(timeIntervalSince1970: sampleDay), kind: "tap",
                                                              scope: "target:com.example.weather:open", app: "com.example.weather",
                                                              eventJSON: "{\"note\":\"\(marker)\"}")])
        guard let before = try Self.relationFiles(database) else {
            print("PostgresErasureTests: the server's data directory is not readable here; the files were not checked")
            return
        }
        #expect(!Self.filesHolding(marker, before).isEmpty, "the marker is written to the tables' files")
        #expect(try parts.privacy.forget(user: "victim-" + marker) == ["donation": 1, "feedback": 1])
        _ = try parts.privacy.compact()
        let after = try #require(try Self.relationFiles(database))
        #expect(Self.filesHolding(marker, after).isEmpty)
        #expect(try parts.donations.all().count == 200)
    }

    /// One app's erasure of a user (`forget(user:app:)`, what an app's `DELETE /v1/users` runs), then
    /// `compact`: no table or index file keeps the secret of that app's rows; the other app's stay.
    @Test func compactLeavesNoByteOfOneAppsErasedRows() throws {
        let server = try TestDatabase()
        let database = try server.open()
        let parts = database.storeParts()
        let marker = "APPSECRET_" + UUID().uuidString
        try parts.donations.append((0..<200).map { sample(user: "other", minutes: Double($0), identifier: "o\($0)") }, duplicates: .fail)
        try parts.donations.append([sample(user: "victim", app: "com.example.coffee", minutes: 500, identifier: "v", parameters: ["note": .string(marker)]),
                                    sample(user: "victim", app: "com.example.tea", minutes: 501, identifier: "t")], duplicates: .fail)
        try parts.declarations.replaceTimeline(StoredTimeline(user: "victim", widget: "com.example.coffee/w", app: "com.example.coffee",
                                                              timelineJSON: #"{"entries":[1],"note":"\#(marker)"}"#))
        try parts.declarations.replaceShortcutSet(StoredShortcutSet(user: "victim", app: "com.example.coffee", declaredAt: Date(timeIntervalSince1970: sampleDay),
                                                                    shortcutsJSON: #"[{"title":"\#(marker)"}]"#))
        guard let before = try Self.relationFiles(database) else {
            print("PostgresErasureTests: the server's data directory is not readable here; the files were not checked")
            return
        }
        #expect(!Self.filesHolding(marker, before).isEmpty, "the marker is written to the tables' files")
        #expect(try parts.privacy.forget(user: "victim", app: "com.example.coffee")
                == ["donation": 1, "relevant_shortcut_set": 1, "widget_timeline": 1])
        _ = try parts.privacy.compact()
        let after = try #require(try Self.relationFiles(database))
        #expect(Self.filesHolding(marker, after).isEmpty)
        #expect(try parts.donations.all().count == 201)
    }
}
