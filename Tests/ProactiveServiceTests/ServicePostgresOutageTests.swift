import Foundation
import Hummingbird
import ProactiveCore
@testable import ProactivePostgres
import ProactiveService
import ProactiveStore
import Testing

/// The service on a PostgreSQL database that goes away: 503 with `Retry-After` (never an answer from
/// a model held from before, which may hold donations erased meanwhile), and 200 again once it is back.
/// Runs on the server `PROACTIVE_TEST_DATABASE_URL` names (scripts/test.sh starts one).
@Suite("Service: a PostgreSQL database that goes away",
       .enabled(if: OutageDatabase.serverURL != nil,
                "PROACTIVE_TEST_DATABASE_URL is not set: no PostgreSQL server (scripts/test.sh starts one with scripts/postgres-cluster.sh)"))
struct ServicePostgresOutageTests {
    @Test("503 with Retry-After while the database's processes are paused or it refuses connections, 200 after")
    func unavailableThenBack() async throws {
        let database = try OutageDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-outage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try PostgresBackend(url: database.url + "&timeout=1")
        try storage.privacy.setRetention(.keepAll)
        // The database's own credentials: each request's check reads their version there too.
        let credentials = CredentialStore(records: try storage.credentials)
        let owner = try #require(try credentials.ensureOwnerCredential(file: directory.appendingPathComponent("owner").path).credential)
        let service = ProactiveService(storage: storage, credentials: credentials)
        try await serveLive(service) { _, client in
            let stored = try await client.send(.post, "/v1/donations", credential: owner, body: try ServiceFixture.sampleLines(),
                                               contentType: "application/x-ndjson")
            #expect(stored.status == .ok, "\(stored.text)")
            func predict() async throws -> (status: HTTPResponse.Status, retryAfter: String?, code: String?, text: String) {
                var headers: HTTPFields = [.authorization: "Bearer \(owner)", .contentType: "application/json"]
                headers[.accept] = "application/json"
                return try await client.execute(uri: "/v1/predict", method: .post, headers: headers,
                                                body: ByteBuffer(string: #"{"user": "me"}"#)) { response in
                    let text = String(buffer: response.body)
                    return (response.status, response.headers[.retryAfter], (try? JSONParser.parse(text))?.string("error", "code"), text)
                }
            }
            #expect(try await predict().status == .ok)  // the model is held from now on

            // Every server process of the database paused (SIGSTOP): the call that meets one gives up after 1 s.
            let paused = try database.backends()
            #expect(!paused.isEmpty)
            for pid in paused { kill(pid_t(pid), SIGSTOP) }
            defer { for pid in paused { kill(pid_t(pid), SIGCONT) } }  // also when the request throws
            let clock = ContinuousClock()
            var answer: (status: HTTPResponse.Status, retryAfter: String?, code: String?, text: String)?
            let waited = try await clock.measure { answer = try await predict() }
            for pid in paused { kill(pid_t(pid), SIGCONT) }
            #expect(answer?.status == .serviceUnavailable, "\(answer?.text ?? "")")
            #expect(answer?.retryAfter == String(APIError.databaseRetryAfter))
            #expect(answer?.code == "database_unavailable")
            #expect(answer?.text.contains("cannot be reached now") == true, "\(answer?.text ?? "")")
            #expect(waited < .seconds(8), "\(waited)")
            #expect(try await predict().status == .ok)

            // The database refuses connections and its connections are closed (a server restarting).
            try database.allowConnections(false)
            for pid in try database.backends() { try database.terminate(pid) }
            let refused = try await predict()
            // Readiness asks the store (503 while it is away); liveness does not.
            let notReady = try await client.send(.get, "/readyz", credential: nil)
            let alive = try await client.send(.get, "/healthz", credential: nil)
            try database.allowConnections(true)
            #expect(notReady.status == .serviceUnavailable, "\(notReady.text)")
            #expect(notReady.json?.string("error", "code") == "store_unavailable", "\(notReady.text)")
            #expect(alive.status == .ok)
            #expect(try await client.send(.get, "/readyz", credential: nil).status == .ok)
            #expect(refused.status == .serviceUnavailable, "\(refused.text)")
            #expect(refused.retryAfter == String(APIError.databaseRetryAfter))
            #expect(refused.code == "database_unavailable")
            #expect(try await predict().status == .ok)
        }
    }
}

/// How the API answers a store that cannot reach its database (no server needed).
@Suite("Service: the answer while the database is away")
struct UnavailableAnswerTests {
    @Test func unavailableIsA503WithRetryAfterInTheErrorShape() throws {
        let message = "counting donations: postgres://u:***@/db?host=/tmp cannot be reached now (no answer within 5 s); the connection is made again on the next call"
        let answer = APIError.from(StoreError(.unavailable, message))
        #expect(answer.status == .serviceUnavailable && answer.code == "database_unavailable" && answer.message == message)
        let response = answer.response
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers[.retryAfter] == "5" && APIError.databaseRetryAfter == 5)
        #expect(answer.json.string("error", "code") == "database_unavailable")
        #expect(answer.json.int("error", "status") == 503)
        // A SQLite store kept busy is a 503 too, without Retry-After (how long another process holds it is unknown).
        #expect(APIError.from(StoreError(.busy, "busy")).response.headers[.retryAfter] == nil)
    }
}

/// An empty database of its own on the test server, dropped (with its connections) when the value goes away.
final class OutageDatabase: Sendable {
    static let serverURL = ProcessInfo.processInfo.environment["PROACTIVE_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    let name = "proactive_outage_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let url: String
    private let server: PostgresLocation

    init() throws {
        let serverURL = try #require(Self.serverURL)
        server = try PostgresLocation(url: serverURL)
        var components = try #require(URLComponents(string: serverURL))
        components.path = "/" + name
        url = try #require(components.string)
        try onServer("CREATE DATABASE \(unescaped: name)")
    }

    deinit { _ = try? onServer("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)") }

    @discardableResult
    private func onServer(_ query: PostgresQuery) throws -> [PostgresRow] { try PostgresConnection(server).run(query).rows }

    /// The server processes of the database's connections.
    func backends() throws -> [Int32] {
        try onServer("SELECT pid FROM pg_stat_activity WHERE datname = \(name) AND pid <> pg_backend_pid()").map { try $0.decode(Int32.self) }
    }

    /// Ends server process `pid`, waiting until it has exited.
    func terminate(_ pid: Int32) throws { try onServer("SELECT pg_terminate_backend(\(pid), 10000)") }

    func allowConnections(_ allowed: Bool) throws {
        try onServer("ALTER DATABASE \(unescaped: name) ALLOW_CONNECTIONS \(unescaped: allowed ? "true" : "false")")
    }
}
