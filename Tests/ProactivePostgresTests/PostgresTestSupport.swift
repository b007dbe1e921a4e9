import Foundation
@testable import ProactivePostgres
import ProactiveStore
import Testing

// MARK: - The server under test

/// The PostgreSQL server the tests use: `PROACTIVE_TEST_DATABASE_URL` (scripts/test.sh starts a
/// private cluster with scripts/postgres-cluster.sh and exports it). Without it every test here is
/// skipped, with the reason in the test listing.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["PROACTIVE_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// The suites' condition: run only with a server.
    static let available: ConditionTrait = .enabled(
        if: url != nil,
        "PROACTIVE_TEST_DATABASE_URL is not set: no PostgreSQL server (scripts/test.sh starts one with scripts/postgres-cluster.sh)")
}

/// An empty database of its own on the test server, dropped (with its connections) when the value goes away.
final class TestDatabase {
    let name: String
    let url: String
    private let server: PostgresLocation

    init() throws {
        let serverURL = try #require(PostgresTestServer.url)
        server = try PostgresLocation(url: serverURL)
        name = "proactive_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try Self.onServer(server, "CREATE DATABASE \(name)")
        var components = try #require(URLComponents(string: serverURL))
        components.path = "/" + name
        url = try #require(components.string)
    }

    deinit { try? Self.onServer(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }

    /// A new connection to the database, migrated.
    func open() throws -> PostgresStoreDatabase { try PostgresStoreDatabase(url: url) }

    /// Runs one statement on a connection of its own to the server's own database.
    static func onServer(_ server: PostgresLocation, _ sql: String) throws {
        _ = try PostgresConnection(server).run(PostgresQuery(unsafeSQL: sql))
    }
}

extension PostgresStoreDatabase {
    /// Runs one statement behind the stores' back (what a person with `psql` could do).
    func executeRaw(_ sql: String) throws {
        try withSession { session in try session.execute(sql) }
    }
}
