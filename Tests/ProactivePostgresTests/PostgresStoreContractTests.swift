import Foundation
@testable import ProactivePostgres
import ProactiveStore
import StoreConformance
import Testing

/// The contracts of the store's parts (StoreProtocols.swift), as the checks SQLite passes, on PostgreSQL.
@Suite("Store contracts on PostgreSQL", PostgresTestServer.available)
struct PostgresStoreContractTests {
    @Test(arguments: StoreContractConformance.checks + FeedbackScrubbingConformance.checks)
    func storeParts(check: StoreContractConformance.Check) throws {
        let server = try TestDatabase()
        let database = try server.open()
        try withExtendedLifetime(server) { try check.run(database.storeParts()) }
    }
}

extension PostgresStoreContractTests {
    @Test(arguments: CredentialStoreConformance.checks)
    func credentials(check: CredentialStoreConformance.Check) throws {
        let server = try TestDatabase()
        let (database, other) = (try server.open(), try server.open())
        try withExtendedLifetime(server) {
            try check.run(CredentialParts(store: PostgresCredentialStore(database: database), other: PostgresCredentialStore(database: other), held: {
                try database.withSession { session in
                    try session.query("""
                        SELECT coalesce(string_agg(row_text, ' '), '') FROM (
                            SELECT o::text AS row_text FROM owner_credential o UNION ALL SELECT a::text FROM app_credential a) rows
                        """).rows[0].decode(String.self)
                }
            }))
        }
    }
}

extension PostgresStoreDatabase {
    /// Every part of the store on this database, with reads behind the stores' back.
    func storeParts() -> StoreParts {
        StoreParts(
            donations: PostgresDonationStore(database: self), definitions: PostgresIntentDefinitionStore(database: self),
            declarations: PostgresDeclarationStore(database: self), focus: PostgresFocusStore(database: self),
            privacy: PostgresPrivacyStore(database: self), states: PostgresModelStateStore(database: self),
            rowsOfUser: { table, user in
                try self.withSession { session in
                    try session.query("SELECT count(*) FROM \(unescaped: table) WHERE \"user\" = \(user)").rows[0].decode(Int.self)
                }
            },
            tablesWithUser: {
                try self.withSession { session in
                    try session.query("""
                        SELECT table_name::text FROM information_schema.columns
                        WHERE table_schema = current_schema() AND column_name = 'user' ORDER BY 1
                        """).rows.map { try $0.decode(String.self) }
                }
            })
    }
}
