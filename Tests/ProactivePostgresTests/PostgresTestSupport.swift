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
    let server: PostgresLocation

    init() throws {
        let serverURL = try #require(PostgresTestServer.url)
        server = try PostgresLocation(url: serverURL)
        name = "proactive_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try Self.onServer(server, "CREATE DATABASE \(unescaped: name)")
        var components = try #require(URLComponents(string: serverURL))
        components.path = "/" + name
        url = try #require(components.string)
    }

    deinit { _ = try? Self.onServer(server, "DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)") }

    /// A new connection to the database, migrated; `options` are added to the URL's query (`timeout=1&pool=2`).
    func open(options: String? = nil) throws -> PostgresStoreDatabase {
        try PostgresStoreDatabase(url: options.map { url + "&" + $0 } ?? url)
    }

    /// Runs one statement on a connection of its own to the server's own database; returns its rows.
    @discardableResult
    static func onServer(_ server: PostgresLocation, _ query: PostgresQuery) throws -> [PostgresRow] {
        try PostgresConnection(server).run(query).rows
    }

    /// The server processes of this database's connections (`pg_stat_activity`), those running
    /// `SELECT pg_sleep` only when `sleeping`.
    func backends(sleeping: Bool = false) throws -> [Int32] {
        try Self.onServer(server, """
            SELECT pid FROM pg_stat_activity WHERE datname = \(name) AND pid <> pg_backend_pid()
              AND (NOT \(sleeping) OR (state = 'active' AND query LIKE 'SELECT pg_sleep%')) ORDER BY pid
            """).map { try $0.decode(Int32.self) }
    }

    /// Terminates the server process `pid` (`pg_terminate_backend`), waiting until it has exited.
    func terminate(_ pid: Int32) throws {
        let done = try Self.onServer(server, "SELECT pg_terminate_backend(\(pid), 10000)").first?.decode(Bool.self)
        #expect(done == true, "backend \(pid) terminated")
    }
}

extension PostgresStoreDatabase {
    /// Runs one statement behind the stores' back (what a person with `psql` could do).
    func executeRaw(_ sql: String) throws {
        try withSession { session in try session.execute(sql) }
    }

    /// The server process of the connection the next call borrows (the pool lends the last returned first).
    func backendPID() throws -> Int32 {
        try withSession { session in try session.query("SELECT pg_backend_pid()").rows[0].decode(Int32.self) }
    }
}
