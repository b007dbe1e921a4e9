import Foundation
import Logging
@testable import ProactivePostgres
import ProactiveService
import ProactiveStore
import Testing

// MARK: - The service on a PostgreSQL database

/// `proactive serve` on a database: credentials kept there (hashes only), shared by every instance.
/// Needs PROACTIVE_TEST_DATABASE_URL (scripts/test.sh starts a private cluster); skipped, saying so, without.
@Suite("Service: on PostgreSQL", .enabled(if: OutageDatabase.serverURL != nil,
                                          "PROACTIVE_TEST_DATABASE_URL is not set: no PostgreSQL server (scripts/test.sh starts one)"))
struct ServicePostgresTests {
    /// A database of its own on the test server (`OutageDatabase`), with a folder for the owner's
    /// credential; both removed after `body`.
    static func withDatabase(_ body: (_ url: String, _ folder: URL) async throws -> Void) async throws {
        let database = try OutageDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-service-\(database.name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: folder)
            withExtendedLifetime(database) {}  // dropped only now
        }
        try await body(database.url, folder)
    }

    /// A service on its own connection to the database at `url`, its owner's credential made sure of with `file`.
    static func service(_ url: String, ownerFile file: String) throws -> (service: ProactiveService, owner: (credential: String?, created: Bool)) {
        let storage = try PostgresBackend(url: url)
        try storage.privacy.setRetention(.keepAll)
        let credentials = CredentialStore(records: try storage.credentials)
        return (ProactiveService(storage: storage, credentials: credentials), try credentials.ensureOwnerCredential(file: file))
    }

    @Test("serve on a database without an owner credential needs --owner-credential-file, saying so, and creates nothing")
    func serveNeedsAFileForTheFirstOwner() async throws {
        try await Self.withDatabase { url, folder in
            let socket = folder.appendingPathComponent("s.sock").path
            let storage = try PostgresBackend(url: url)
            await #expect {
                try await ProactiveService.serve(storage: storage, settings: ServeSettings(address: .socket(path: socket)),
                                                 logger: Logger(label: "test"))
            } throws: { error in
                let message = (error as? StoreError)?.message ?? ""
                return message.contains("has no owner credential yet") && message.contains("--owner-credential-file")
            }
            #expect(!FileManager.default.fileExists(atPath: socket))
            #expect(try storage.credentials.ownerHash() == nil)
        }
    }

    @Test("the owner's and an app's credential donate and get suggestions from a database")
    func donateAndSuggest() async throws {
        try await Self.withDatabase { url, folder in
            let ownerFile = folder.appendingPathComponent("owner").path
            let (service, first) = try Self.service(url, ownerFile: ownerFile)
            let owner = try #require(first.credential)
            #expect(first.created)
            #expect(try String(contentsOfFile: ownerFile, encoding: .utf8) == owner + "\n")
            let coffee = try service.credentials.add(app: "com.example.coffee")
            try await serveLive(service) { _, client in
                let loaded = try await client.send(.post, "/v1/donations", credential: owner, body: try ServiceFixture.sampleLines(),
                                                   contentType: "application/x-ndjson")
                #expect(loaded.json?.int("stored") == 283)
                let app = try await client.send(.post, "/v1/donations", credential: coffee, body: donationLine(identifier: "order-1"))
                #expect(app.status == .created)
                let other = try await client.send(.post, "/v1/donations", credential: coffee, body: donationLine(app: "com.example.weather"))
                #expect(other.status == .forbidden)
                let suggestions = try await client.send(.post, "/v1/suggestions", credential: owner,
                                                        body: #"{"user": "me", "at": "2026-11-20T08:30:00-08:00", "k": 3}"#)
                #expect(suggestions.status == .ok)
                #expect(!(suggestions.json?["suggestions"]?.items.isEmpty ?? true))
                #expect(try await client.send(.get, "/v1/stats", credential: ServiceCredential.mint()).status == .unauthorized)
            }
        }
    }

    @Test("two services on one database share the owner and apps; a revocation by another process is refused on the next request")
    func twoInstancesShareCredentials() async throws {
        try await Self.withDatabase { url, folder in
            let ownerFile = folder.appendingPathComponent("owner").path
            let secondFile = folder.appendingPathComponent("second-owner").path
            let (a, first) = try Self.service(url, ownerFile: ownerFile)
            let (b, second) = try Self.service(url, ownerFile: secondFile)
            let owner = try #require(first.credential)
            #expect(first.created && !second.created && second.credential == nil)
            #expect(!FileManager.default.fileExists(atPath: secondFile), "the second instance mints no owner of its own")
            let coffee = try a.credentials.add(app: "com.example.coffee")
            let weather = try b.credentials.add(app: "com.example.weather")
            try await serveLive(a) { _, clientA in
                try await serveLive(b) { _, clientB in
                    for client in [clientA, clientB] {
                        for credential in [owner, coffee, weather] {
                            #expect(try await client.send(.get, "/v1/stats", credential: credential).status == .ok)
                        }
                    }
                    // `proactive apps revoke` from another process: a connection of its own.
                    #expect(try PostgresBackend(url: url, mode: .mustExist).credentials.revokeApp("com.example.coffee"))
                    for client in [clientA, clientB] {
                        #expect(try await client.send(.get, "/v1/stats", credential: coffee).status == .unauthorized)
                        #expect(try await client.send(.get, "/v1/stats", credential: weather).status == .ok)
                    }
                    // A new owner credential replaces the old one everywhere.
                    let replaced = ServiceCredential.mint()
                    try PostgresBackend(url: url, mode: .mustExist).credentials.replaceOwner(replaced, at: Date())
                    for client in [clientA, clientB] {
                        #expect(try await client.send(.get, "/v1/stats", credential: owner).status == .unauthorized)
                        #expect(try await client.send(.get, "/v1/stats", credential: replaced).status == .ok)
                    }
                }
            }
        }
    }
}
