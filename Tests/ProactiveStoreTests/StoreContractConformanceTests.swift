import Foundation
import ProactiveCore
import GRDB
@testable import ProactiveStore
import StoreConformance
import Testing

/// The contracts of the store's parts (StoreProtocols.swift), as shared checks, on the SQLite stores.
@Suite("Store contracts on SQLite")
struct StoreContractConformanceTests {
    @Test(arguments: ModelStateStoreConformance.checks)
    func modelStates(check: ModelStateStoreConformance.Check) throws {
        let database = try ProactiveDatabase.inMemory()
        try check.run(.init(states: SQLiteModelStateStore(database: database), donations: SQLiteDonationStore(database: database)))
    }
}

extension StoreContractConformanceTests {
    @Test(arguments: StoreContractConformance.checks + FeedbackScrubbingConformance.checks)
    func storeParts(check: StoreContractConformance.Check) throws {
        let directory = try TemporaryDirectory()
        let database = try ProactiveDatabase(path: directory.file("store.sqlite"))
        try check.run(StoreParts(
            donations: SQLiteDonationStore(database: database), definitions: SQLiteIntentDefinitionStore(database: database),
            declarations: SQLiteDeclarationStore(database: database), focus: SQLiteFocusStore(database: database),
            privacy: SQLitePrivacyStore(database: database), states: SQLiteModelStateStore(database: database),
            rowsOfUser: { table, user in
                try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE user = ?", arguments: [user]) ?? 0 }
            },
            tablesWithUser: {
                try database.writer.read { db in
                    try String.fetchAll(db, sql: """
                        SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c
                        WHERE m.type = 'table' AND c.name = 'user' ORDER BY m.name
                        """)
                }
            }))
    }
}

extension StoreContractConformanceTests {
    @Test(arguments: CredentialStoreConformance.checks)
    func credentials(check: CredentialStoreConformance.Check) throws {
        let directory = try TemporaryDirectory()
        let files = CredentialFiles(storePath: directory.file("store.sqlite"))
        try check.run(CredentialParts(store: files, other: CredentialFiles(storePath: directory.file("store.sqlite")), held: {
            [files.ownerPath, files.appsPath].compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.joined(separator: "\n")
        }))
    }
}
