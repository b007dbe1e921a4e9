import Foundation
@testable import ProactiveCLI
@testable import ProactivePostgres
import ProactiveStore
import Testing

// MARK: - The service's credentials on a database

@Suite("credentials on PostgreSQL", PostgresTestServer.available)
struct PostgresCredentialTests {
    @Test("a database at v2_model_state_heavy_part is migrated to keep credentials on open")
    func anOlderDatabaseIsMigrated() throws {
        let server = try TestDatabase()
        let old = PostgresSchema.migrations.prefix { $0.name != "v3_service_credentials" }
        #expect(old.map(\.name) == ["v1_schema", "v2_model_state_heavy_part"])
        let connection = try PostgresConnection(PostgresLocation(url: server.url))
        _ = try connection.run("CREATE TABLE proactive_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        for migration in old {
            for statement in migration.statements { _ = try connection.run(PostgresQuery(unsafeSQL: statement)) }
            _ = try connection.run("INSERT INTO proactive_migration (name) VALUES (\(migration.name))")
        }
        #expect(throws: (any Error).self) { try connection.run("SELECT count(*) FROM app_credential") }

        let backend = try PostgresBackend(url: server.url, mode: .mustExist)
        #expect(try backend.appliedMigrations() == ["v1_schema", "v2_model_state_heavy_part", "v3_service_credentials"])
        let coffee = try backend.credentials.mintApp("com.example.coffee")
        #expect(try backend.credentials.apps().map(\.sha256) == [ServiceCredential.hash(coffee)])
        // The constraints hold against a hand-written row too.
        #expect(throws: (any Error).self) {
            try connection.run("INSERT INTO app_credential (app, sha256, created_ms) VALUES ('com.example.mail', 'pk_plaintext', 0)")
        }
        #expect(throws: (any Error).self) {
            try connection.run("INSERT INTO owner_credential (id, sha256, created_ms) VALUES (2, \(String(repeating: "a", count: 64)), 0)")
        }
    }

    @Test("apps add, list and revoke answer on a database as on a file")
    func appsCommands() async throws {
        let server = try TestDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("store.sqlite").path
        var answers: [[String]] = []
        for store in [file, server.url] {
            let add = await PostgresCommandTests.run(["apps", "add", "com.example.coffee"], store: store)
            #expect(add.status == 0 && ServiceCredential.isWellFormed(add.output.trimmingCharacters(in: .whitespacesAndNewlines)))
            let again = await PostgresCommandTests.run(["apps", "add", "com.example.coffee"], store: store)
            let bad = await PostgresCommandTests.run(["apps", "add", "not a bundle id"], store: store)
            _ = await PostgresCommandTests.run(["apps", "add", "com.example.weather"], store: store)
            let list = await PostgresCommandTests.run(["apps", "list"], store: store)
            let revoke = await PostgresCommandTests.run(["apps", "revoke", "com.example.coffee"], store: store)
            let revokeAgain = await PostgresCommandTests.run(["apps", "revoke", "com.example.coffee"], store: store)
            let after = await PostgresCommandTests.run(["apps", "list"], store: store)
            let dates = try Regex(#"created \S+"#)
            answers.append([again, bad, list, revoke, revokeAgain, after].map { run in
                "\(run.status) \(run.output)\(run.error)".replacing(dates, with: "created DATE").replacingOccurrences(of: store, with: "STORE")
            })
        }
        #expect(answers[0] == answers[1])
        #expect(answers[1][2].contains("com.example.coffee  created DATE\ncom.example.weather  created DATE"))
        #expect(answers[1][4].hasPrefix("1 ") && answers[1][4].contains("has no credential"))
    }

    @Test("apps replace-owner prints a new owner credential once: a database keeps its hash, a file the credential")
    func replaceOwner() async throws {
        let server = try TestDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-owner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("store.sqlite").path
        for store in [file, server.url] {
            let records = try StoreOptions.named(store).credentials
            let first = try #require(try records.ensureOwnerCredential(file: directory.appendingPathComponent("owner").path).credential)
            let run = await PostgresCommandTests.run(["apps", "replace-owner"], store: store)
            let printed = run.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(run.status == 0 && ServiceCredential.isWellFormed(printed) && printed != first, "\(run.error)")
            #expect(try records.ownerHash() == ServiceCredential.hash(printed))
            if let kept = records.ownerCredentialFile { #expect(try ServiceCredential.read(privateFile: kept) == printed) }
            let refused = await PostgresCommandTests.run(["apps", "replace-owner", "--as-app", "com.example.coffee"], store: store)
            #expect(refused.status != 0)
            #expect(try records.ownerHash() == ServiceCredential.hash(printed))
        }
    }
}
